/* Real kernels on the four machines, each beside what the hardware does (machines/VALIDATION.md,
 * "Real kernels"): the shapes BHive's blocks never have, modelled as the cores run them. Tests
 * run in tests/; the guest programs are built by make test into build/programs. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "capture.h"
#include "scratch.h"

static const char *const machines[][2] = {
    { "skylake", "x86" }, { "icelake", "x86" }, { "alderlake", "x86" }, { "cortex-a72", "a64" },
};

/* The JSON report of `mdlsim run` on MACHINE (its guest build of PROGRAM, run with ARGS), region
 * ROI; FLAGS are more options. */
static json_t *kernel_report(unsigned machine, const char *roi, const char *program, const char *args,
                             const char *flags)
{
    char report[256], cmd[1024];
    snprintf(report, sizeof report, "%s/mdlsim-kernels-%s-%s-%s.json", scratch_dir(), machines[machine][0], roi, args);
    for (char *c = report + strlen(scratch_dir()); *c; c++)
        if (*c == ' ')
            *c = '_';
    snprintf(cmd, sizeof cmd, "../build/mdlsim run --machine %s --roi %s %s --quiet --json %s -- "
             "../build/programs/%s.%s %s 2>&1 >/dev/null", machines[machine][0], roi, flags, report, program,
             machines[machine][1], args);
    struct run r = capture(cmd);
    cr_assert_eq(r.status, 0, "%s:\n%s", cmd, r.out);
    free(r.out);
    json_error_t e;
    json_t *o = json_load_file(report, 0, &e);
    cr_assert(o, "no report from %s: %s", cmd, e.text);
    remove(report);
    return o;
}

static double cycles_of(const json_t *o) { return json_number_value(json_object_get(o, "cycles")); }

static const char *top_resource(const json_t *o)
{
    return json_string_value(json_object_get(json_array_get(json_object_get(o, "sensitivity"), 0), "resource"));
}

/* The speed-up the sensitivity list gives RESOURCE (0: not in the list). */
static double speedup_of(const json_t *o, const char *resource)
{
    json_t *e;
    size_t i;
    json_array_foreach(json_object_get(o, "sensitivity"), i, e)
        if (!strcmp(json_string_value(json_object_get(e, "resource")), resource))
            return json_number_value(json_object_get(e, "speedup"));
    return 0;
}

/* ---- misses: a second load to a line on its way, and the misses in flight ---- */

Test(real_kernels, a_list_walk_reading_its_payload_waits_for_the_line_as_the_bare_walk_does, .timeout = 240)
{
    for (unsigned m = 0; m < sizeof machines / sizeof *machines; m++) {
        json_t *bare = kernel_report(m, "kernel_bare", "misses", "bare 20000", "");
        json_t *walk = kernel_report(m, "kernel_walk", "misses", "walk 20000", "");
        double per_step = cycles_of(walk) / 20000, bare_step = cycles_of(bare) / 20000;
        cr_expect_geq(per_step, 0.8 * bare_step, "%s: %.1f cycles a step with the payload, %.1f bare",
                      machines[m][0], per_step, bare_step);
        cr_expect_gt(bare_step, 50, "%s: the bare walk misses beyond the L2 (%.1f cycles a step)", machines[m][0],
                     bare_step);
        cr_expect_str_eq(top_resource(walk), "memory_latency", "%s", machines[m][0]);
        cr_expect_str_eq(top_resource(bare), "memory_latency", "%s", machines[m][0]);
        json_decref(bare);
        json_decref(walk);
    }
}

/* The first level keeps `outstanding` misses in flight: independent misses to memory (each to a
 * line of its own, nothing ordering them) run at about one per memory latency / outstanding. */
Test(real_kernels, independent_misses_are_bounded_by_the_misses_in_flight, .timeout = 240)
{
    /* the bound from each description: memory latency (L3 for the part of Alder Lake's array its
     * 30 MiB L3 holds) over the first level's outstanding misses */
    static const double bound[] = { 250.0 / 10, 300.0 / 12, 450.0 / 16, 200.0 / 6 };
    for (unsigned m = 0; m < sizeof machines / sizeof *machines; m++) {
        json_t *o = kernel_report(m, "kernel_gather", "misses", "gather 20000", "");
        double per = cycles_of(o) / 20000;
        cr_expect(per >= 0.5 * bound[m] && per <= 1.3 * bound[m], "%s: %.1f cycles an element, the bound %.1f",
                  machines[m][0], per, bound[m]);
        cr_expect_geq(speedup_of(o, "misses_in_flight"), 1.10, "%s: more misses in flight speed it up",
                      machines[m][0]);
        json_decref(o);
    }
}

/* ---- causality through memory ---- */

/* A load that takes its value from a store takes the store's causes with it: a counter kept in
 * memory (load, add, store) is a chain, critical as the same chain in a register is. */
Test(real_kernels, a_chain_carried_through_memory_is_critical_on_every_core)
{
    static const char *const chain[] = { "488b03" "4883c001" "488903",      /* mov (%rbx),%rax; add $1,%rax; mov %rax,(%rbx) */
                                         "488b03" "4883c001" "488903",
                                         "488b03" "4883c001" "488903",
                                         "600040f9" "00040091" "600000f9" };  /* ldr x0,[x3]; add x0,x0,#1; str x0,[x3] */
    for (unsigned m = 0; m < sizeof machines / sizeof *machines; m++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "../build/mdlsim block --machine %s --hex %s --json 2>&1", machines[m][0], chain[m]);
        struct run r = capture(cmd);
        cr_assert_eq(r.status, 0, "%s", r.out);
        json_error_t e;
        json_t *o = json_loads(r.out, 0, &e);
        cr_assert(o, "%s: %s", e.text, r.out);
        json_t *table = json_object_get(o, "table");
        cr_assert_eq(json_array_size(table), 3);
        for (size_t i = 0; i < 3; i++)
            cr_expect_geq(json_number_value(json_object_get(json_array_get(table, i), "critical")), 0.99,
                          "%s: instruction %zu of the chain is critical", machines[m][0], i);
        json_decref(o);
        free(r.out);
    }
}

/* ---- calls and returns ---- */

/* Calls and returns pipeline (the return stack predicts the target): a loop calling a tiny
 * function takes a few cycles an iteration, and nothing holds a unit per return. */
Test(real_kernels, a_loop_calling_a_tiny_function_takes_a_few_cycles_and_is_not_serial_bound, .timeout = 120)
{
    for (unsigned m = 0; m < sizeof machines / sizeof *machines; m++) {
        json_t *o = kernel_report(m, "kernel_calls", "calls", "20000", "");
        double per = cycles_of(o) / 20000;
        cr_expect_leq(per, 4.0, "%s: %.2f cycles an iteration", machines[m][0], per);
        cr_expect_str_neq(top_resource(o), "serial", "%s", machines[m][0]);
        json_decref(o);
    }
}

/* A stall is charged to the instruction the core waits on and every instruction to its own
 * retire slots, so no function retires faster than the core's width (a fused compare and branch
 * retire as one uop: 5 instructions in 4 slots at most). */
Test(real_kernels, no_function_retires_faster_than_the_core_is_wide, .timeout = 120)
{
    static const double width[] = { 4, 5, 6, 3 };
    for (unsigned m = 0; m < sizeof machines / sizeof *machines; m++) {
        json_t *o = kernel_report(m, "main", "calls", "20000", "--no-sensitivity");
        json_t *fns = json_object_get(o, "functions"), *f;
        size_t i;
        cr_assert_gt(json_array_size(fns), 0);
        json_array_foreach(fns, i, f) {
            double n = json_number_value(json_object_get(f, "instructions"));
            double c = json_number_value(json_object_get(f, "cycles"));
            if (n >= 1000)
                cr_expect_leq(n / c, 1.25 * width[m], "%s: %s at IPC %.2f", machines[m][0],
                              json_string_value(json_object_get(f, "function")), n / c);
        }
        json_decref(o);
    }
}
