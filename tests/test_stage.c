/* The caches' stage against the reader: random streams of blocks, cuts, string iterations and
 * stray accesses give the same report through a trace file or a pipe cut at odd places, with the
 * stage on its own thread or on the reader's. Built with STAGE_CHECK (make sanitize), every level
 * is also checked to be its access's. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "analysis.h"
#include "result.h"
#include "run.h"
#include "cache.h"
#include "sample.h"
#include "stage.h"
#include "trace.h"
#include "view_json.h"
#include "wire.h"

extern const struct mdl_machine mdl_machine_skylake;

struct stream {
    uint64_t *w;
    size_t n, cap;
    uint64_t rng;
    unsigned cut_every;             /* one block run in this many is cut */
    bool short_cuts;                /* after its first instruction or none */
};

static void put(struct stream *s, uint64_t w)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 4096;
        s->w = realloc(s->w, s->cap * sizeof *s->w);
        cr_assert(s->w);
    }
    s->w[s->n++] = w;
}

static unsigned pick(struct stream *s, unsigned n)
{
    s->rng = s->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((s->rng >> 33) % n);
}

/* The instructions: loads, adds, nops and a rep movsb, each at its own address. */
static const struct { uint8_t bytes[4]; unsigned len; } CODE[] = {
    { { 0x48, 0x8b, 0x03 }, 3 },        /* mov rax, [rbx] */
    { { 0x48, 0x01, 0xd8 }, 3 },        /* add rax, rbx */
    { { 0x90 }, 1 },                    /* nop */
    { { 0x48, 0x89, 0x01 }, 3 },        /* mov [rcx], rax */
    { { 0xf3, 0xa4 }, 2 },              /* rep movsb */
};
enum { N_CODE = sizeof CODE / sizeof CODE[0], REP = N_CODE - 1, N_INSN = 24, N_BLOCKS = 8 };

static void insn(struct stream *s, uint32_t id, uint64_t pc, unsigned kind)
{
    uint64_t bytes = 0;
    memcpy(&bytes, CODE[kind].bytes, CODE[kind].len);
    put(s, WIRE_INSN | (uint64_t)CODE[kind].len << 8 | (uint64_t)id << 32);
    put(s, pc);
    put(s, bytes);
}

static void mem(struct stream *s, uint32_t index, uint64_t addr, bool store)
{
    put(s, WIRE_MEM | 8ull << 8 | (uint64_t)store << 16 | (uint64_t)index << 32);
    put(s, addr);
}

/* An address of a few kilobytes' worth of lines, or far: hits, misses, sets shared. */
static uint64_t addr_of(struct stream *s)
{
    uint64_t base = pick(s, 4) ? 0x10000 : 0x800000 + (uint64_t)pick(s, 64) * 4096;
    return base + (uint64_t)pick(s, 512) * 8;
}

/* One run of block B of N instructions: accesses mostly in order, some out of it, some beyond
 * eight for one instruction; cut early now and then, with accesses after the cut. */
static void run_block(struct stream *s, uint32_t b, unsigned n)
{
    put(s, WIRE_RUN | (uint64_t)b << 32);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = pick(s, 4) ? pick(s, 3) : pick(s, 12);
        for (unsigned j = 0; j < k; j++)
            mem(s, pick(s, 10) ? i : pick(s, n + 1), addr_of(s), pick(s, 3) == 0);
    }
    if (n > 1 && pick(s, s->cut_every) == 0) {
        put(s, WIRE_CUT | (uint64_t)pick(s, s->short_cuts ? 2 : n) << 8);
        for (unsigned j = pick(s, 3); j; j--)
            mem(s, 0, addr_of(s), false);
    }
}

/* A string copy of N bytes: block B, the rep movsb alone, iterated with a load and a store a byte
 * on. */
static void copy(struct stream *s, uint32_t b, unsigned n)
{
    uint64_t from = 0x20000 + (uint64_t)pick(s, 4096), to = from + (pick(s, 2) ? 4096 : 100);
    for (unsigned i = n; i; i--, from++, to++) {
        put(s, WIRE_RUN | (uint64_t)b << 32);
        mem(s, 0, from, false);
        mem(s, 0, to, true);
    }
}

static void random_stream(struct stream *s, uint64_t seed, unsigned events)
{
    *s = (struct stream){ .rng = seed, .cut_every = 10 };
    put(s, WIRE_MAGIC);
    uint64_t pc = 0x401000;
    unsigned kind[N_INSN];
    for (uint32_t id = 0; id < N_INSN; id++) {
        kind[id] = id == N_INSN - 1 ? REP : pick(s, REP);
        insn(s, id, pc, kind[id]);
        pc += CODE[kind[id]].len;
    }
    /* blocks of consecutive instructions; the last, the rep movsb alone */
    unsigned len[N_BLOCKS];
    for (uint32_t b = 0; b < N_BLOCKS; b++) {
        uint32_t first = b == N_BLOCKS - 1 ? N_INSN - 1 : pick(s, N_INSN - 6);
        len[b] = b == N_BLOCKS - 1 ? 1 : b == N_BLOCKS - 2 ? 5 : 1 + pick(s, 5);
        put(s, WIRE_BLOCK | (uint64_t)len[b] << 8 | (uint64_t)b << 32);
        for (unsigned i = 0; i < len[b]; i += 2)
            put(s, (first + i) | (i + 1 < len[b] ? (uint64_t)(first + i + 1) << 32 : 0));
    }
    for (unsigned e = 0; e < events; e++) {
        unsigned what = pick(s, 20);
        if (what == 0)
            copy(s, N_BLOCKS - 1, pick(s, 300));
        else if (what == 1) {       /* one execution on its own, with its accesses after it */
            put(s, WIRE_EXEC | (uint64_t)pick(s, N_INSN - 1) << 32);
            for (unsigned j = pick(s, 10); j; j--)
                mem(s, 0, addr_of(s), false);
        } else {
            uint32_t b = pick(s, N_BLOCKS - 1);
            run_block(s, b, len[b]);
        }
    }
}

/* ---- the stream read three ways ----------------------------------------------------------------- */

enum way { TRACE_THREADED, TRACE_ONE_THREAD, PIPE_THREADED };

struct writer {
    int fd;
    const struct stream *s;
};

/* The stream's bytes into the pipe in pieces of odd sizes: records cut anywhere. */
static void *write_pieces(void *arg)
{
    struct writer *wr = arg;
    const uint8_t *b = (const uint8_t *)wr->s->w;
    size_t left = wr->s->n * 8, at = 0;
    uint64_t rng = 7;
    while (left) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        size_t k = 1 + (rng >> 33) % 3001;
        k = k < left ? k : left;
        ssize_t got = write(wr->fd, b + at, k);
        if (got <= 0)
            break;
        at += (size_t)got;
        left -= (size_t)got;
    }
    close(wr->fd);
    return NULL;
}

static int trace_file(const struct stream *s, char *path, size_t len)
{
    int fd = memfd_create("trace", MFD_CLOEXEC);
    cr_assert(fd >= 0);
    FILE *fp = fdopen(dup(fd), "wb");
    struct trace_writer w;
    char err[256];
    cr_assert(fp && trace_write_start(&w, fp, MDL_ISA_X86_64, "/dev/null", err, sizeof err));
    /* frames of a few thousand words, as a recording writes them: the stage reads some ahead */
    for (size_t at = 0; at < s->n; at += 8192)
        cr_assert(trace_write_events(&w, s->w + at, s->n - at < 8192 ? s->n - at : 8192));
    cr_assert(trace_write_end(&w, 0) && fclose(fp) == 0);
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

/* The JSON report of S read WAY, sampled by SP or exact (NULL), with the sensitivity LANES or the
 * baseline alone (an error: "error: " and its message). */
static char *report(const struct stream *s, enum way way, const struct sample_plan *sp, bool lanes)
{
    static struct analysis_plan plan;
    double weight = 1.15;
    char err[1024], path[64];
    cr_assert(analysis_plan_init(&plan, &mdl_machine_skylake, &weight, 1, lanes, err, sizeof err));
    struct run_opts ro = { .m = &mdl_machine_skylake, .lanes = plan.lanes, .n_lanes = plan.n_lanes,
                           .causality = true, .causality_sample = 1, .one_thread = way == TRACE_ONE_THREAD,
                           .sample = sp };
    struct run *r = run_new(&ro, err, sizeof err);
    cr_assert(r, "%s", err);
    struct trace_reader t;
    int fd = -1, p[2];
    pthread_t writer;
    struct writer wr;
    struct run_source src = { .fd = -1, .free_fd = -1 };
    if (way == PIPE_THREADED) {
        cr_assert(pipe(p) == 0);
        wr = (struct writer){ p[1], s };
        cr_assert(pthread_create(&writer, NULL, write_pieces, &wr) == 0);
        src.fd = p[0];
    } else {
        fd = trace_file(s, path, sizeof path);
        cr_assert(trace_open(&t, path, err, sizeof err), "%s", err);
        src.trace = &t;
    }
    char *out = NULL;
    size_t len = 0;
    if (run_consume(r, &src, err, sizeof err)) {
        static struct result res;
        struct rt_topdown td;
        result_reset(&res, &mdl_machine_skylake);
        res.command = "replay";
        analysis_start(&res, &plan);
        run_fill(r, &res, &td);
        analysis_finish(&res, &td);
        FILE *mem_fp = open_memstream(&out, &len);
        view_json(mem_fp, &res);
        fclose(mem_fp);
        result_free(&res);
    } else {
        cr_assert(asprintf(&out, "error: %s", err) > 0);
    }
    run_free(r);
    if (way == PIPE_THREADED) {
        pthread_join(writer, NULL);
        close(p[0]);
    } else {
        trace_close(&t);
        close(fd);
    }
    return out;
}

/* Three ways of reading S (report's SP and LANES), their reports equal; the first returned (NULL:
 * freed) when KEEP. */
static char *expect_one_report(const struct stream *s, uint64_t seed, const struct sample_plan *sp, bool lanes,
                               bool keep)
{
    char *a = report(s, TRACE_THREADED, sp, lanes), *b = report(s, TRACE_ONE_THREAD, sp, lanes),
         *c = report(s, PIPE_THREADED, sp, lanes);
    cr_assert(strncmp(a, "error", 5) != 0, "seed %llu: %s", (unsigned long long)seed, a);
    cr_assert(strstr(a, "\"caches\""), "seed %llu: no caches in the report", (unsigned long long)seed);
    cr_assert_str_eq(a, b, "seed %llu: one thread differs", (unsigned long long)seed);
    cr_assert_str_eq(a, c, "seed %llu: the pipe differs", (unsigned long long)seed);
    free(b);
    free(c);
    if (keep)
        return a;
    free(a);
    return NULL;
}

Test(stage, a_random_stream_gives_one_report_through_a_trace_or_a_pipe_on_one_thread_or_two, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        struct stream s;
        random_stream(&s, seed, 3000);
        expect_one_report(&s, seed, NULL, false, false);
        free(s.w);
    }
}

/* On its own thread, the stage reads far enough ahead that the reader holds nothing of a skip it
 * knows goes on to its period's end (skips_through in run.c); where the stream ends inside one,
 * the skip must still be held for the tail, as on one thread, where nothing is known ahead. The
 * streams end with a long copy, thousands of block runs the reader counts as one instruction. */
Test(stage, a_sampled_stream_ending_anywhere_in_a_period_gives_the_tail_one_thread_gives, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        struct stream s;
        random_stream(&s, seed, 20000 + 1500 * (unsigned)seed);
        copy(&s, N_BLOCKS - 1, 3000 + 1000 * (unsigned)seed);
        struct sample_plan sp = sample_plan_default(true, 10000);
        expect_one_report(&s, seed, &sp, false, false);
        free(s.w);
    }
}

/* With every lane, two model threads share them; once the lanes of a sampled run take turns (one
 * period in four steps them), the first model takes the second's, which join it from its baseline
 * and measure their next units there (run.c's mark): the report is the one a single model gives on
 * one thread. The turns begin in the third period, inside the first epoch, which the lanes'
 * estimates then cut in two strata. Epochs of four short periods, which the streams run past, and whose
 * few units spread widely: some keep the period, the reader waiting for the model's units of the
 * epoch before (run.c's choose_period), the same on one thread or two. */
Test(stage, a_stream_sampled_past_its_first_epoch_gives_one_report_with_its_lanes_handed_over, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct stream s;
        random_stream(&s, seed, 80000);
        struct sample_plan sp = sample_plan_default(true, 10000);
        sp.epoch = 4;
        sp.lanes_from = 2;
        char *a = expect_one_report(&s, seed, &sp, true, true);
        const char *key = "\"intervals\":", *at = strstr(a, key);
        cr_assert(at && strtoul(at + strlen(key), NULL, 10) > sp.epoch + 2,
                  "seed %llu: too few intervals to hand over: %s", (unsigned long long)seed, at ? at : a);
        const char *kept = strstr(a, "\"period_kept\":");
        cr_expect(kept && strtoul(kept + strlen("\"period_kept\":"), NULL, 10) > 0,
                  "seed %llu: the epochs of four units spread too widely to double every time", (unsigned long long)seed);
        free(a);
        free(s.w);
    }
}

/* ---- the count of what is ahead ------------------------------------------------------------------ */

enum { FRAME = 8192 };

/* The executions the reader counts in S from the record that starts at each word on (AFTER[N]
 * words + 1): each instruction a block ran, or one run alone, but a string instruction run again
 * right after itself, which goes on as one. Worked out from the stream's own instructions. */
static uint64_t *counts_after(const struct stream *s)
{
    uint64_t *after = calloc(s->n + 1, sizeof *after), pc[N_INSN] = { 0 };
    bool rep_insn[N_INSN] = { false };
    uint32_t *ids = calloc(N_BLOCKS * 8, sizeof *ids), len[N_BLOCKS] = { 0 };
    cr_assert(after && ids);
    int64_t prev = -1, open_at = -1;
    uint32_t open_b = 0, open_k = 0;
    uint64_t *at = calloc(s->n + 1, sizeof *at);    /* executions counted at each record's first word */
    cr_assert(at);
#define EXECUTE(pos, id) \
    do { \
        at[pos] += !(rep_insn[id] && prev >= 0 && pc[prev] == pc[id]); \
        prev = (int64_t)(id); \
    } while (0)
    for (size_t i = 1; i < s->n;) {
        uint64_t w0 = s->w[i];
        unsigned kind = w0 & 0xff;
        if (open_at >= 0 && kind != WIRE_MEM && kind != WIRE_CUT) {
            for (uint32_t k = 0; k < open_k; k++)
                EXECUTE((size_t)open_at, ids[open_b * 8 + k]);
            open_at = -1;
        }
        uint32_t id = (uint32_t)(w0 >> 32), n = (uint32_t)(w0 >> 8 & 0xffffff);
        if (kind == WIRE_INSN) {
            pc[id] = s->w[i + 1];
            rep_insn[id] = (s->w[i + 2] & 0xffff) == 0xa4f3;
            i += 2 + (n + 7) / 8;
        } else if (kind == WIRE_BLOCK) {
            len[id] = n;
            for (uint32_t k = 0; k < n; k++)
                ids[id * 8 + k] = (uint32_t)(s->w[i + 1 + k / 2] >> (k % 2 * 32));
            i += 1 + (n + 1) / 2;
        } else if (kind == WIRE_RUN) {
            open_at = (int64_t)i, open_b = id, open_k = len[id];
            i++;
        } else if (kind == WIRE_CUT) {
            open_k = (uint32_t)(w0 >> 8);
            i++;
        } else if (kind == WIRE_EXEC) {
            EXECUTE(i, id);
            i++;
        } else {
            i += kind == WIRE_MEM ? 2 : 1;
        }
    }
    if (open_at >= 0)
        for (uint32_t k = 0; k < open_k; k++)
            EXECUTE((size_t)open_at, ids[open_b * 8 + k]);
#undef EXECUTE
    for (size_t i = s->n; i-- > 0;)
        after[i] = after[i + 1] + at[i];
    free(at);
    free(ids);
    return after;
}

/* What the stage says is ahead is a lower bound: after each buffer it reads, the stream has at
 * least as many executions left as it counted in the buffers after it (skips_through in run.c
 * holds nothing of a skip on this count, so it must never say more than the reader will count). */
Test(stage, counts_no_more_executions_after_a_buffer_than_the_reader_will, .timeout = 60)
{
    struct cache_hier *caches = cache_new(&mdl_machine_skylake);
    cr_assert(caches);
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct stream s;
        random_stream(&s, seed, 4000);
        s.cut_every = 2, s.short_cuts = true;   /* from here on, half the runs cut short */
        for (unsigned e = 0; e < 4000; e++)
            run_block(&s, N_BLOCKS - 2, 5);
        copy(&s, N_BLOCKS - 1, 5000);       /* a long copy at the end: thousands of runs, one execution */
        uint64_t *after = counts_after(&s);
        char path[64], err[256];
        int fd = trace_file(&s, path, sizeof path);
        struct trace_reader t;
        cr_assert(trace_open(&t, path, err, sizeof err), "%s", err);
        struct run_source src = { .fd = -1, .free_fd = -1, .trace = &t };
        struct stage *st = stage_new(&src, caches, NULL, false);
        uint64_t counted[64], buffers = 0;
        const uint64_t *w;
        size_t n;
        uint64_t pos;
        while (stage_next(st, &w, &n, &pos)) {
            cr_assert(buffers < 64);
            counted[buffers++] = stage_counted(st);
        }
        uint64_t total = stage_counted(st);
        cr_assert(buffers * FRAME >= s.n, "seed %llu: %llu buffers", (unsigned long long)seed,
                  (unsigned long long)buffers);
        for (uint64_t c = 0; c < buffers; c++) {
            size_t end = (size_t)((c + 1) * FRAME < s.n ? (c + 1) * FRAME : s.n);
            cr_assert(total - counted[c] <= after[end], "seed %llu: %llu counted after buffer %llu, %llu there",
                      (unsigned long long)seed, (unsigned long long)(total - counted[c]), (unsigned long long)c,
                      (unsigned long long)after[end]);
        }
        /* and no bound that says nothing: most of the stream is counted */
        cr_assert(total * 3 >= after[1] && total <= after[1], "seed %llu: %llu counted of %llu",
                  (unsigned long long)seed, (unsigned long long)total, (unsigned long long)after[1]);
        stage_free(st);
        trace_close(&t);
        close(fd);
        free(after);
        free(s.w);
    }
    cache_free(caches);
}
