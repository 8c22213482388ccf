/* The machines at the ends of a description's estimates: every key a range may vary reaches the
 * machine, and each end is a copy that leaves the described machine as it was. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>
#include "robust.h"

extern const struct mdl_machine mdl_machine_skylake;

struct key {
    const char *name, *fixed;
    unsigned param;
};

static const struct key keys[] = {
#define X(blk, key, dim, en, lo, hi, fixed, doc) { #blk "." #key, fixed, MDL_PARAM_##blk##_##key },
#include "param.def"
#undef X
};

Test(robust, every_key_a_range_may_vary_sets_a_field_of_the_machine_and_no_other_key_does)
{
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        struct mdl_cache caches[2] = { 0 }, before_caches[2];
        struct mdl_machine m = { .caches = caches, .n_caches = 2 }, before = m;
        memcpy(before_caches, caches, sizeof caches);
        bool set = robust_set_param(&m, caches, keys[i].param, 1, 7);
        bool changed = memcmp(&m, &before, sizeof m) != 0 || memcmp(caches, before_caches, sizeof caches) != 0;
        if (keys[i].fixed[0] == '\0') {
            cr_expect(set && changed, "%s may carry a range: it must set a field (frontends/analysis/vary.def)",
                      keys[i].name);
            cr_expect(memcmp(&caches[0], &before_caches[0], sizeof caches[0]) == 0, "%s: only cache 1",
                      keys[i].name);
        } else {
            cr_expect(!set && !changed, "%s takes no range, so it is never varied", keys[i].name);
        }
    }
}

Test(robust, a_cache_key_of_a_cache_the_machine_lacks_is_refused)
{
    struct mdl_cache caches[1] = { 0 };
    struct mdl_machine m = { .caches = caches, .n_caches = 1 };
    cr_expect_not(robust_set_param(&m, caches, MDL_PARAM_CACHE_latency, 1, 7));
    cr_expect_eq(caches[0].latency, 0);
}

/* Each end of each of Skylake's estimates differs from the machine in that value alone, in a copy. */
Test(robust, each_end_is_the_machine_with_one_value_changed_in_a_copy)
{
    const struct mdl_machine *m = &mdl_machine_skylake;
    struct robust_set set;
    robust_set_init(&set, m);
    cr_assert_eq(set.n_values, m->n_uncertain);
    for (unsigned i = 0; i < set.n_values; i++) {
        const struct mdl_uncertain *u = &m->uncertain[i];
        for (int k = 0; k < 2; k++) {
            const struct robust_machine *e = &set.ends[2 * i + k];
            float want = k ? u->hi : u->lo;
            if (want == u->value) {
                cr_expect_eq(e->m.magic, 0, "%s: the end that is the value is not made", u->name);
                continue;
            }
            float got = u->vary == MDL_VARY_LATENCY  ? e->m.templates[u->index].latency_max
                        : u->vary == MDL_VARY_BYPASS ? e->m.bypasses[u->index].latency
                                                     : NAN;
            if (u->vary == MDL_VARY_PARAM && u->param == MDL_PARAM_CACHE_latency)
                got = e->m.caches[u->index].latency;
            else if (u->vary == MDL_VARY_PARAM && u->param == MDL_PARAM_MEMORY_store_forward_fail)
                got = e->m.store_forward_fail;
            if (!isnan(got))
                cr_expect_eq(got, want, "%s at %g", u->name, want);
            cr_expect(e->m.templates != m->templates || u->vary != MDL_VARY_LATENCY, "%s: a copy", u->name);
            cr_expect(e->m.bypasses != m->bypasses || u->vary != MDL_VARY_BYPASS, "%s: a copy", u->name);
            cr_expect(e->m.caches != m->caches || u->vary != MDL_VARY_PARAM, "%s: a copy", u->name);
        }
    }
    for (unsigned i = 0; i < m->n_uncertain; i++) {    /* the described machine is as it was */
        const struct mdl_uncertain *u = &m->uncertain[i];
        if (u->vary == MDL_VARY_LATENCY)
            cr_expect_eq(m->templates[u->index].latency_max, u->value, "%s", u->name);
        if (u->vary == MDL_VARY_BYPASS)
            cr_expect_eq(m->bypasses[u->index].latency, u->value, "%s", u->name);
    }
    robust_set_free(&set);
}
