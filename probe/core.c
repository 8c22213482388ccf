/* Pipeline nano-benchmarks: independent adds for the issue width; branches on an LCG's random bit
 * for the mispredict penalty; cache misses N NOPs apart for the reorder buffer. */
#include "core.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ISSUED = 264, BRANCHES = 64, ROB_ITERS = 512, ROB_MISSES = 4, MAX_FILL = 1024,
       COARSE = 32, FINE = 4 };
#define MAX_SPREAD 0.05         /* a timing whose runs spread more is not used */
#define MIN_SERIAL 1.5          /* the misses must take this much longer once they cannot overlap */
#define REG_SLACK 1.5           /* NOPs may reach this much further than register-holding fillers */

/* ---- issue width ------------------------------------------------------------------------------- */

/* Independent adds on general registers and on xmm registers, alternating: two kinds of ports,
 * so that only renaming/allocation limits them (NOPs would not do: some cores retire them
 * faster than any real instruction). */
static void issue_body(struct x86_code *c)
{
    static const struct x86_op add = { .w = true, .opcode = { 0x01 }, .nopcode = 1, .ext = -1 };
    static const struct x86_op paddd = { .prefix = 0x66, .opcode = { 0x0F, 0xFE }, .nopcode = 2, .ext = -1 };
    for (unsigned i = 0; i < ISSUED; i++) {
        if (i % 2)
            x86_rr(c, &paddd, (i / 2) % NANO_XMM_STREAMS, NANO_CONST_XMM);
        else
            x86_rr(c, &add, NANO_CONST_GPR, nano_stream_gpr[(i / 2) % NANO_STREAMS]);
    }
}

bool core_issue_width(const struct timer *t, struct findings *f, char *err, size_t errlen)
{
    struct x86_code body = { 0 };
    issue_body(&body);
    struct nano_state s;
    nano_state_ones(&s, false);
    struct nano_stat st;
    bool ok = nano_measure(t, &body, ISSUED, 0, &s, NULL, 0, &st, err, errlen);
    x86_free(&body);
    struct finding *w = ok ? findings_add(f, FB_FRONTEND, 0, "issue_width", NULL) : NULL;
    if (!w)
        return ok;
    w->stat = st;
    w->raw = 1 / st.min;
    w->value = round(w->raw);
    snprintf(w->method, sizeof w->method, "independent integer and vector adds, alternating: %.2f per cycle", w->raw);
    if (st.spread > MAX_SPREAD)
        findings_reject(w, "runs spread %.1f%%", 100 * st.spread);
    else if (fabs(w->raw - w->value) > 0.15)
        findings_reject(w, "%.2f instructions per cycle is not a whole width", w->raw);
    return true;
}

/* ---- mispredict penalty ------------------------------------------------------------------------ */

/* Per branch: x = x * a + c (an LCG in rax; a in rcx, c in rbx); then the branch tests the sign
 * of x (random: the LCG's top bit) or of a (never taken), and jumps over an add. Both loops run the
 * same instructions; the random one also pays the mispredictions. */
static void branch_body(struct x86_code *c, bool random)
{
    static const uint8_t step[] = { 0x48, 0x0F, 0xAF, 0xC1,     /* imul rax, rcx */
                                    0x48, 0x01, 0xD8 };         /* add rax, rbx */
    static const uint8_t test_x[] = { 0x48, 0x85, 0xC0 }, test_a[] = { 0x48, 0x85, 0xC9 };
    static const uint8_t js_add[] = { 0x78, 0x04,               /* js +4 */
                                      0x48, 0x83, 0xC5, 0x01 }; /* add rbp, 1 */
    for (unsigned k = 0; k < BRANCHES; k++) {
        x86_bytes(c, step, sizeof step);
        x86_bytes(c, random ? test_x : test_a, 3);
        x86_bytes(c, js_add, sizeof js_add);
    }
}

static bool branch_time(const struct timer *t, bool random, struct nano_stat *st, char *err, size_t errlen)
{
    struct x86_code body = { 0 };
    branch_body(&body, random);
    struct nano_state s;
    nano_state_ones(&s, true);
    s.gpr[1] = 1442695040888963407ull;          /* Knuth's MMIX constants: a full-period LCG */
    s.gpr[NANO_STREAMS] = 6364136223846793005ull;
    bool ok = nano_measure(t, &body, BRANCHES, 0, &s, NULL, 0, st, err, errlen);
    x86_free(&body);
    return ok;
}

bool core_mispredict(const struct timer *t, struct findings *f, char *err, size_t errlen)
{
    struct nano_stat rnd, pred;
    if (!branch_time(t, true, &rnd, err, errlen) || !branch_time(t, false, &pred, err, errlen))
        return false;
    struct finding *p = findings_add(f, FB_BRANCH, 0, "mispredict_penalty", NULL);
    if (!p)
        return true;
    /* half of the random branches are mispredicted: every cycle they add is two per mispredict */
    p->raw = 2 * (rnd.min - pred.min);
    p->value = round(p->raw);
    p->stat = rnd.spread > pred.spread ? rnd : pred;
    p->stat.min = p->raw, p->stat.median = 2 * (rnd.median - pred.median), p->stat.runs = rnd.runs;
    snprintf(p->method, sizeof p->method,
             "branches on an LCG's top bit take %.2f cycles, never-taken ones %.2f: half mispredict", rnd.min,
             pred.min);
    if (p->stat.spread > MAX_SPREAD)
        findings_reject(p, "runs spread %.1f%%", 100 * p->stat.spread);
    return true;
}

/* ---- reorder buffer ---------------------------------------------------------------------------- */

enum filler { NOPS, REGISTERS };

/* N fillers: NOPs (Wong's: an entry each on most cores, nothing else), or alternating integer and
 * vector adds (an entry and a register each: a window no larger than the register files). */
static void fill(struct x86_code *c, enum filler kind, unsigned n)
{
    static const struct x86_op add = { .w = true, .opcode = { 0x01 }, .nopcode = 1, .ext = -1 };
    static const struct x86_op paddd = { .prefix = 0x66, .opcode = { 0x0F, 0xFE }, .nopcode = 2, .ext = -1 };
    for (unsigned i = 0; i < n; i++) {
        if (kind == NOPS)
            x86_nop4(c);
        else if (i % 2)
            x86_rr(c, &paddd, (i / 2) % NANO_XMM_STREAMS, NANO_CONST_XMM);
        else    /* the streams but the two chases' */
            x86_rr(c, &add, NANO_CONST_GPR, nano_stream_gpr[2 + (i / 2) % (NANO_STREAMS - 2)]);
    }
}

struct rob_sweep {
    const struct timer *t;
    struct nano_state s;
    struct findings *f;
    enum filler kind;
    size_t curve;
    double low, high;
};

/* Cycles per miss of: (mov rax, [rax]; N fillers; mov rbx, [rbx]; N fillers) twice: two chases
 * through memory whose consecutive misses are N fillers apart (one gap in four also holds the
 * loop's branch). */
static bool rob_time(struct rob_sweep *w, unsigned n, double *cycles, char *err, size_t errlen)
{
    struct x86_code body = { 0 };
    for (unsigned m = 0; m < ROB_MISSES; m++) {
        x86_mov_load(&body, nano_stream_gpr[m % 2], nano_stream_gpr[m % 2], 0);
        fill(&body, w->kind, n);
    }
    struct nano_stat st;
    bool ok = nano_measure(w->t, &body, ROB_MISSES, 0, &w->s, NULL, ROB_ITERS, &st, err, errlen);
    x86_free(&body);
    *cycles = st.min;
    return ok;
}

/* The first N from FROM to TO (step STEP) whose time passes half-way from low to high (0: none). */
static bool first_past(struct rob_sweep *w, unsigned from, unsigned to, unsigned step, unsigned *at, char *err,
                       size_t errlen)
{
    *at = 0;
    for (unsigned n = from; n <= to && !*at; n += step) {
        double c;
        if (!rob_time(w, n, &c, err, errlen))
            return false;
        findings_point(w->f, w->curve, n, c);
        *at = c > (w->low + w->high) / 2 ? n : 0;
    }
    return true;
}

/* The knee of one kind of filler: coarse, then fine below the coarse one; 0 when the misses
 * still overlap at MAX_FILL (or never did). */
static bool knee(struct rob_sweep *w, unsigned *at, char *err, size_t errlen)
{
    unsigned coarse, fine;
    if (!rob_time(w, 0, &w->low, err, errlen) || !rob_time(w, MAX_FILL, &w->high, err, errlen) ||
        !first_past(w, COARSE, MAX_FILL, COARSE, &coarse, err, errlen))
        return false;
    *at = 0;
    if (!coarse || w->high < MIN_SERIAL * w->low)
        return true;
    if (!first_past(w, coarse - COARSE + FINE, coarse, FINE, &fine, err, errlen))
        return false;
    *at = fine ? fine : coarse;
    return true;
}

/* Two chases over the halves of the buffer, their heads in the state's first two streams. */
static bool link_chases(struct chase *c, struct nano_state *s, char *err, size_t errlen)
{
    size_t half = c->len / 2;
    struct chase_seq a = { .stride = 64, .n = half / 64 }, b = { .start = half, .stride = 64, .n = half / 64 };
    nano_state_ones(s, false);
    void *pa = chase_link(c, &a), *pb = chase_link(c, &b);
    if (!pa || !pb)
        return snprintf(err, errlen, "out of memory") < 0;
    s->gpr[0] = (uint64_t)(uintptr_t)pa, s->gpr[1] = (uint64_t)(uintptr_t)pb;
    return true;
}

static void rob_finding(struct finding *rob, unsigned nops, unsigned regs, const struct rob_sweep *w)
{
    /* the window holds one miss, the fillers and the next miss: it overflows at knee + 2 */
    rob->raw = rob->value = nops ? nops + 1 : 0;
    snprintf(rob->method, sizeof rob->method,
             "cache misses %u NOPs apart stop overlapping (%.0f cycles per miss, %.0f when apart)", nops, w->low,
             w->high);
    if (!nops)
        findings_reject(rob, "the misses overlap at every distance up to %d NOPs", MAX_FILL);
    else if (!regs || nops > REG_SLACK * regs)
        findings_reject(rob, "register-holding fillers stop at %u: this core may pack NOPs (several per entry)",
                        regs);
}

bool core_rob(struct chase *c, struct findings *f, char *err, size_t errlen)
{
    struct rob_sweep w = { .t = c->timer, .f = f, .kind = REGISTERS };
    unsigned regs, nops;
    w.curve = findings_curve(f, "rob-registers", "fillers", "cycles");
    if (!link_chases(c, &w.s, err, errlen) || !knee(&w, &regs, err, errlen))
        return false;
    w.kind = NOPS;
    w.curve = findings_curve(f, "rob", "fillers", "cycles");
    if (!knee(&w, &nops, err, errlen))
        return false;
    struct finding *rob = findings_add(f, FB_WINDOW, 0, "rob", NULL);
    if (rob)
        rob_finding(rob, nops, regs, &w);
    return true;
}
