/* The period search of block mode's steady state: a new value against the PERIODS_MAX before it,
 * eight, four or two doubles at a time (the comparison was a sixth of block mode's time with every
 * lane when it went two at a time). */
#include "periods.h"
#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define PERIODS_CLONES 1
static __attribute__((target("avx512f"))) uint32_t match_avx512(const double *before, double x, double tol)
{
    __m512d vx = _mm512_set1_pd(x), vtol = _mm512_set1_pd(tol);
    uint32_t same = 0;
    for (unsigned p = 0; p < PERIODS_MAX; p += 8) {
        __m512d d = _mm512_abs_pd(_mm512_sub_pd(vx, _mm512_loadu_pd(&before[p])));
        same |= (uint32_t)_mm512_cmp_pd_mask(d, vtol, _CMP_LE_OQ) << p;
    }
    return same;
}

static __attribute__((target("avx2"))) uint32_t match_avx2(const double *before, double x, double tol)
{
    __m256d vx = _mm256_set1_pd(x), vtol = _mm256_set1_pd(tol), sign = _mm256_set1_pd(-0.0);
    uint32_t same = 0;
    for (unsigned p = 0; p < PERIODS_MAX; p += 4) {
        __m256d d = _mm256_andnot_pd(sign, _mm256_sub_pd(vx, _mm256_loadu_pd(&before[p])));
        same |= (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(d, vtol, _CMP_LE_OQ)) << p;
    }
    return same;
}
#else
#define PERIODS_CLONES 0
#endif

static uint32_t match_default(const double *before, double x, double tol)
{
    uint32_t same = 0;
#if defined(__SSE2__)
    __m128d vx = _mm_set1_pd(x), vtol = _mm_set1_pd(tol), sign = _mm_set1_pd(-0.0);
    for (unsigned p = 0; p < PERIODS_MAX; p += 2) {
        __m128d d = _mm_andnot_pd(sign, _mm_sub_pd(vx, _mm_loadu_pd(&before[p])));     /* |x - before| */
        same |= (uint32_t)_mm_movemask_pd(_mm_cmple_pd(d, vtol)) << p;
    }
#else
    for (unsigned p = 0; p < PERIODS_MAX; p++)
        same |= (uint32_t)(fabs(x - before[p]) <= tol) << p;
#endif
    return same;
}

static const struct {
    const char *name;
    uint32_t (*match)(const double *before, double x, double tol);
} copies[] = {
#if PERIODS_CLONES
    { "avx512f", match_avx512 },
    { "avx2", match_avx2 },
#endif
    { "default", match_default },
};

static bool supported(const char *name)
{
#if PERIODS_CLONES
    if (!strcmp(name, "avx512f"))
        return __builtin_cpu_supports("avx512f");
    if (!strcmp(name, "avx2"))
        return __builtin_cpu_supports("avx2");
#endif
    return !strcmp(name, "default");
}

uint32_t periods_match(const double *before, double x, double tol)
{
#if PERIODS_CLONES
    if (__builtin_cpu_supports("avx512f"))
        return match_avx512(before, x, tol);
    if (__builtin_cpu_supports("avx2"))
        return match_avx2(before, x, tol);
#endif
    return match_default(before, x, tol);
}

bool periods_match_isa(const char *isa, const double *before, double x, double tol, uint32_t *mask)
{
    for (unsigned k = 0; k < sizeof copies / sizeof *copies; k++)
        if (!strcmp(copies[k].name, isa) && supported(isa)) {
            *mask = copies[k].match(before, x, tol);
            return true;
        }
    return false;
}

const char *periods_isa(unsigned k) { return k < sizeof copies / sizeof *copies ? copies[k].name : NULL; }
