/* The rules of the core model on tiny hand-computed cases: a machine compiled in-process from a
 * few lines of MDL, instructions built by hand, cycles checked against arithmetic. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "lower.h"
#include "feed.h"
#include "model.h"
#include "resolve.h"
#include "skylake.h"
#include "scratch.h"

static struct arena ar;
static struct src_manager sm;
static struct diag dg;
static char errbuf[4096];

static const char machine_head[] =
    "machine tiny { isa x86_64; }\n"
    "ports p0, p1;\n"
    "async W;\n"
    "class generic latency 1 ports 1*p01;\n"
    "insn ALU latency 1 ports 1*p01;\n"
    "insn P0 latency 1 ports 1*p0;\n"
    "insn SLOW latency 20 ports 1*p1;\n"
    "insn STORE2 async W(2);\n";

/* Compiles MACHINE_HEAD plus EXTRA (a window block, ...) into tables; the front end issues 4
 * uops a cycle unless EXTRA has a frontend block. */
static void teardown(void);
static bool built;      /* a machine is held in ar and sm */

static const struct mdl_machine *machine(const char *extra)
{
    if (built)
        teardown();     /* a test may build several: each replaces the last */
    built = true;
    arena_init(&ar);
    src_init(&sm);
    FILE *err = fmemopen(errbuf, sizeof errbuf, "w");
    diag_init(&dg, &sm, err);
    char path[256];
    snprintf(path, sizeof path, "%s", scratch_path("test_model_XXXXXX.mdl"));
    int fd = mkstemps(path, 4);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, "%s%s%s\n", machine_head, strstr(extra, "frontend {") ? "" : "frontend { issue_width 4; }\n", extra);
    fclose(fp);
    struct program *p = arena_alloc(&ar, sizeof *p);
    *p = (struct program){ .ar = &ar, .sm = &sm, .diag = &dg };
    struct resolve_opts ro = { NULL, 0 };
    bool ok = resolve_program(p, path, &ro) && check_program(p);
    const struct mdl_machine *m = ok ? lower_program(p) : NULL;
    fclose(err);
    remove(path);
    cr_assert(m, "the test machine does not compile:\n%s", errbuf);
    return m;
}

static void teardown(void)
{
    src_free(&sm);
    arena_free(&ar);
    built = false;
}

static uint32_t tmpl(const struct mdl_machine *m, const char *name)
{
    for (uint32_t i = 0; i < m->n_templates; i++)
        if (strcmp(m->templates[i].name, name) == 0)
            return i;
    cr_assert_fail("no template %s", name);
    return 0;
}

/* An instruction reading SRC (0: none) and writing DST (0: none). */
static struct rt_insn insn(const struct mdl_machine *m, const char *form, uint8_t src, uint8_t dst)
{
    struct rt_insn in = { .tmpl = tmpl(m, form) };
    if (src)
        in.src[in.n_src++] = src;
    if (dst)
        in.dst[in.n_dst++] = dst;
    return in;
}

static const struct rt_lane_cfg baseline = { { RT_KNOB_NONE, RT_KNOB_NONE }, { 0, 0 }, 1 };

/* Cycles per iteration of BODY repeated N times, measured over the second half. */
static double run(const struct mdl_machine *m, const struct rt_insn *body, size_t n, unsigned iters,
                  const struct rt_lane_cfg *lanes, unsigned n_lanes, unsigned lane, struct rt_model **keep)
{
    char err[128];
    struct rt_model *md = rt_model_new(m, lanes ? lanes : &baseline, lanes ? n_lanes : 1, true, (unsigned)n,
                                       err, sizeof err);
    cr_assert(md, "%s", err);
    rt_model_legacy_decode(md, true);   /* only machines with a legacy decode path have one */
    double half = 0;
    for (unsigned it = 0; it < iters; it++) {
        for (size_t i = 0; i < n; i++)
            rt_model_step(md, &body[i], (uint32_t)i, NULL, NULL, false);
        if (it + 1 == iters / 2)
            half = rt_model_time(md, lane);
    }
    double c = (rt_model_time(md, lane) - half) / (iters - iters / 2);
    if (keep)
        *keep = md;
    else
        rt_model_free(md);
    return c;
}

TestSuite(model, .fini = teardown);

Test(model, runs_a_dependency_chain_at_its_latency)
{
    const struct mdl_machine *m = machine("");
    struct rt_insn chain = insn(m, "ALU", 1, 1);
    cr_expect_float_eq(run(m, &chain, 1, 200, NULL, 0, 0, NULL), 1.0, 1e-9);
    struct rt_insn slow = insn(m, "SLOW", 1, 1);
    cr_expect_float_eq(run(m, &slow, 1, 200, NULL, 0, 0, NULL), 20.0, 1e-9);
}

Test(model, shares_a_port_between_independent_instructions)
{
    const struct mdl_machine *m = machine("");
    struct rt_insn p0 = insn(m, "P0", 0, 0), alu = insn(m, "ALU", 0, 0);
    cr_expect_float_eq(run(m, &p0, 1, 400, NULL, 0, 0, NULL), 1.0, 1e-9, "one port: one per cycle");
    cr_expect_float_eq(run(m, &alu, 1, 400, NULL, 0, 0, NULL), 0.5, 1e-9, "two ports: two per cycle");
    /* p0 busy with P0 leaves p1 for ALU: together they fill p01 exactly, one cycle per pair. */
    struct rt_insn mix[2] = { insn(m, "P0", 0, 0), insn(m, "ALU", 0, 0) };
    cr_expect_float_eq(run(m, mix, 2, 400, NULL, 0, 0, NULL), 1.0, 1e-9);
}

/* port_choice least_used: two one-cycle chains on p01, issued two a cycle, are given the two
 * ports at the group's even and odd slots and never meet; three uops on two ports take 1.5
 * cycles, the ports' bound, each starting a uop a cycle; a unit held 300 cycles is no port: the
 * abstract resource bounds it alone (a window of 128 cycles could not hold it). */
Test(model, gives_each_uop_a_port_when_the_description_chooses_them)
{
    const char *ports = "window { port_choice least_used; }\n"
                        "insn LONG latency 1 ports 300*p0;\n";
    const struct mdl_machine *m = machine(ports);
    struct rt_insn chains[2] = { insn(m, "ALU", 1, 1), insn(m, "ALU", 2, 2) };
    double c = run(m, chains, 2, 400, NULL, 0, 0, NULL);
    cr_expect_float_eq(c, 1.0, 1e-9, "%.17g: the chains take p0 and p1 in turn, never one port together", c);
    struct rt_insn three[3] = { insn(m, "ALU", 1, 1), insn(m, "ALU", 2, 2), insn(m, "ALU", 3, 3) };
    cr_expect_float_eq(run(m, three, 3, 400, NULL, 0, 0, NULL), 1.5, 1e-9, "three uops on two ports");
    struct rt_insn longer = insn(m, "LONG", 0, 0);
    cr_expect_float_eq(run(m, &longer, 1, 20, NULL, 0, 0, NULL), 300.0, 1e-9);
}

/* One chain, one instruction issued a cycle. Without a wakeup delay each add starts as it issues:
 * the third result is ready at 3. With a cycle's delay the second add, whose operand is ready in
 * its issue cycle (1), starts at 2; the third, whose operand is ready the cycle after its issue
 * (3, issued at 2), starts at 4: its result at 5. */
Test(model, waits_a_cycle_more_for_operands_ready_as_the_uop_issues_when_the_description_says_so)
{
    for (int delay = 0; delay <= 1; delay++) {
        char extra[128];
        snprintf(extra, sizeof extra, "frontend { issue_width 1; }\nwindow { wakeup_delay %d cycles; }\n", delay);
        const struct mdl_machine *m = machine(extra);
        struct rt_insn chain = insn(m, "ALU", 1, 1);
        char err[128];
        struct rt_model *md = rt_model_new(m, &baseline, 1, false, 1, err, sizeof err);
        cr_assert(md, "%s", err);
        for (int i = 0; i < 3; i++)
            rt_model_step(md, &chain, 0, NULL, NULL, false);
        cr_expect_float_eq(rt_model_latest(md, 0), delay ? 5.0 : 3.0, 1e-9, "wakeup delay %d", delay);
        rt_model_free(md);
    }
}

/* A SLOW (20 cycles, p1) and an ALU that waits for it, per iteration, one instruction issued a
 * cycle. With no scheduler limit the SLOWs overlap and issue binds: 2 cycles per iteration. With
 * 4 entries and groups of one, an instruction issues only while at most 3 are held; an entry frees
 * the cycle after its uop starts, so an ALU holds one 21 cycles from its SLOW's start and the
 * SLOW's frees at once: 3 ALUs wait at a time, four iterations take 21 cycles. */
Test(model, holds_issue_until_the_scheduler_has_room_for_a_group)
{
    const char *const extra[2] = { "frontend { issue_width 1; }\n", "frontend { issue_width 1; }\nwindow { scheduler 4; }\n" };
    const double want[2] = { 2.0, 21.0 / 4 };
    for (int i = 0; i < 2; i++) {
        const struct mdl_machine *m = machine(extra[i]);
        struct rt_insn body[2] = { insn(m, "SLOW", 0, 1), insn(m, "ALU", 1, 2) };
        double c = run(m, body, 2, 600, NULL, 0, 0, NULL);
        cr_expect_float_eq(c, want[i], 1e-6, "%s: %.17g", extra[i], c);
    }
}

Test(model, limits_independent_work_by_the_issue_width)
{
    const struct mdl_machine *m = machine("");
    struct rt_insn zero = insn(m, "ALU", 0, 1);
    zero.eliminated = true;
    cr_expect_float_eq(run(m, &zero, 1, 400, NULL, 0, 0, NULL), 0.25, 1e-9,
                       "eliminated: no port, only an issue slot of 4 per cycle");
}

Test(model, stalls_dispatch_when_the_rob_is_full)
{
    /* A 20-cycle instruction and three 1-cycle ones per iteration, all independent: with 4
     * window entries the next SLOW waits for the previous one to retire (20 cycles); with
     * 100 entries the SLOWs overlap and p1 (one SLOW per cycle) and p01 bound the loop. */
    const struct mdl_machine *small = machine("window { rob 4; retire_width 4; }");
    struct rt_insn body[4] = { insn(small, "SLOW", 0, 0), insn(small, "ALU", 0, 0), insn(small, "ALU", 0, 0),
                               insn(small, "ALU", 0, 0) };
    double c = run(small, body, 4, 200, NULL, 0, 0, NULL);
    cr_expect_float_eq(c, 20.0, 1e-6, "got %g", c);
    teardown();
    const struct mdl_machine *big = machine("window { rob 100; retire_width 4; }");
    for (int i = 0; i < 4; i++)
        body[i].tmpl = tmpl(big, i ? "ALU" : "SLOW");
    cr_expect_float_eq(run(big, body, 4, 400, NULL, 0, 0, NULL), 2.0, 1e-6, "p01: four uops on two ports");
}

Test(model, bounds_throughput_by_asynchronous_resources_without_delaying_one_instruction)
{
    const struct mdl_machine *m = machine("");
    struct rt_insn st = insn(m, "STORE2", 0, 0);
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 1, err, sizeof err);
    for (int i = 0; i < 100; i++)
        rt_model_step(md, &st, 0, NULL, NULL, false);
    cr_expect_lt(rt_model_time(md, 0), 100.0, "the instructions themselves are not delayed");
    cr_expect_float_eq(rt_model_async_bound(md, 0), 200.0, 1e-9, "two cycles of W each");
    rt_model_free(md);
}

/* Cycles per pair of ST storing ST_SIZE bytes at 0x1000 and LD loading LD_SIZE bytes at
 * 0x1000 + LD_OFF, 100 times. */
static double memory_chain_of(const struct mdl_machine *m, struct rt_insn st, struct rt_insn ld, uint8_t st_size,
                              uint8_t ld_size, uint64_t ld_off)
{
    st.mem[st.n_mem++] = (struct rt_mem){ .size = st_size, .store = true };
    ld.mem[ld.n_mem++] = (struct rt_mem){ .size = ld_size, .load = true };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 2, err, sizeof err);
    uint64_t a = 0x1000, b = a + ld_off;
    for (int i = 0; i < 100; i++) {
        rt_model_step(md, &st, 0, &a, NULL, false);
        rt_model_step(md, &ld, 1, &b, NULL, false);
    }
    double c = rt_model_time(md, 0) / 100;
    rt_model_free(md);
    return c;
}

/* Cycles per pair of ST storing to one 8-byte slot and LD loading it back. */
static double memory_chain(const struct mdl_machine *m, struct rt_insn st, struct rt_insn ld)
{
    return memory_chain_of(m, st, ld, 8, 8, 0);
}

Test(model, forwards_a_store_to_a_load_of_the_same_address)
{
    const struct mdl_machine *m = machine("insn LD latency 5 ports 1*p0;\ninsn ST latency 1 ports 1*p1;");
    /* a chain through memory: store r1 to [a], load [a] into r1 */
    cr_expect_float_eq(memory_chain(m, insn(m, "ST", 1, 0), insn(m, "LD", 0, 1)), 5.0, 0.1,
                       "each load waits for the store before it");
}

static const char forwarding_machine[] = "insn LD latency 5 ports 1*p0;\ninsn ST latency 1 ports 1*p1;\n"
                                         "memory { store_forward_fail 16 cycles; }";

Test(model, waits_for_a_narrower_store_under_a_wider_load_at_the_failed_forwarding_latency)
{
    const struct mdl_machine *m = machine(forwarding_machine);
    struct rt_insn st = insn(m, "ST", 1, 0), ld = insn(m, "LD", 0, 1);
    double forwarded = memory_chain_of(m, st, ld, 8, 8, 0), failed = memory_chain_of(m, st, ld, 4, 8, 0);
    cr_expect_float_eq(forwarded, 5.0, 0.1);
    cr_expect_float_eq(failed, 16.0, 0.1, "4-byte store, 8-byte load: the store cannot forward it");
    cr_expect_gt(failed, forwarded);
    cr_expect_float_eq(memory_chain_of(m, st, ld, 4, 4, 2), 16.0, 0.1, "a load partly over the store");
}

Test(model, forwards_an_eight_byte_store_to_a_four_byte_load_inside_it)
{
    const struct mdl_machine *m = machine(forwarding_machine);
    struct rt_insn st = insn(m, "ST", 1, 0), ld = insn(m, "LD", 0, 1);
    cr_expect_float_eq(memory_chain_of(m, st, ld, 8, 4, 4), 5.0, 0.1);
    cr_expect_float_eq(memory_chain_of(m, st, ld, 8, 4, 0), 5.0, 0.1);
}

Test(model, does_not_chain_independent_stores_to_adjacent_bytes)
{
    /* two chains through memory, byte [a] and byte [a+1], each a load and a store of 5 cycles:
     * they run side by side, one iteration every 5 cycles, not one after the other (10) */
    const struct mdl_machine *m = machine(forwarding_machine);
    struct rt_insn body[4] = { insn(m, "LD", 0, 1), insn(m, "ST", 1, 0), insn(m, "LD", 0, 2), insn(m, "ST", 2, 0) };
    for (unsigned k = 0; k < 4; k++)
        body[k].mem[body[k].n_mem++] = (struct rt_mem){ .size = 1, .load = k % 2 == 0, .store = k % 2 == 1 };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 4, err, sizeof err);
    const uint64_t addr[4] = { 0x1000, 0x1000, 0x1001, 0x1001 };
    for (int i = 0; i < 100; i++)
        for (unsigned k = 0; k < 4; k++)
            rt_model_step(md, &body[k], k, &addr[k], NULL, false);
    cr_expect_float_eq(rt_model_time(md, 0) / 100, 5.0, 0.1);
    rt_model_free(md);
}

Test(model, takes_a_pop_for_a_pure_load_though_it_reads_rsp)
{
    /* push r1, pop r1: the pop's latency range [2;5] is not 2 after a 5-cycle load, since its
     * only register, rsp, is the stack engine's address */
    const struct mdl_machine *m = machine("insn PUSHX latency 2..11 ports 1*p1;\ninsn POPX latency 2..5 ports 1*p0;");
    const uint8_t rsp = RT_X86_GPR + 4;
    struct rt_insn push = insn(m, "PUSHX", 1, 0), pop = insn(m, "POPX", rsp, 1);
    push.src[push.n_src++] = rsp;
    push.stack = -8;
    pop.stack = 8;
    push.stack_reg = pop.stack_reg = rsp;
    cr_expect_float_eq(memory_chain(m, push, pop), 5.0, 0.1);
}

/* Cycles per load of a chain of LD, each loading SIZE bytes from [r1 + DISP (+ r2 with INDEX)]
 * into r1. */
static double chase(const struct mdl_machine *m, uint8_t size, int64_t disp, bool index)
{
    struct rt_insn ld = insn(m, "LD", 0, 1);
    ld.addr[ld.n_addr++] = 1;
    if (index)
        ld.addr[ld.n_addr++] = 2;
    ld.mem[ld.n_mem++] = (struct rt_mem){ .base = 1, .index = index ? 2 : RT_REG_NONE, .scale = index,
                                          .size = size, .load = true, .disp = disp };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 1, err, sizeof err);
    uint64_t a = 0x1000;
    for (int i = 0; i < 100; i++)
        rt_model_step(md, &ld, 0, &a, NULL, false);
    double c = rt_model_time(md, 0) / 100;
    rt_model_free(md);
    return c;
}

Test(model, saves_the_pointer_chase_cycle_on_a_load_whose_base_another_load_wrote_with_a_small_displacement)
{
    const struct mdl_machine *m = machine("insn LD latency 5 ports 1*p0 class load;\n"
                                          "memory { pointer_chase 1 cycles; }");
    cr_expect_float_eq(chase(m, 8, 24, false), 4.0, 0.1, "mov rax, [rax + 24]: the fast path");
    cr_expect_float_eq(chase(m, 4, 0, false), 4.0, 0.1, "a 32-bit load is a pointer too");
    cr_expect_float_eq(chase(m, 8, 2048, false), 5.0, 0.1, "a displacement of 2048 or more");
    cr_expect_float_eq(chase(m, 8, -8, false), 5.0, 0.1, "a negative displacement");
    cr_expect_float_eq(chase(m, 8, 0, true), 5.0, 0.1, "an index register");
    cr_expect_float_eq(chase(m, 1, 0, false), 5.0, 0.1, "a byte loaded is no pointer");
    m = machine("insn LD latency 5 ports 1*p0 class load;");
    cr_expect_float_eq(chase(m, 8, 24, false), 5.0, 0.1, "a machine without the fast path");
}

Test(model, keeps_the_pointer_chase_through_a_move_eliminated_at_rename)
{
    /* mov rbp, [rdi + 8]; mov rdi, rbp (eliminated): the load's base names the loaded value */
    const struct mdl_machine *m = machine("insn LD latency 5 ports 1*p0 class load;\n"
                                          "memory { pointer_chase 1 cycles; }");
    struct rt_insn body[2] = { insn(m, "LD", 0, 2), insn(m, "ALU", 2, 1) };
    body[0].addr[body[0].n_addr++] = 1;
    body[0].mem[body[0].n_mem++] = (struct rt_mem){ .base = 1, .size = 8, .load = true, .disp = 8 };
    body[1].eliminated = true;
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 2, err, sizeof err);
    const uint64_t a[2] = { 0x1000, 0 };
    for (int i = 0; i < 100; i++)
        for (unsigned k = 0; k < 2; k++)
            rt_model_step(md, &body[k], k, &a[k], NULL, false);
    cr_expect_float_eq(rt_model_time(md, 0) / 100, 4.0, 0.1);
    rt_model_free(md);
}

Test(model, puts_the_dependency_chain_on_the_critical_path)
{
    const struct mdl_machine *m = machine("window { rob 32; }");
    /* r1 chain of SLOW instructions next to independent ALU work */
    struct rt_insn body[3] = { insn(m, "SLOW", 1, 1), insn(m, "ALU", 0, 2), insn(m, "ALU", 0, 3) };
    struct rt_model *md;
    run(m, body, 3, 300, NULL, 0, 0, &md);
    uint64_t seen0, seen1;
    uint64_t c0 = rt_model_critical(md, 0, &seen0), c1 = rt_model_critical(md, 1, &seen1);
    cr_assert_gt(seen0, 100);
    cr_expect_gt((double)c0 / seen0, 0.9, "the chain is critical: %llu of %llu", (unsigned long long)c0,
                 (unsigned long long)seen0);
    cr_expect_lt((double)c1 / seen1, 0.2, "independent work is not: %llu of %llu", (unsigned long long)c1,
                 (unsigned long long)seen1);
    rt_model_free(md);
}

Test(model, counts_each_followed_instruction_once_it_has_left_the_window)
{
    const struct mdl_machine *m = machine("window { rob 32; }");
    struct rt_insn body[2] = { insn(m, "SLOW", 1, 1), insn(m, "ALU", 0, 2) };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, true, 2, err, sizeof err);
    cr_assert(md, "%s", err);
    uint32_t window = rt_model_causal_window(md);
    cr_assert_eq(window, 64, "twice the ROB");
    rt_model_follow(md, 0);
    for (unsigned i = 0; i < 100; i++)
        rt_model_step(md, &body[i % 2], i % 2, NULL, NULL, false);
    cr_expect_not(rt_model_following(md));
    rt_model_follow(md, 10);
    unsigned steps = 0;
    for (; rt_model_following(md); steps++)
        rt_model_step(md, &body[steps % 2], steps % 2, NULL, NULL, false);
    cr_expect_eq(steps, 10 + window, "the last followed instruction leaves %u later", window);
    uint64_t seen0, seen1;
    uint64_t c0 = rt_model_critical(md, 0, &seen0);
    rt_model_critical(md, 1, &seen1);
    cr_expect_eq(seen0 + seen1, 10);
    cr_expect_eq(c0, seen0, "every SLOW of the chain is critical");
    rt_model_free(md);
}

Test(model, gives_the_same_times_when_its_steps_are_fed_to_a_thread)
{
    const struct mdl_machine *m = machine("window { rob 32; } frontend { fetch_bytes 16 B; decode_width 1; "
                                          "issue_width 4; uop_cache_switch 3 cycles; }");
    struct rt_insn body[3] = { insn(m, "SLOW", 1, 1), insn(m, "ALU", 1, 2), insn(m, "P0", 2, 3) };
    char err[128];
    struct rt_model *direct = rt_model_new(m, &baseline, 1, true, 3, err, sizeof err);
    struct rt_model *fed = rt_model_new(m, &baseline, 1, true, 3, err, sizeof err);
    cr_assert(direct && fed, "%s", err);
    struct feed *f = feed_new(fed, true);
    cr_assert(f);
    for (unsigned i = 0; i < 30000; i++) {     /* several batches, the last one partial */
        /* the path travels with its step: legacy decoding one a cycle in runs of 5 in 11 */
        enum rt_path p = i % 11 < 5 ? RT_PATH_LEGACY : i % 11 == 5 ? RT_PATH_COUNT : RT_PATH_UOP_CACHE;
        if (p != RT_PATH_COUNT)
            rt_model_path(direct, p);
        rt_model_step(direct, &body[i % 3], i % 3, NULL, NULL, i % 7 == 0);
        feed_step(f, &body[i % 3], i % 3, NULL, NULL, i % 7 == 0, p);
    }
    feed_finish(f);
    cr_expect_eq(rt_model_time(fed, 0), rt_model_time(direct, 0));
    uint64_t s1, s2;
    cr_expect_eq(rt_model_critical(fed, 0, &s1), rt_model_critical(direct, 0, &s2));
    cr_expect_eq(s1, s2);
    feed_free(f);
    rt_model_free(direct);
    rt_model_free(fed);
}

/* A mark fed among steps records what it read; feed_wait returns once it has run, whether its
 * batch was full and handed over or still being filled. */
static void count_mark(void *ctx, struct rt_model *md, unsigned what)
{
    (void)md;
    atomic_fetch_add((_Atomic unsigned *)ctx, what);
}

static bool marks_ran(const void *ctx)
{
    return atomic_load((_Atomic unsigned *)(uintptr_t)ctx) >= 2;
}

Test(model, a_wait_on_the_feed_returns_once_the_marks_fed_so_far_have_run)
{
    const struct mdl_machine *m = machine("window { rob 32; }");
    struct rt_insn body[2] = { insn(m, "SLOW", 1, 1), insn(m, "ALU", 1, 2) };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, true, 2, err, sizeof err);
    cr_assert(md, "%s", err);
    for (unsigned half = 0; half < 2; half++) {     /* the mark in a full batch, then in the one being filled */
        static _Atomic unsigned ran;
        atomic_store(&ran, 0);
        struct feed *f = feed_new(md, true);
        cr_assert(f);
        unsigned n = half ? 100 : 40000;
        for (unsigned i = 0; i < n; i++) {
            feed_step(f, &body[i % 2], i % 2, NULL, NULL, false, RT_PATH_COUNT);
            if (i == 50)
                feed_mark(f, count_mark, (void *)&ran, 2);
        }
        feed_wait(f, marks_ran, (const void *)&ran);
        cr_expect_geq(atomic_load(&ran), 2, "the mark ran before the wait returned");
        feed_finish(f);
        feed_free(f);
    }
    rt_model_free(md);
}

Test(model, reports_latency_as_the_bottleneck_of_a_chain_and_the_port_of_a_throughput_loop)
{
    const struct mdl_machine *m = machine("window { rob 64; }");
    struct rt_lane_cfg lanes[3] = { baseline, { { RT_KNOB_LATENCY, RT_KNOB_NONE }, { 0, 0 }, 1.15 },
                                    { { RT_KNOB_RESOURCE, RT_KNOB_NONE }, { 0, 0 }, 1.15 } };
    unsigned p0 = 0;
    for (unsigned r = 0; r < m->n_resources; r++)
        if (strcmp(m->resources[r].name, "p0") == 0)
            p0 = r;
    lanes[2].arg[0] = (int)p0;
    struct rt_insn chain = insn(m, "ALU", 1, 1), indep = insn(m, "P0", 0, 0);
    double base = run(m, &chain, 1, 200, lanes, 3, 0, NULL);
    cr_expect_float_eq(base / run(m, &chain, 1, 200, lanes, 3, 1, NULL), 1.15, 1e-6, "latency lane");
    cr_expect_float_eq(base / run(m, &chain, 1, 200, lanes, 3, 2, NULL), 1.0, 1e-6, "port lane");
    base = run(m, &indep, 1, 400, lanes, 3, 0, NULL);
    cr_expect_float_eq(base / run(m, &indep, 1, 400, lanes, 3, 1, NULL), 1.0, 1e-6, "latency lane");
    cr_expect_float_eq(base / run(m, &indep, 1, 400, lanes, 3, 2, NULL), 1.15, 1e-3, "port lane");
}

Test(model, adds_a_relative_bypass_latency_between_classes)
{
    /* the same dependency chain, once within a class and once crossing into another */
    const struct mdl_machine *m = machine("insn VA latency 1 class vec_alu ports 1*p01;\n"
                                          "insn FA latency 1 class fp_add ports 1*p01;\n"
                                          "bypass latency +2 for vec_alu -> fp_add;");
    struct rt_insn same[2] = { insn(m, "VA", 1, 1), insn(m, "VA", 1, 1) };
    struct rt_insn cross[2] = { insn(m, "VA", 1, 1), insn(m, "FA", 1, 1) };
    cr_expect_float_eq(run(m, same, 2, 200, NULL, 0, 0, NULL), 2.0, 1e-6);
    cr_expect_float_eq(run(m, cross, 2, 200, NULL, 0, 0, NULL), 4.0, 1e-6, "the crossing costs 2 more");
}

/* A legacy front end wide everywhere but where each test looks; FREE has no port. */
static const char legacy_fe[] = "frontend { fetch_bytes 16 B; predecode_width %d; decode_width %d; issue_width 8;"
                                " complex_decoders 1; }\n"
                                "insn FREE latency 1;\ninsn FREE2 latency 1 uops 2;\n";

static const struct mdl_machine *legacy_machine(int predecode_width, int decode_width)
{
    static char text[512];
    snprintf(text, sizeof text, legacy_fe, predecode_width, decode_width);
    return machine(text);
}

/* N independent FREE instructions of LEN bytes. */
static void free_insns(const struct mdl_machine *m, struct rt_insn *body, size_t n, uint8_t len)
{
    for (size_t i = 0; i < n; i++) {
        body[i] = insn(m, "FREE", 0, 0);
        body[i].len = len;
    }
}

/* Cycles per iteration of N independent FREE instructions of LEN bytes, their opcode byte at
 * OPCODE_AT, decoders wide enough. */
static double free_cycles(int predecode_width, size_t n, uint8_t len, uint8_t opcode_at)
{
    struct rt_insn body[16];
    const struct mdl_machine *m = legacy_machine(predecode_width, 8);
    free_insns(m, body, n, len);
    for (size_t i = 0; i < n; i++)
        body[i].opcode_at = opcode_at;
    return run(m, body, n, 200, NULL, 0, 0, NULL);
}

Test(model, predecodes_at_most_predecode_width_instructions_of_a_fetch_block_a_cycle)
{
    /* eight 2-byte instructions fill one 16-byte block: five, then three */
    cr_expect_float_eq(free_cycles(5, 8, 2, 0), 2.0, 1e-9);
    cr_expect_float_eq(free_cycles(8, 8, 2, 0), 1.0, 1e-9, "one block a cycle");
}

Test(model, gives_an_instruction_crossing_a_fetch_block_a_cycle_of_its_own_when_the_cycle_is_full)
{
    /* sixteen 3-byte instructions span three blocks: five fit in each, the sixth crosses. With
     * room for six it joins the next block's cycle: 3 cycles; with five it costs one more at the
     * first two crossings (at 15 and 30), and the one at 45 (ending on the boundary) one more:
     * 6 cycles. With the opcode byte after a prefix, the one at 15 has it in the next block and
     * joins that block's cycle: 5 cycles. */
    cr_expect_float_eq(free_cycles(6, 16, 3, 0), 3.0, 1e-9);
    cr_expect_float_eq(free_cycles(5, 16, 3, 0), 6.0, 1e-9);
    cr_expect_float_eq(free_cycles(5, 16, 3, 1), 5.0, 1e-9);
}

Test(model, decodes_an_instruction_of_several_uops_on_the_first_decoder_only)
{
    /* 4-byte single- and double-uop instructions alternate: a double one opens a decode cycle,
     * so each cycle takes one pair; without it the block's four would go in one. */
    struct rt_insn body[2];
    const struct mdl_machine *m = legacy_machine(5, 4);
    free_insns(m, body, 2, 4);
    cr_expect_float_eq(run(m, body, 2, 200, NULL, 0, 0, NULL), 0.5, 1e-9, "single uops: one block a cycle");
    body[1].tmpl = tmpl(m, "FREE2");
    cr_expect_float_eq(run(m, body, 2, 200, NULL, 0, 0, NULL), 1.0, 1e-9);
}

Test(model, holds_a_fusible_instruction_until_the_next_one_is_predecoded)
{
    /* X and fusible A fill block 0; four B fill block 1, predecoded a cycle later. A then takes a
     * decoder of block 1's cycle, so the fourth B is decoded a cycle later, at 3, and done at 4.
     * Otherwise the B are decoded at 2 and the fourth issues three slots of 1/8 cycle later. */
    const struct mdl_machine *m = legacy_machine(5, 4);
    struct rt_insn body[6];
    free_insns(m, body, 2, 8);
    free_insns(m, body + 2, 4, 4);
    double done[2];
    for (int fusible = 0; fusible < 2; fusible++) {
        body[1].fusible = fusible;
        char err[128];
        struct rt_model *md = rt_model_new(m, &baseline, 1, false, 6, err, sizeof err);
        rt_model_legacy_decode(md, true);
        for (uint32_t i = 0; i < 6; i++)
            rt_model_step(md, &body[i], i, NULL, NULL, false);
        done[fusible] = rt_model_time(md, 0);
        rt_model_free(md);
    }
    cr_expect_float_eq(done[0], 3.375, 1e-9);
    cr_expect_float_eq(done[1], 4.0, 1e-9);
}

Test(model, merges_a_scalar_simd_result_into_its_destination_at_the_lower_latency)
{
    /* cvtsi2sd xmm1, rdx, latency [4;7], repeated: the chain runs through the merged xmm1 at 4;
     * with xmm1 also the converted value (the last operand) it runs at 7 */
    const struct mdl_machine *m = machine("insn CVT latency 4..7 ports 1*p0;");
    const uint8_t xmm1 = RT_X86_VEC + 1, rdx = RT_X86_GPR + 2;
    struct rt_insn cvt = insn(m, "CVT", xmm1, xmm1);
    cvt.src[cvt.n_src++] = rdx;
    cvt.op_reg[cvt.n_ops++] = xmm1;
    cvt.op_reg[cvt.n_ops++] = rdx;
    cvt.merge = xmm1;           /* what the decoder says of it */
    cr_expect_float_eq(run(m, &cvt, 1, 200, NULL, 0, 0, NULL), 4.0, 1e-9);
    cvt.op_reg[1] = xmm1;
    cvt.merge = RT_REG_NONE;
    cr_expect_float_eq(run(m, &cvt, 1, 200, NULL, 0, 0, NULL), 7.0, 1e-9);
}

Test(model, chains_a_read_modify_write_through_memory_at_forwarding_plus_its_register_operation)
{
    /* add [a], 1 repeated, uops.info's [3;10]: the store forwards to the next load in 5 (the
     * bypass rule), then the add takes what its class's register form takes, 1 */
    const struct mdl_machine *m = machine(
        "cache L1D { level 1; type data; size 32 KiB; ways 8; line 64 B; latency 4 cycles; bandwidth 64 B/cycle; }\n"
        "class int_alu latency 1 ports 1*p01;\n"
        "insn RMW latency 3..10 class int_alu ports 1*p0;\n"
        "bypass latency 5 for int_alu -> memory int_alu;");
    struct rt_insn rmw = insn(m, "RMW", 0, 0);
    rmw.mem[rmw.n_mem++] = (struct rt_mem){ .size = 8, .load = true, .store = true };
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 1, err, sizeof err);
    uint64_t a = 0x1000;
    for (int i = 0; i < 100; i++)
        rt_model_step(md, &rmw, 0, &a, NULL, false);
    cr_expect_float_eq(rt_model_time(md, 0) / 100, 6.0, 0.1);
    rt_model_free(md);
}

Test(model, takes_the_fast_end_of_a_wide_integer_divider_range_and_the_upper_end_of_a_narrow_one)
{
    /* DIV r64's [5;89] spans operand values: a chain of them runs at the fast end, no faster than
     * the divider's occupancy (tp 21); DIV r32's [23;28] spans operand pairs and keeps 28 */
    const struct mdl_machine *m = machine("insn DIVQ latency 5..89 class int_div ports 1*p0 tp 21;\n"
                                          "insn DIVL latency 23..28 class int_div ports 1*p0 tp 6;\n"
                                          "insn IDIVQ latency 38..96 class int_div ports 1*p0 tp 24;");
    struct rt_insn divq = insn(m, "DIVQ", 1, 1), divl = insn(m, "DIVL", 1, 1), idivq = insn(m, "IDIVQ", 1, 1);
    cr_expect_float_eq(run(m, &divq, 1, 100, NULL, 0, 0, NULL), 21.0, 1e-9);
    cr_expect_float_eq(run(m, &idivq, 1, 100, NULL, 0, 0, NULL), 38.0, 1e-9);
    cr_expect_float_eq(run(m, &divl, 1, 100, NULL, 0, 0, NULL), 28.0, 1e-9);
}

/* A machine for the lane tests, with the parameters a lane of weight 2 changes: ROB and load
 * buffer sizes, the first level's bandwidth, the mispredict penalty, and the latencies; its
 * front end has legacy decoders. */
struct lane_params {
    int rob, lb;
    double bandwidth, penalty, lat;
    double fail;                    /* store_forward_fail (0: not modelled) */
};

static const struct mdl_machine *lane_machine(struct lane_params p)
{
    char extra[1024];
    snprintf(extra, sizeof extra,
             "frontend { issue_width 4; decode_width 4; complex_decoders 1; fetch_bytes 16 B; "
             "predecode_width 5; }\n"
             "window { rob %d; load_buffer %d; store_buffer 5; }\n"
             "cache L1D { level 1; type data; size 32 KiB; ways 8; line 64 B; latency 4 cycles; "
             "bandwidth %g B/cycle; }\n"
             "cache L2 { level 2; type unified; size 256 KiB; ways 4; line 64 B; latency 12 cycles; "
             "bandwidth 32 B/cycle; }\n"
             "branch { predictor static; mispredict_penalty %g cycles; }\n"
             "memory { store_forward_fail %g cycles; }\n"
             "insn LD latency %g ports 1*p0;\ninsn ST latency %g ports 1*p1;\n"
             "insn LONG latency %g ports 1*p1;\ninsn SHORT latency %g ports 1*p01;\n",
             p.rob, p.lb, p.bandwidth, p.penalty, p.fail, 5 * p.lat, 1 * p.lat, 20 * p.lat, 1 * p.lat);
    return machine(extra);
}

/* A mixed body run on MD: independent long operations, two loads from the three levels, a
 * store, short dependent operations, a mispredicted branch now and then (seldom enough for the
 * window to fill). With causality on, sampled, the baseline lane alternates between the taint
 * path and the passes over all lanes. */
static void run_mixed_body(struct rt_model *md, const struct mdl_machine *m)
{
    struct rt_insn body[6] = { insn(m, "LONG", 5, 1), insn(m, "LD", 0, 3), insn(m, "LD", 0, 6),
                               insn(m, "ST", 3, 0), insn(m, "SHORT", 1, 2), insn(m, "SHORT", 6, 4) };
    body[1].mem[body[1].n_mem++] = (struct rt_mem){ .size = 8, .load = true };
    body[2].mem[body[2].n_mem++] = (struct rt_mem){ .size = 8, .load = true };
    body[3].mem[body[3].n_mem++] = (struct rt_mem){ .size = 16, .store = true };
    for (unsigned k = 0; k < 6; k++)
        body[k].len = (uint8_t)(3 + k);    /* through the legacy decoders, fetch blocks crossed */
    rt_model_legacy_decode(md, true);
    rt_model_sample_causality(md, 2);
    for (unsigned i = 0; i < 6000; i++) {
        uint64_t a = 0x1000 + 8 * (i % 13);
        uint8_t level = (uint8_t)(i % 3);
        rt_model_step(md, &body[i % 6], i % 6, &a, &level, i % 97 == 0);
    }
}

/* The time of every lane of a model of LANES after the mixed body. */
static void lane_times(const struct mdl_machine *m, const struct rt_lane_cfg *lanes, unsigned n, bool causality,
                       double *out)
{
    char err[128];
    struct rt_model *md = rt_model_new(m, lanes, n, causality, 6, err, sizeof err);
    cr_assert(md, "%s", err);
    run_mixed_body(md, m);
    for (unsigned l = 0; l < n; l++)
        out[l] = rt_model_time(md, l);
    rt_model_free(md);
}

/* Lanes run together, in passes over all of them (the baseline too, but for the periods its
 * taints are followed): each must time what the baseline alone, which takes the scalar path,
 * times on a machine with its knob's parameter changed. Three machines, where the ROB, the
 * load buffer and the first level's bandwidth bind in turn, give each knob something to do. */
Test(model, gives_each_lane_the_times_of_a_machine_with_its_parameter_changed)
{
    enum { N = 6 };
    const enum rt_knob knobs[N] = { RT_KNOB_NONE, RT_KNOB_LATENCY, RT_KNOB_ROB, RT_KNOB_LOAD_BUFFER,
                                    RT_KNOB_CACHE_BW, RT_KNOB_MISPREDICT };
    struct rt_lane_cfg lanes[N] = { baseline };
    for (unsigned l = 1; l < N; l++)
        lanes[l] = (struct rt_lane_cfg){ { knobs[l], RT_KNOB_NONE }, { 0, 0 }, 2 };
    const struct lane_params bases[3] = { { 16, 12, 16, 16, 1, 0 }, { 64, 3, 16, 16, 1, 0 }, { 64, 12, 4, 16, 1, 0 } };
    bool faster[N] = { true };
    for (unsigned c = 0; c < 3; c++) {
        double with_taints[N], without[N];
        lane_times(lane_machine(bases[c]), lanes, N, true, with_taints);
        lane_times(lane_machine(bases[c]), lanes, N, false, without);
        for (unsigned l = 0; l < N; l++) {
            struct lane_params p = bases[c];
            p.lat /= knobs[l] == RT_KNOB_LATENCY ? 2 : 1;
            p.rob *= knobs[l] == RT_KNOB_ROB ? 2 : 1;
            p.lb *= knobs[l] == RT_KNOB_LOAD_BUFFER ? 2 : 1;
            p.bandwidth *= knobs[l] == RT_KNOB_CACHE_BW ? 2 : 1;
            p.penalty /= knobs[l] == RT_KNOB_MISPREDICT ? 2 : 1;
            double alone;
            lane_times(lane_machine(p), &baseline, 1, false, &alone);
            cr_expect_eq(without[l], alone, "machine %u, %s lane: %.17g, the changed machine: %.17g", c,
                         rt_knob_name(knobs[l]), without[l], alone);
            cr_expect_eq(with_taints[l], without[l], "machine %u, %s lane: taints change no time", c,
                         rt_knob_name(knobs[l]));
            faster[l] |= without[l] < without[0];
        }
    }
    for (unsigned l = 0; l < N; l++)
        cr_expect(faster[l], "the %s lane is faster on one of the machines", rt_knob_name(knobs[l]));
}

/* How sensitivity is shared between two threads: the second model has no baseline lane. */
Test(model, times_lanes_without_a_baseline_beside_them_as_with_it)
{
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 3, 16, 16, 1, 0 });
    const enum rt_knob knobs[5] = { RT_KNOB_NONE, RT_KNOB_LOAD_BUFFER, RT_KNOB_ROB, RT_KNOB_LATENCY,
                                    RT_KNOB_MISPREDICT };
    struct rt_lane_cfg lanes[5];
    for (unsigned l = 0; l < 5; l++)
        lanes[l] = (struct rt_lane_cfg){ { knobs[l], RT_KNOB_NONE }, { 0, 0 }, 2 };
    double all[5], rest[4];
    lane_times(m, lanes, 5, true, all);
    lane_times(m, lanes + 1, 4, false, rest);
    for (unsigned l = 1; l < 5; l++)
        cr_expect_eq(rest[l - 1], all[l], "%s lane", rt_knob_name(knobs[l]));
    char err[128];
    cr_expect_null(rt_model_new(m, lanes + 1, 4, true, 6, err, sizeof err), "causality follows the baseline");
    cr_expect_str_eq(err, "causality follows lane 0: it must be the baseline");
}

Test(model, times_as_a_new_model_once_reset_after_another_run)
{
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 6, 16, 16, 1, 0 });
    struct rt_lane_cfg lanes[3] = { baseline, { { RT_KNOB_ROB, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                    { { RT_KNOB_LATENCY, RT_KNOB_NONE }, { 0, 0 }, 2 } };
    char err[128];
    struct rt_model *fresh = rt_model_new(m, lanes, 3, true, 6, err, sizeof err);
    struct rt_model *reused = rt_model_new(m, lanes, 2, true, 3, err, sizeof err);
    cr_assert(fresh && reused, "%s", err);
    run_mixed_body(reused, m);      /* with other lanes: everything holds other times */
    cr_assert(rt_model_reset(reused, lanes, 3, 6), "two or three lanes pad to the same count");
    run_mixed_body(fresh, m);
    run_mixed_body(reused, m);
    for (unsigned l = 0; l < 3; l++)
        cr_expect_eq(rt_model_time(reused, l), rt_model_time(fresh, l), "lane %u", l);
    for (uint32_t i = 0; i < 6; i++) {
        uint64_t seen_f, seen_r;
        cr_expect_eq(rt_model_critical(reused, i, &seen_r), rt_model_critical(fresh, i, &seen_f), "insn %u", i);
        cr_expect_eq(seen_r, seen_f, "insn %u", i);
    }
    struct rt_lane_cfg many[9] = { baseline };
    cr_expect_not(rt_model_reset(reused, many, 9, 6), "nine lanes do not fit a model of four");
    rt_model_free(reused);
    rt_model_free(fresh);
}

/* Block mode stops the charges (it reports none): they keep what they had while the model steps
 * on, and a reset charges again, as a new model does. */
Test(model, keeps_the_charges_once_they_stop_and_charges_again_once_reset)
{
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 6, 16, 16, 1, 0 });
    char err[128];
    struct rt_model *fresh = rt_model_new(m, &baseline, 1, true, 6, err, sizeof err);
    struct rt_model *stopped = rt_model_new(m, &baseline, 1, true, 6, err, sizeof err);
    cr_assert(fresh && stopped, "%s", err);
    rt_model_charges_stop(stopped);
    run_mixed_body(stopped, m);
    cr_expect_gt(rt_model_time(stopped, 0), 0);
    for (uint32_t i = 0; i < 6; i++)
        cr_expect_eq(rt_model_charge(stopped, i), 0, "insn %u is charged after the charges stopped", i);
    cr_assert(rt_model_reset(stopped, &baseline, 1, 6));
    run_mixed_body(stopped, m);
    run_mixed_body(fresh, m);
    double all = 0;
    for (uint32_t i = 0; i < 6; i++) {
        all += rt_model_charge(fresh, i);
        cr_expect_eq(rt_model_charge(stopped, i), rt_model_charge(fresh, i), "insn %u", i);
    }
    cr_expect_gt(all, 0);
    rt_model_free(stopped);
    rt_model_free(fresh);
}

/* ---- top-down slots of the baseline lane -------------------------------------------------- */

TestSuite(topdown, .fini = teardown);

static double td_total(const struct rt_topdown *t)
{
    double s = t->retiring + t->bad_speculation + t->frontend_latency + t->frontend_bandwidth + t->core;
    for (unsigned k = 0; k < t->n_levels; k++)
        s += t->memory[k];
    return s;
}

/* The slots of MD add up to its time with the tail, none negative; the tail adds back-end slots
 * (or takes the slots issued beyond the end of the run off retiring). */
static void td_expect_adds_up(const struct rt_model *md, const struct mdl_machine *m)
{
    struct rt_topdown all, issued;
    rt_model_topdown(md, true, &all);
    rt_model_topdown(md, false, &issued);
    double want = rt_model_time(md, 0) * m->issue_width, eps = 1e-9 * (1 + want);
    cr_expect_float_eq(td_total(&all), want, eps, "%.17g slots, %.17g wanted", td_total(&all), want);
    const double *cat[] = { &all.retiring, &all.bad_speculation, &all.frontend_latency, &all.frontend_bandwidth,
                            &all.core };
    for (unsigned i = 0; i < 5; i++)
        cr_expect_geq(*cat[i], -eps, "category %u: %g", i, *cat[i]);
    for (unsigned k = 0; k < all.n_levels; k++)
        cr_expect_geq(all.memory[k], issued.memory[k] - eps, "level %u: %g", k, all.memory[k]);
    cr_expect_leq(all.retiring, issued.retiring + eps);
    cr_expect_eq(all.bad_speculation, issued.bad_speculation);
    cr_expect_eq(all.frontend_latency, issued.frontend_latency);
    cr_expect_eq(all.frontend_bandwidth, issued.frontend_bandwidth);
    cr_expect_geq(all.core, issued.core - eps);
}

/* A new model of M (the baseline alone) that has stepped IN N times, every EVERY-th mispredicted
 * (0: none). */
static struct rt_model *repeated(const struct mdl_machine *m, const struct rt_insn *in, int n, int every)
{
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, 1, err, sizeof err);
    cr_assert(md, "%s", err);
    for (int i = 0; i < n; i++)
        rt_model_step(md, in, 0, NULL, NULL, every && i % every == 0);
    return md;
}

/* B - A, field by field. */
static struct rt_topdown td_minus(const struct rt_topdown *b, const struct rt_topdown *a)
{
    struct rt_topdown d = *b;
    d.retiring -= a->retiring;
    d.bad_speculation -= a->bad_speculation;
    d.frontend_latency -= a->frontend_latency;
    d.frontend_bandwidth -= a->frontend_bandwidth;
    d.core -= a->core;
    for (unsigned k = 0; k < d.n_levels; k++)
        d.memory[k] -= a->memory[k];
    return d;
}

/* The slots of the second half of ITERS repetitions of BODY (N instructions), as shares of their
 * total, on a new model of M (one baseline lane); LEVEL serves its loads. */
static struct rt_topdown td_steady(const struct mdl_machine *m, const struct rt_insn *body, size_t n, unsigned iters,
                                   bool legacy, uint8_t level, const bool *mispredicted)
{
    char err[128];
    struct rt_model *md = rt_model_new(m, &baseline, 1, false, (unsigned)n, err, sizeof err);
    cr_assert(md, "%s", err);
    rt_model_legacy_decode(md, legacy);
    struct rt_topdown half = { 0 }, end;
    uint64_t addr[RT_MAX_MEM] = { 0x1000 };
    uint8_t levels[RT_MAX_MEM] = { level };
    for (unsigned it = 0; it < iters; it++) {
        for (size_t i = 0; i < n; i++)
            rt_model_step(md, &body[i], (uint32_t)i, addr, levels, mispredicted && mispredicted[i]);
        if (it + 1 == iters / 2)
            rt_model_topdown(md, false, &half);
    }
    rt_model_topdown(md, false, &end);
    td_expect_adds_up(md, m);
    rt_model_free(md);
    struct rt_topdown d = td_minus(&end, &half);
    double total = td_total(&d);
    cr_assert_gt(total, 0);
    d.retiring /= total;
    d.bad_speculation /= total;
    d.frontend_latency /= total;
    d.frontend_bandwidth /= total;
    d.core /= total;
    for (unsigned k = 0; k < d.n_levels; k++)
        d.memory[k] /= total;
    return d;
}

/* Expected shares: retiring, bad speculation, front-end latency and bandwidth, core; memory[LEVEL]
 * takes the rest. */
static void td_expect_shares(const struct rt_topdown *t, double ret, double bad, double fe_lat, double fe_bw,
                             double core, unsigned level)
{
    cr_expect_float_eq(t->retiring, ret, 1e-9, "retiring %.12g, %.12g expected", t->retiring, ret);
    cr_expect_float_eq(t->bad_speculation, bad, 1e-9, "bad speculation %.12g, %.12g expected", t->bad_speculation,
                       bad);
    cr_expect_float_eq(t->frontend_latency, fe_lat, 1e-9, "front-end latency %.12g, %.12g expected",
                       t->frontend_latency, fe_lat);
    cr_expect_float_eq(t->frontend_bandwidth, fe_bw, 1e-9, "front-end bandwidth %.12g, %.12g expected",
                       t->frontend_bandwidth, fe_bw);
    cr_expect_float_eq(t->core, core, 1e-9, "core %.12g, %.12g expected", t->core, core);
    for (unsigned k = 0; k < t->n_levels; k++) {
        double want = k == level ? 1 - ret - bad - fe_lat - fe_bw - core : 0;
        cr_expect_float_eq(t->memory[k], want, 1e-9, "memory[%u] %.12g, %.12g expected", k, t->memory[k], want);
    }
}

Test(topdown, counts_a_dependent_add_chain_as_one_quarter_retiring_and_the_rest_core_bound)
{
    /* One add a cycle on a 4-wide machine: once the ROB is full, each dispatch waits for the
     * retirement of the add a window before, 3/4 of a cycle after the previous add's slot. */
    const struct mdl_machine *m = machine("");
    struct rt_insn chain = insn(m, "ALU", 1, 1);
    struct rt_topdown t = td_steady(m, &chain, 1, 2000, false, 0, NULL);
    td_expect_shares(&t, 0.25, 0, 0, 0, 0.75, 0);
}

Test(topdown, counts_independent_work_at_the_issue_width_as_all_retiring_and_the_drain_as_core)
{
    /* Four ports for a 4-wide front end: every slot issues an add. With the tail, the last add's
     * cycle of latency after its slot (3/4 of a cycle) is the back end's: 3 slots. */
    const struct mdl_machine *m = machine("ports p2, p3;\ninsn WIDE latency 1 ports 1*p0123;");
    struct rt_insn add = insn(m, "WIDE", 0, 0);
    struct rt_topdown t = td_steady(m, &add, 1, 2000, false, 0, NULL);
    td_expect_shares(&t, 1, 0, 0, 0, 0, 0);
    struct rt_model *md = repeated(m, &add, 100, 0);
    struct rt_topdown all;
    rt_model_topdown(md, true, &all);
    cr_expect_float_eq(all.retiring, 100, 1e-9);
    cr_expect_float_eq(all.core, 3, 1e-9);
    td_expect_adds_up(md, m);
    rt_model_free(md);
}

/* mov rax, [rax] on Skylake, served by data level LEVEL (the number of levels: memory). */
static struct rt_topdown skylake_chase(uint8_t level)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    const uint8_t rax = RT_X86_GPR + 0;
    struct rt_insn ld = { .tmpl = tmpl(m, "MOV (R64, M64)") };
    ld.addr[ld.n_addr++] = rax;
    ld.dst[ld.n_dst++] = rax;
    ld.mem[ld.n_mem++] = (struct rt_mem){ .size = 8, .load = true };
    return td_steady(m, &ld, 1, 2000, false, level, NULL);
}

Test(topdown, puts_a_pointer_chase_on_the_level_that_serves_it)
{
    /* Skylake: the load's 5 cycles from the first level (4), and the extra latency of the level
     * that serves it (L2 12, L3 42, memory 250). The load buffer (72) full, each dispatch waits
     * a load's whole latency but for its own slot, a quarter cycle. */
    const double latency[4] = { 5, 5 + 12 - 4, 5 + 42 - 4, 5 + 250 - 4 };
    for (uint8_t level = 0; level < 4; level++) {
        struct rt_topdown t = skylake_chase(level);
        cr_assert_eq(t.n_levels, 4, "L1D, L2, L3 and memory");
        td_expect_shares(&t, 0.25 / latency[level], 0, 0, 0, 0, level);
    }
}

Test(topdown, charges_the_recovery_from_a_mispredicted_branch_to_bad_speculation)
{
    /* Three adds and a mispredicted branch, 4-wide: the branch resolves a cycle after its slot
     * starts, and the front end restarts 10 cycles later: 10.75 cycles (43 slots) from the end
     * of the branch's slot to the next add. An iteration: 4 slots issued, 43 lost. */
    const struct mdl_machine *m = machine("ports p2, p3;\ninsn WIDE latency 1 ports 1*p0123;\n"
                                          "branch { predictor static; mispredict_penalty 10 cycles; }");
    struct rt_insn body[4] = { insn(m, "WIDE", 0, 0), insn(m, "WIDE", 0, 0), insn(m, "WIDE", 0, 0),
                               insn(m, "WIDE", 0, 0) };
    body[3].branch = RT_BR_COND;
    const bool mispredicted[4] = { false, false, false, true };
    struct rt_topdown t = td_steady(m, body, 4, 500, false, 0, mispredicted);
    td_expect_shares(&t, 4.0 / 47, 43.0 / 47, 0, 0, 0, 0);
}

Test(topdown, splits_what_the_legacy_decoders_cannot_feed_into_front_end_latency_and_bandwidth)
{
    /* 8-wide issue. Four 4-byte instructions with a length-changing prefix fill a fetch block:
     * the predecoder takes 3 cycles each, one more at the block's first: 13 cycles for 4 uops.
     * After each uop's slot (1/8 cycle) the rest of its cycle is bandwidth (7 slots), the whole
     * cycles up to the next delivery latency: 2, 2, 2 and 3 cycles. */
    const struct mdl_machine *m = legacy_machine(5, 4);
    struct rt_insn lcp[4];
    free_insns(m, lcp, 4, 4);
    for (int i = 0; i < 4; i++)
        lcp[i].lcp = true;
    struct rt_topdown t = td_steady(m, lcp, 4, 400, true, 0, NULL);
    td_expect_shares(&t, 4.0 / 104, 0, 72.0 / 104, 28.0 / 104, 0, 0);
    /* An 8-uop instruction comes from the microcode sequencer: a cycle to switch to it, two of
     * four uops, one to switch back, then the next decode cycle: its 8 uops issue in one cycle
     * of every five, the four others deliver nothing. */
    teardown();
    m = machine("frontend { fetch_bytes 16 B; predecode_width 5; decode_width 4; issue_width 8; "
                "complex_decoders 1; }\ninsn MS latency 1 uops 8;");
    struct rt_insn ms[4];
    for (int i = 0; i < 4; i++) {
        ms[i] = insn(m, "MS", 0, 0);
        ms[i].len = 4;
    }
    t = td_steady(m, ms, 4, 400, true, 0, NULL);
    td_expect_shares(&t, 0.2, 0, 0.8, 0, 0, 0);
}

/* Random streams: a xorshift generator, so that every run draws the same. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* N static instructions of the lane machine drawn at random: long and short operations, loads,
 * load-operations, stores and branches, on eight registers, some with a length-changing prefix or
 * the stack engine's synchronisation uop. */
static void random_pool(const struct mdl_machine *m, struct rt_insn *pool, unsigned n, uint64_t *x)
{
    static const char *const forms[] = { "LONG", "SHORT", "LD", "ST", "SHORT", "SHORT" };
    for (unsigned i = 0; i < n; i++) {
        unsigned f = (unsigned)(next_random(x) % 6);
        pool[i] = insn(m, forms[f], (uint8_t)(next_random(x) % 9), (uint8_t)(f == 3 ? 0 : next_random(x) % 9));
        if (f == 2 || f == 3 || (f == 4 && next_random(x) % 2))
            pool[i].mem[pool[i].n_mem++] = (struct rt_mem){ .size = 8, .load = f != 3, .store = f == 3 };
        if (f == 2 || f == 3)
            pool[i].addr[pool[i].n_addr++] = (uint8_t)(1 + next_random(x) % 8);
        if (f == 5)
            pool[i].branch = RT_BR_COND;
        pool[i].len = (uint8_t)(1 + next_random(x) % 15);
        pool[i].lcp = next_random(x) % 8 == 0;
        pool[i].sync = next_random(x) % 16 == 0;
        pool[i].stack_reg = RT_X86_GPR + 4;
    }
}

/* STEPS instructions drawn from POOL (N of them) on MD, with random addresses, serving levels
 * (the two caches and memory) and mispredictions; only the baseline lane advances after
 * ALONE_AT steps. */
static void random_run(struct rt_model *md, const struct rt_insn *pool, unsigned n, unsigned steps, bool legacy,
                       unsigned alone_at)
{
    uint64_t x = 0x9e3779b97f4a7c15ull;
    rt_model_legacy_decode(md, legacy);
    for (unsigned i = 0; i < steps; i++) {
        if (i == alone_at)
            rt_model_baseline_only(md);
        unsigned k = (unsigned)(next_random(&x) % n);
        uint64_t a = 0x1000 + 8 * (next_random(&x) % 64);
        uint8_t level = (uint8_t)(next_random(&x) % 3);
        bool miss = pool[k].branch && next_random(&x) % 4 == 0;
        rt_model_step(md, &pool[k], k, &a, &level, miss);
    }
}

static void td_expect_same(const struct rt_topdown *a, const struct rt_topdown *b, const char *what)
{
    cr_expect_eq(a->retiring, b->retiring, "%s: retiring %.17g, %.17g", what, a->retiring, b->retiring);
    cr_expect_eq(a->bad_speculation, b->bad_speculation, "%s: bad speculation", what);
    cr_expect_eq(a->frontend_latency, b->frontend_latency, "%s: front-end latency", what);
    cr_expect_eq(a->frontend_bandwidth, b->frontend_bandwidth, "%s: front-end bandwidth", what);
    cr_expect_eq(a->core, b->core, "%s: core %.17g, %.17g", what, a->core, b->core);
    cr_expect_eq(a->n_levels, b->n_levels, "%s: levels", what);
    for (unsigned k = 0; k < a->n_levels && k < RT_TD_LEVELS; k++)
        cr_expect_eq(a->memory[k], b->memory[k], "%s: memory[%u] %.17g, %.17g", what, k, a->memory[k],
                     b->memory[k]);
}

/* The slots of lane 0 after the random run, with the tail and without, on a model of LANES. */
static void random_topdown(const struct mdl_machine *m, const struct rt_insn *pool, unsigned n,
                           const struct rt_lane_cfg *lanes, unsigned n_lanes, bool causality, bool legacy,
                           unsigned alone_at, struct rt_topdown out[2])
{
    char err[128];
    struct rt_model *md = rt_model_new(m, lanes, n_lanes, causality, n, err, sizeof err);
    cr_assert(md, "%s", err);
    random_run(md, pool, n, 20000, legacy, alone_at);
    td_expect_adds_up(md, m);
    rt_model_topdown(md, true, &out[0]);
    rt_model_topdown(md, false, &out[1]);
    rt_model_free(md);
}

Test(topdown, counts_the_same_slots_whether_lane_0_takes_the_scalar_path_or_the_passes_over_lanes)
{
    /* The scalar step (alone; with taints while causality follows a period) and the passes over
     * all lanes (several lanes, no causality) time lane 0 alike: its slots must agree to the bit,
     * the baseline-only phase (the scalar step after the passes) included. */
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 6, 16, 16, 1, 0 });
    struct rt_lane_cfg lanes[5] = { baseline, { { RT_KNOB_ROB, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                    { { RT_KNOB_LATENCY, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                    { { RT_KNOB_MISPREDICT, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                    { { RT_KNOB_FRONTEND, RT_KNOB_NONE }, { 0, 0 }, 2 } };
    enum { N = 32 };
    struct rt_insn pool[N];
    uint64_t x = 42;
    random_pool(m, pool, N, &x);
    for (int legacy = 0; legacy < 2; legacy++) {
        struct rt_topdown alone[2], taints[2], passes[2], mixed[2], then_alone[2];
        random_topdown(m, pool, N, lanes, 1, false, legacy, ~0u, alone);
        random_topdown(m, pool, N, lanes, 1, true, legacy, ~0u, taints);
        random_topdown(m, pool, N, lanes, 5, false, legacy, ~0u, passes);
        random_topdown(m, pool, N, lanes, 5, true, legacy, ~0u, mixed);
        random_topdown(m, pool, N, lanes, 5, false, legacy, 10000, then_alone);
        for (int tail = 0; tail < 2; tail++) {
            td_expect_same(&taints[tail], &alone[tail], "scalar with taints");
            td_expect_same(&passes[tail], &alone[tail], "passes");
            td_expect_same(&mixed[tail], &alone[tail], "passes and taints");
            td_expect_same(&then_alone[tail], &alone[tail], "passes, then the baseline alone");
        }
        /* the stream gives every category something to agree on */
        cr_expect_gt(alone[0].retiring, 0);
        cr_expect_gt(alone[0].bad_speculation, 0);
        cr_expect_gt(alone[0].core, 0);
        cr_expect_gt(alone[0].memory[0] + alone[0].memory[1] + alone[0].memory[2], 0);
        if (legacy)
            cr_expect_gt(alone[0].frontend_latency + alone[0].frontend_bandwidth, 0);
    }
}

Test(topdown, starts_again_from_nothing_once_the_model_is_reset)
{
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 6, 16, 16, 1, 0 });
    struct rt_lane_cfg lanes[2] = { baseline, { { RT_KNOB_ROB, RT_KNOB_NONE }, { 0, 0 }, 2 } };
    enum { N = 16 };
    struct rt_insn pool[N];
    uint64_t x = 7;
    random_pool(m, pool, N, &x);
    char err[128];
    struct rt_model *fresh = rt_model_new(m, lanes, 2, true, N, err, sizeof err);
    struct rt_model *reused = rt_model_new(m, lanes, 2, true, N, err, sizeof err);
    cr_assert(fresh && reused, "%s", err);
    run_mixed_body(reused, m);
    cr_assert(rt_model_reset(reused, lanes, 2, N));
    struct rt_topdown a, b;
    rt_model_topdown(reused, true, &a);
    cr_expect_eq(td_total(&a), 0, "nothing counted after a reset");
    random_run(fresh, pool, N, 5000, true, ~0u);
    random_run(reused, pool, N, 5000, true, ~0u);
    rt_model_topdown(fresh, true, &a);
    rt_model_topdown(reused, true, &b);
    td_expect_same(&b, &a, "reset");
    rt_model_free(fresh);
    rt_model_free(reused);
}

Test(topdown, takes_the_slots_after_the_end_of_the_run_off_retiring)
{
    /* Eliminated moves: no latency, so the run ends where the last one's slot starts; its slot
     * is beyond the run's time and does not count with the tail. */
    const struct mdl_machine *m = machine("");
    struct rt_insn zero = insn(m, "ALU", 0, 1);
    zero.eliminated = true;
    struct rt_model *md = repeated(m, &zero, 100, 0);
    struct rt_topdown all, issued;
    rt_model_topdown(md, true, &all);
    rt_model_topdown(md, false, &issued);
    cr_expect_float_eq(issued.retiring, 100, 1e-9, "every slot issued a uop");
    cr_expect_float_eq(all.retiring, 99, 1e-9, "the last slot is after the run's end (%g)", rt_model_time(md, 0));
    td_expect_adds_up(md, m);
    rt_model_free(md);
}

Test(topdown, counts_nothing_on_a_machine_without_an_issue_width)
{
    const struct mdl_machine *m = machine("frontend { fetch_bytes 16 B; }");
    struct rt_insn chain = insn(m, "ALU", 1, 1);
    struct rt_model *md = repeated(m, &chain, 100, 10);
    cr_assert_gt(rt_model_time(md, 0), 0);
    struct rt_topdown t;
    rt_model_topdown(md, true, &t);
    cr_expect_eq(td_total(&t), 0);
    rt_model_free(md);
}

/* ---- memory dependencies of every width, both step paths -------------------------------- */

/* N static instructions: loads, stores and read-modify-writes of 1 to 32 bytes between short and
 * long operations and branches, on eight registers. */
static void random_memory_pool(const struct mdl_machine *m, struct rt_insn *pool, unsigned n, uint64_t *x)
{
    static const char *const forms[] = { "LD", "ST", "SHORT", "LONG", "LD", "ST", "SHORT" };
    static const uint8_t sizes[] = { 1, 2, 4, 8, 16, 32 };
    for (unsigned i = 0; i < n; i++) {
        unsigned f = (unsigned)(next_random(x) % 7);
        bool st = f == 1 || f == 5, rmw = f == 6;
        pool[i] = insn(m, forms[f], (uint8_t)(next_random(x) % 9), (uint8_t)(st ? 0 : next_random(x) % 9));
        if (f == 0 || f == 4 || st || rmw)
            pool[i].mem[pool[i].n_mem++] = (struct rt_mem){ .size = sizes[next_random(x) % 6], .load = !st,
                                                            .store = st || rmw };
        if (f == 3)
            pool[i].branch = RT_BR_COND;
        pool[i].len = (uint8_t)(1 + next_random(x) % 15);
    }
}

/* STEPS instructions of POOL on a new model of LANES, at byte addresses within 48 bytes (every
 * width overlaps others, in part or whole); the time of each lane and, with causality, the
 * critical and seen counts of each static instruction. */
static void random_memory_run(const struct mdl_machine *m, const struct rt_insn *pool, unsigned n,
                              const struct rt_lane_cfg *lanes, unsigned n_lanes, bool causality, double *times,
                              uint64_t *crit, uint64_t *seen)
{
    char err[128];
    struct rt_model *md = rt_model_new(m, lanes, n_lanes, causality, n, err, sizeof err);
    cr_assert(md, "%s", err);
    if (causality)
        rt_model_sample_causality(md, 2);
    uint64_t x = 0x2545f4914f6cdd1dull;
    for (unsigned i = 0; i < 20000; i++) {
        unsigned k = (unsigned)(next_random(&x) % n);
        uint64_t a = 0x1000 + next_random(&x) % 48;
        uint8_t level = (uint8_t)(next_random(&x) % 3);
        rt_model_step(md, &pool[k], k, &a, &level, pool[k].branch && next_random(&x) % 4 == 0);
    }
    for (unsigned l = 0; l < n_lanes; l++)
        times[l] = rt_model_time(md, l);
    for (uint32_t i = 0; crit && i < n; i++)
        crit[i] = rt_model_critical(md, i, &seen[i]);
    rt_model_free(md);
}

Test(model, times_loads_and_stores_of_every_width_alike_on_the_scalar_path_and_the_passes_over_lanes)
{
    /* Each lane alone takes the scalar path; together the lanes go through the passes, lane 0
     * on the scalar path with taints while causality follows it: every lane's time, and the
     * critical counts, must agree to the bit. */
    const struct mdl_machine *m = lane_machine((struct lane_params){ 16, 6, 16, 16, 1, 16 });
    enum { N = 32, LANES = 5 };
    struct rt_lane_cfg lanes[LANES] = { baseline, { { RT_KNOB_ROB, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                        { { RT_KNOB_LATENCY, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                        { { RT_KNOB_LOAD_BUFFER, RT_KNOB_NONE }, { 0, 0 }, 2 },
                                        { { RT_KNOB_CACHE_BW, RT_KNOB_NONE }, { 0, 0 }, 2 } };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct rt_insn pool[N];
        uint64_t x = seed * 0x9e3779b97f4a7c15ull;
        random_memory_pool(m, pool, N, &x);
        double together[LANES], plain[LANES], alone[LANES], scalar[1];
        uint64_t crit_t[N], seen_t[N], crit_s[N], seen_s[N];
        random_memory_run(m, pool, N, lanes, LANES, true, together, crit_t, seen_t);
        random_memory_run(m, pool, N, lanes, LANES, false, plain, NULL, NULL);
        random_memory_run(m, pool, N, lanes, 1, true, scalar, crit_s, seen_s);
        for (unsigned l = 0; l < LANES; l++) {
            random_memory_run(m, pool, N, &lanes[l], 1, false, &alone[l], NULL, NULL);
            cr_expect_eq(together[l], alone[l], "seed %llu, %s lane: %.17g, alone %.17g", (unsigned long long)seed,
                         rt_knob_name(lanes[l].knob[0]), together[l], alone[l]);
            cr_expect_eq(plain[l], alone[l], "seed %llu, %s lane without causality", (unsigned long long)seed,
                         rt_knob_name(lanes[l].knob[0]));
        }
        cr_expect_eq(scalar[0], alone[0], "seed %llu: the baseline with its taints", (unsigned long long)seed);
        for (unsigned i = 0; i < N; i++) {
            cr_expect_eq(crit_t[i], crit_s[i], "seed %llu, insn %u: critical", (unsigned long long)seed, i);
            cr_expect_eq(seen_t[i], seen_s[i], "seed %llu, insn %u: seen", (unsigned long long)seed, i);
        }
        cr_expect_gt(alone[0], alone[2], "the latency lane is faster: memory chains bind");
    }
}
