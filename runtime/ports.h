/* The scheduler's choice of one port for each uop, where a description says how its core
 * chooses (port_choice), and when each port is busy: a uop runs on its port at the first free
 * cycle once it is ready, so two chains sharing a port lose a cycle each time they meet. */
#ifndef RT_PORTS_H
#define RT_PORTS_H
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "mdl_machine.h"

/* Forms of more uops come from the microcode sequencer, and a unit held longer is not a port:
 * their uops are not placed (the abstract resources and the serial unit bound them). */
enum { PORTS_MAX_UOPS = 8, PORTS_MAX_HOLD = 32 };

/* When a uop runs: a load's when the load starts (its ports are the load class's), a store's
 * address uop when the address is ready (a store's uop on a set holding load ports), the
 * others when the operation starts. */
enum ports_when { PORTS_AT_OPERATION, PORTS_AT_LOAD, PORTS_AT_ADDRESS };

/* The uops of one instruction as chosen: each one's port, cycles and when it runs. */
struct ports_choice {
    unsigned n;
    uint8_t port[PORTS_MAX_UOPS];
    float len[PORTS_MAX_UOPS];
    uint8_t when[PORTS_MAX_UOPS];   /* enum ports_when */
};

/* For L lanes; NULL when the machine does not choose ports (port_choice none). */
struct ports *ports_new(const struct mdl_machine *m, unsigned L);
void ports_free(struct ports *pc);
/* Every port free, no uop given a port yet. */
void ports_clear(struct ports *pc);
unsigned ports_count(const struct ports *pc);
/* Lane L's port speeds from the resources' cost scales (RES_SCALE, [n_resources][L]): a port
 * is as fast as the fastest resource holding it. */
void ports_lane_scale(struct ports *pc, const double *res_scale, unsigned l);
/* Lane TO's port calendars become lane FROM's (its speeds stay its own). */
void ports_copy_lane(struct ports *pc, unsigned from, unsigned to);
/* The ports the uops of template T may take (a bit per port). */
uint64_t ports_units(const struct ports *pc, const struct mdl_template *t);
/* Whether the uops of template T are given ports (PC NULL: none are). */
bool ports_places(const struct ports *pc, const struct mdl_template *t);
/* The next instruction in program order issues at AT in the baseline lane, FUSED uops (an issue
 * group is the instructions issuing in one cycle). Before ports_choose, and for every
 * instruction, whether its uops are given ports or not: each takes its slots in the group. */
void ports_issue(struct ports *pc, double at, unsigned fused);
/* The ports of the uops of template T, the instruction ports_issue placed, which STORES (a store
 * without a load: its address uop runs apart). The choice depends on the baseline lane only: it
 * is the same in every lane, so a lane's times do not depend on which others run. */
void ports_choose(struct ports *pc, const struct mdl_template *t, bool stores, struct ports_choice *out);

/* ---- what follows is per uop and lane: inline, so that it compiles into the model's vector
 * clones (ports.c has the rest) ---- */

/* The cycles of one port in one lane in which a uop starts: bit K of word K / 64 for cycle
 * BASE + K (cycles of the lane's port speed). The port starts one uop a cycle; a uop ready
 * within a cycle another one took waits for the next free one. Cycles before the lane's dispatch
 * time are behind every uop still to come: the window drops them, but for the one just before
 * it, when it must move on to hold a uop. */
enum { CAL_WORDS = 2, CAL_CYCLES = CAL_WORDS * 64 };

/* The lanes a pass over one port's calendars (ports_take_lanes_) takes at a time: GCC's vectors
 * for it are 16 lanes long in AVX-512 (its shift counts and leading zeros are ints), 4 in AVX2
 * (PORTS_PASS_AVX2), and a loop of fewer lanes or of a remainder runs scalar. The rows are padded
 * to the longer. */
enum { PORTS_PASS = 16, PORTS_PASS_AVX2 = 4 };

/* What the lanes read: each port's calendar in each lane, and its speed there, each field an
 * array [port][lane] (C = port * L + lane), so that a pass over the lanes of one port reads each
 * field a vector at a time. */
struct ports_lanes {
    unsigned L;                     /* a row's lanes: the model's, padded to PORTS_PASS (but one) */
    int64_t *base;                  /* the calendar's first cycle */
    uint64_t *bits[CAL_WORDS];      /* its cycles from base on, 64 a word */
    double *scale;                  /* a cycle's length in this lane */
    double *per;                    /* its inverse, 0 where a cycle takes no time */
};
const struct ports_lanes *ports_lanes(const struct ports *pc);

#define PORTS_EPS 1e-9

static inline bool ports_cal_busy_(const struct ports_lanes *pl, size_t c, int64_t k)
{
    return pl->bits[(k - pl->base[c]) / 64][c] >> ((k - pl->base[c]) % 64) & 1;
}

/* Moves the window on to start at cycle K (never back): its two words shifted as one. */
_Static_assert(CAL_WORDS == 2, "the window is shifted as one 128-bit word");
static inline void ports_cal_advance_(const struct ports_lanes *pl, size_t c, int64_t k)
{
    if (k <= pl->base[c])
        return;
    uint64_t sh = (uint64_t)(k - pl->base[c]);
    unsigned __int128 w = (unsigned __int128)pl->bits[1][c] << 64 | pl->bits[0][c];
    w = sh < CAL_CYCLES ? w >> sh : 0;
    pl->bits[0][c] = (uint64_t)w;
    pl->bits[1][c] = (uint64_t)(w >> 64);
    pl->base[c] = k;
}

/* The first free cycle from K on (not before the window), a word at a time; beyond the window,
 * the window moves. */
static inline int64_t ports_cal_free_(const struct ports_lanes *pl, size_t c, int64_t k)
{
    for (;;) {
        uint64_t off = (uint64_t)(k - pl->base[c]);
        if (off >= CAL_CYCLES) {
            ports_cal_advance_(pl, c, k - CAL_CYCLES + 1);
            off = CAL_CYCLES - 1;   /* K is the window's last cycle now */
        }
        uint64_t free_bits = ~pl->bits[off / 64][c] >> (off % 64);
        if (free_bits)
            return k + __builtin_ctzll(free_bits);
        k += (int64_t)(64 - off % 64);
    }
}

/* The first N free cycles in a row from K on. */
static inline int64_t ports_cal_run_(const struct ports_lanes *pl, size_t c, int64_t k, int64_t n)
{
    for (int64_t run = 0;; k++) {
        if (k + n - run > pl->base[c] + CAL_CYCLES)
            ports_cal_advance_(pl, c, k + n - run - CAL_CYCLES);
        run = ports_cal_busy_(pl, c, k) ? 0 : run + 1;
        if (run == n)
            return k - (n - 1);
    }
}

/* The whole cycles a uop of LEN cycles holds its port (0 or less: it takes none). */
static inline int64_t ports_cycles(double len)
{
    return len <= 1 ? 1 : (int64_t)__builtin_ceil(len - PORTS_EPS);
}

/* A comparison's answer as a word of ones or zeros (the pass below vectorises on words, not on
 * the compiler's booleans). */
static inline uint64_t ports_mask_(bool c) { return -(uint64_t)c; }

/* Whether V, never negative as a signed word, is below N, as a word: compared signed, which AVX2
 * does in one instruction (an unsigned compare it does in three). */
static inline __attribute__((always_inline)) uint64_t ports_below_(uint64_t v, int64_t n)
{
    return ports_mask_((int64_t)v < n);
}

/* A window's words W0 and W1 moved on by SH cycles (0: they stay) as ports_cal_advance_ moves
 * them, without a branch. */
static inline __attribute__((always_inline)) void ports_shift_(uint64_t sh, uint64_t *w0, uint64_t *w1)
{
    uint64_t near = ports_below_(sh, 64), some = ports_mask_(sh != 0);
    uint64_t lo = *w0 >> (sh & 63) | (*w1 << ((64 - sh) & 63) & some);        /* SH < 64 */
    uint64_t hi = *w1 >> ((sh - 64) & 63) & ports_below_(sh, CAL_CYCLES);     /* 64 <= SH */
    *w0 = (lo & near) | (hi & ~near);
    *w1 = *w1 >> (sh & 63) & near;
}

/* Conversions and a bit's index a pass over the lanes takes. NATIVE: in the processor's own
 * instructions (AVX-512DQ converts 64-bit integers, AVX-512CD counts their leading zeros); else
 * in instructions AVX2 has, through a double's mantissa, as exact for the values a calendar sees
 * (|X| < 2^51). */
#define PORTS_MAGIC 0x1.8p52                     /* a double whose last mantissa bit is 1 */
#define PORTS_MAGIC_BITS 0x4338000000000000ll   /* its bits */

/* X truncated to an integer, as (int64_t)X is. */
static inline __attribute__((always_inline)) int64_t ports_int_(double x, bool native)
{
    if (native)
        return (int64_t)x;
    double y = __builtin_trunc(x) + PORTS_MAGIC;
    int64_t i;
    memcpy(&i, &y, sizeof i);
    return i - PORTS_MAGIC_BITS;
}

/* Integer K as a double. */
static inline __attribute__((always_inline)) double ports_double_(int64_t k, bool native)
{
    if (native)
        return (double)k;
    int64_t i = k + PORTS_MAGIC_BITS;
    double y;
    memcpy(&y, &i, sizeof y);
    return y - PORTS_MAGIC;
}

/* The index of the one bit set in X (0 when none is): without NATIVE, the exponent of the half
 * holding it as a double (one or nought: 0). */
static inline __attribute__((always_inline)) uint64_t ports_bit_(uint64_t x, bool native)
{
    if (native)
        return 63 - (uint64_t)__builtin_clzll(x | 1);
    uint64_t high = ports_mask_(x >> 32 != 0);
    uint64_t half = ((x >> 32 & high) | (x & 0xffffffffu & ~high)) | 1;
    double y = ports_double_((int64_t)half, false);
    uint64_t bits;
    memcpy(&bits, &y, sizeof bits);
    return (bits >> 52) - 1023 + (high & 32);
}

/* ports_take_on for a uop of one cycle, without a branch, on calendar C where MAY (all ones or
 * zero) lets the lane take a port (else nothing changes; *AT is T). It does what ports_take_on
 * does but when the window, moved as that would move it, has no free cycle from the uop's on: then
 * the answer is all ones, and ports_take_on, called next, finishes (the window it moves on from
 * is the one ports_take_on would have come to). The calendars' fields are passed apart, so that
 * a pass over the lanes of one port (ports_take_lanes_) knows them apart and vectorises. */
static inline __attribute__((always_inline)) uint64_t ports_take_one_(int64_t *base_, uint64_t *bits0,
                                                                      uint64_t *bits1, const double *scale,
                                                                      const double *per_, size_t c, double t,
                                                                      double disp, uint64_t may, double *at,
                                                                      bool native)
{
    double per = per_[c];
    int64_t base = base_[c];
    uint64_t w0 = bits0[c], w1 = bits1[c];
    double kt = t * per + PORTS_EPS, kd = disp * per + PORTS_EPS;
    /* cycles beyond what the conversions without NATIVE hold (infinite times): ports_take_on's */
    uint64_t far = native ? 0 : ~(ports_mask_(__builtin_fabs(kt) < 0x1p51) & ports_mask_(__builtin_fabs(kd) < 0x1p51));
    uint64_t live = may & ports_mask_(per != 0);             /* a cycle that takes no time: T */
    uint64_t on = live & ~far;
    int64_t k = ports_int_(kt, native);                      /* floor: times are not negative */
    int64_t before = ports_int_(kd, native) - 1;             /* the cycle before dispatch */
    k = k > before ? k : before;
    k = k > base ? k : base;
    /* beyond the window: it moves on to the cycle before dispatch */
    uint64_t move = on & ports_mask_(k + 1 > base + CAL_CYCLES) & ports_mask_(before > base);
    ports_shift_((uint64_t)(before - base) & move, &w0, &w1);
    base = move ? before : base;
    uint64_t off = (uint64_t)(k - base);                     /* not negative */
    uint64_t fits = ports_below_(off, CAL_CYCLES);           /* else the uop takes nothing (and
                                                                no word below has a free bit) */
    uint64_t in0 = ports_below_(off, 64);
    uint64_t free0 = ~w0 >> (off & 63) & in0;                /* word 0's free cycles from K on */
    uint64_t off1 = (off - 64) & ~in0;                       /* word 1's from K on, or all of it */
    uint64_t free1 = ~w1 >> (off1 & 63) & ports_below_(off1, 64);
    uint64_t first0 = ports_mask_(free0 != 0);
    uint64_t x = (free0 & first0) | (free1 & ~first0);
    uint64_t low = x & -x;                                   /* the first free one */
    uint64_t took = ports_mask_(x != 0) & on;
    base_[c] = base;
    bits0[c] = w0 | (low << (off & 63) & first0 & took);
    bits1[c] = w1 | (low << (off1 & 63) & ~first0 & took);
    uint64_t from = (off & first0) + ((64 + off1) & ~first0);
    int64_t start = base + (int64_t)(from + ports_bit_(low, native));
    double s = ports_double_(start, native) * scale[c];
    *at = took && s > t ? s : t;
    return (on & fits & ~took) | (live & far);
}

/* ports_take_one_ over lanes [A, B) of the port whose calendars' fields start at BASE .. PER:
 * lane L's uop ready at T[L] (its lane dispatched at DISP[L]) starts at AT[L] - RANK, or, where
 * OFF[L] (0 or 1) says the lane has no ports, at minus infinity; LEFT[L] is all ones for the
 * lanes ports_take_on must finish. The loop runs from FIRST to END, whole passes around [A, B)
 * in the rows' padding: the lanes outside change nothing (their times are not even converted)
 * and are read only so that no lane takes a scalar prologue or epilogue (ivdep: the fields and
 * the lanes' arrays never overlap, and a run-time check of it would cost a pass). */
static inline __attribute__((always_inline)) void
ports_take_lanes_(int64_t *restrict base, uint64_t *restrict bits0, uint64_t *restrict bits1,
                  const double *restrict scale, const double *restrict per, const double *restrict t,
                  const double *restrict disp, const uint64_t *restrict off, double rank, double *restrict at,
                  uint64_t *restrict left, unsigned a, unsigned b, unsigned first, unsigned end, bool native)
{
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC ivdep
#endif
    for (int64_t l = first; l < end; l++) {
        uint64_t on = (off[l] - 1) & ports_mask_(l >= (int64_t)a) & ports_mask_(l < (int64_t)b);  /* it takes ports */
        double x, tl = on ? t[l] : 0, dl = on ? disp[l] : 0;
        left[l] = ports_take_one_(base, bits0, bits1, scale, per, l, tl, dl, on, &x, native);
        at[l] = on ? x - rank : -INFINITY;
    }
}

/* On calendar C (a lane's of a port), the first start at or after T at which the port is free for
 * LEN cycles (before the lane's scale; N: ports_cycles(LEN), the same in every lane), now taken;
 * 0 cycles take nothing. DISP is the lane's dispatch time: nothing placed later starts before it,
 * and the calendar keeps the cycle before it (ports_issue counts the uops that started there). */
static inline __attribute__((always_inline)) double ports_take_on(const struct ports_lanes *pl, size_t c, double t,
                                                                  double len, int64_t n, double disp)
{
    double per = pl->per[c];
    if (len <= 0 || per == 0)
        return t;
    int64_t k = (int64_t)(t * per + PORTS_EPS);             /* floor: times are not negative */
    int64_t before = (int64_t)(disp * per + PORTS_EPS) - 1;  /* the cycle before dispatch */
    k = k > before ? k : before;
    k = k > pl->base[c] ? k : pl->base[c];
    /* The window moves on to the cycle before dispatch only when the uop would not fit: what it
     * keeps from before that is older than K and never read again, so the calendar answers as if
     * it had moved with every uop, without the shift. */
    if (k + n > pl->base[c] + CAL_CYCLES) {
        ports_cal_advance_(pl, c, before);
        if (k + n > pl->base[c] + CAL_CYCLES)
            return t;
    }
    if (n == 1) {
        k = ports_cal_free_(pl, c, k);
        uint64_t off = (uint64_t)(k - pl->base[c]);     /* in the window: not negative */
        pl->bits[off / 64][c] |= 1ull << (off % 64);
    } else {
        k = ports_cal_run_(pl, c, k, n);
        for (int64_t j = k; j < k + n; j++)
            pl->bits[(j - pl->base[c]) / 64][c] |= 1ull << ((j - pl->base[c]) % 64);
    }
    double at = (double)k * pl->scale[c];
    return at > t ? at : t;
}

/* The same for lane L of port P. */
static inline double ports_take(const struct ports_lanes *pl, unsigned p, unsigned l, double t, double len,
                                double disp)
{
    return ports_take_on(pl, (size_t)p * pl->L + l, t, len, ports_cycles(len), disp);
}

#endif
