/* The scheduler's choice of one port for each uop, where a description says how its core
 * chooses (port_choice), and when each port is busy: a uop runs on its port at the first free
 * cycle once it is ready, so two chains sharing a port lose a cycle each time they meet. */
#ifndef RT_PORTS_H
#define RT_PORTS_H
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
struct ports_cal {
    int64_t base;
    uint64_t bits[CAL_WORDS];
    double scale;                   /* a cycle's length in this lane */
    double per;                     /* its inverse, 0 where a cycle takes no time */
};

/* What the lanes read: each port's cycles in each lane, and its speed there (one line each). */
struct ports_lanes {
    unsigned L;
    struct ports_cal *cal;          /* [port][lane] */
};
const struct ports_lanes *ports_lanes(const struct ports *pc);

#define PORTS_EPS 1e-9

static inline bool ports_cal_busy_(const struct ports_cal *c, int64_t k)
{
    return c->bits[(k - c->base) / 64] >> ((k - c->base) % 64) & 1;
}

/* Moves the window on to start at cycle K (never back): its two words shifted as one. */
_Static_assert(CAL_WORDS == 2, "the window is shifted as one 128-bit word");
static inline void ports_cal_advance_(struct ports_cal *c, int64_t k)
{
    if (k <= c->base)
        return;
    uint64_t sh = (uint64_t)(k - c->base);
    unsigned __int128 w = (unsigned __int128)c->bits[1] << 64 | c->bits[0];
    w = sh < CAL_CYCLES ? w >> sh : 0;
    c->bits[0] = (uint64_t)w;
    c->bits[1] = (uint64_t)(w >> 64);
    c->base = k;
}

/* The first free cycle from K on (not before the window), a word at a time; beyond the window,
 * the window moves. */
static inline int64_t ports_cal_free_(struct ports_cal *c, int64_t k)
{
    for (;;) {
        uint64_t off = (uint64_t)(k - c->base);
        if (off >= CAL_CYCLES) {
            ports_cal_advance_(c, k - CAL_CYCLES + 1);
            off = CAL_CYCLES - 1;   /* K is the window's last cycle now */
        }
        uint64_t free_bits = ~c->bits[off / 64] >> (off % 64);
        if (free_bits)
            return k + __builtin_ctzll(free_bits);
        k += (int64_t)(64 - off % 64);
    }
}

/* The first N free cycles in a row from K on. */
static inline int64_t ports_cal_run_(struct ports_cal *c, int64_t k, int64_t n)
{
    for (int64_t run = 0;; k++) {
        if (k + n - run > c->base + CAL_CYCLES)
            ports_cal_advance_(c, k + n - run - CAL_CYCLES);
        run = ports_cal_busy_(c, k) ? 0 : run + 1;
        if (run == n)
            return k - (n - 1);
    }
}

/* Port P's calendars, one per lane. */
static inline struct ports_cal *ports_row(const struct ports_lanes *pl, unsigned p)
{
    return &pl->cal[(size_t)p * pl->L];
}

/* The whole cycles a uop of LEN cycles holds its port (0 or less: it takes none). */
static inline int64_t ports_cycles(double len)
{
    return len <= 1 ? 1 : (int64_t)__builtin_ceil(len - PORTS_EPS);
}

/* On calendar C (a lane's of a port), the first start at or after T at which the port is free for
 * LEN cycles (before the lane's scale; N: ports_cycles(LEN), the same in every lane), now taken;
 * 0 cycles take nothing. DISP is the lane's dispatch time: nothing placed later starts before it,
 * and the calendar keeps the cycle before it (ports_issue counts the uops that started there). */
static inline __attribute__((always_inline)) double ports_take_on(struct ports_cal *c, double t, double len, int64_t n,
                                                                  double disp)
{
    double per = c->per;
    if (len <= 0 || per == 0)
        return t;
    int64_t k = (int64_t)(t * per + PORTS_EPS);             /* floor: times are not negative */
    int64_t before = (int64_t)(disp * per + PORTS_EPS) - 1;  /* the cycle before dispatch */
    k = k > before ? k : before;
    k = k > c->base ? k : c->base;
    /* The window moves on to the cycle before dispatch only when the uop would not fit: what it
     * keeps from before that is older than K and never read again, so the calendar answers as if
     * it had moved with every uop, without the shift. */
    if (k + n > c->base + CAL_CYCLES) {
        ports_cal_advance_(c, before);
        if (k + n > c->base + CAL_CYCLES)
            return t;
    }
    if (n == 1) {
        k = ports_cal_free_(c, k);
        uint64_t off = (uint64_t)(k - c->base);      /* in the window: not negative */
        c->bits[off / 64] |= 1ull << (off % 64);
    } else {
        k = ports_cal_run_(c, k, n);
        for (int64_t j = k; j < k + n; j++)
            c->bits[(j - c->base) / 64] |= 1ull << ((j - c->base) % 64);
    }
    double at = (double)k * c->scale;
    return at > t ? at : t;
}

/* The same for lane L of port P. */
static inline double ports_take(const struct ports_lanes *pl, unsigned p, unsigned l, double t, double len,
                                double disp)
{
    return ports_take_on(&ports_row(pl, p)[l], t, len, ports_cycles(len), disp);
}

#endif
