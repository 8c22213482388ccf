/* Static prediction: backward branches (loops) taken, forward ones not taken. */
#include <stdlib.h>
#include "predictor.h"

/* No state, but a real allocation keeps create()'s NULL meaning "out of memory". */
static void *static_create(const struct predictor_params *p)
{
    (void)p;
    return calloc(1, 1);
}

static void static_destroy(void *self)
{
    free(self);
}

static bool static_predict(void *self, uint64_t pc, uint64_t target)
{
    (void)self;
    return target && target <= pc;
}

static void static_update(void *self, uint64_t pc, bool taken)
{
    (void)self, (void)pc, (void)taken;
}

const struct predictor_ops predictor_static = {
    "static", static_create, static_destroy, static_predict, static_update
};
