/* Trace files: a header (magic, ISA, their checksum), then frames of 64-bit words: KIND | N << 8,
 * a checksum of the frame's place, head and N words, then the N words. The program's frame comes
 * first, the stream's frames follow as recorded, the end frame last, and nothing after it. */
#include "trace.h"
#include "alloc.h"
#include "fdio.h"
#include "isa.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TRACE_MAGIC_BASE 0x30454341525444ull    /* "DTRACE0", the version in the last byte's digit */
#define TRACE_MAGIC (TRACE_MAGIC_BASE + ((uint64_t)TRACE_VERSION << 48))

enum frame_kind { FRAME_PROGRAM = 1, FRAME_EVENTS = 2, FRAME_END = 3 };
enum { HEADER_WORDS = 3, FRAME_HEAD_WORDS = 2 };

/* Fletcher-like: every word counts once in A and, by its position, in B; the place and the head
 * are the seed, so a frame moved, cut or given another length fails too. */
static uint64_t frame_sum(uint64_t place, uint64_t head, const uint64_t *w, size_t n)
{
    uint64_t a = place * 0x9e3779b97f4a7c15ull + head, b = a;
    for (size_t i = 0; i < n; i++) {
        a += w[i];
        b += a;
    }
    return a ^ (b << 32 | b >> 32);
}

/* ---- writing ------------------------------------------------------------------------------------ */

/* The header's checksum: the ISA a flipped bit would change is covered as a frame's words are. */
static uint64_t header_sum(uint64_t isa) { return frame_sum(0, TRACE_MAGIC, &isa, 1); }

/* Writes N words; false once a write has failed (W->error: its errno), so that a full disk stops
 * the recording at the write that found it. */
static bool write_words(struct trace_writer *w, const uint64_t *words, size_t n)
{
    if (w->error)
        return false;
    errno = 0;
    if (fwrite(words, sizeof *words, n, w->fp) == n)
        return true;
    w->error = errno ? errno : EIO;
    return false;
}

static bool write_frame(struct trace_writer *w, enum frame_kind kind, const uint64_t *words, size_t n)
{
    uint64_t head[2] = { kind | (uint64_t)n << 8, 0 };
    head[1] = frame_sum(w->words, head[0], words, n);
    w->words += FRAME_HEAD_WORDS + n;
    return write_words(w, head, 2) && (!n || write_words(w, words, n));
}

bool trace_write_start(struct trace_writer *w, FILE *fp, enum mdl_isa isa, const char *program, char *err,
                       size_t errlen)
{
    char hex[SHA256_HEX], abs[PATH_MAX];
    if (!sha256_file_hex(program, hex) || !realpath(program, abs)) {
        snprintf(err, errlen, "cannot read '%s': %s", program, strerror(errno));
        return false;
    }
    program = abs;                  /* a replay may run from anywhere */
    size_t len = strlen(program), pw = (len + 7) / 8;
    uint64_t *frame = alloc_zeroed(1 + pw + 8, sizeof *frame);
    uint64_t head[HEADER_WORDS] = { TRACE_MAGIC, (uint64_t)isa, header_sum((uint64_t)isa) };
    frame[0] = len;
    memcpy(frame + 1, program, len);
    memcpy(frame + 1 + pw, hex, 64);
    *w = (struct trace_writer){ .fp = fp, .words = HEADER_WORDS };
    bool ok = write_words(w, head, HEADER_WORDS) && write_frame(w, FRAME_PROGRAM, frame, 1 + pw + 8);
    free(frame);
    if (!ok)
        snprintf(err, errlen, "cannot write the trace: %s", strerror(w->error));
    return ok;
}

bool trace_write_events(struct trace_writer *w, const uint64_t *words, size_t n)
{
    for (size_t at = 0; at < n; at += TRACE_FRAME_MAX)
        if (!write_frame(w, FRAME_EVENTS, words + at, n - at < TRACE_FRAME_MAX ? n - at : TRACE_FRAME_MAX))
            return false;
    return true;
}

bool trace_write_end(struct trace_writer *w, int wait_status)
{
    uint64_t end[2] = { WIFSIGNALED(wait_status) ? TRACE_KILLED : TRACE_EXITED,
                        (uint64_t)(WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : WEXITSTATUS(wait_status)) };
    return write_frame(w, FRAME_END, end, 2);
}

/* ---- reading ------------------------------------------------------------------------------------ */

/* N words at the reader's place, in the map or read into DST; NULL when the file ends first. */
static const uint64_t *take(struct trace_reader *t, uint64_t *dst, size_t n)
{
    if (t->map) {
        if (t->map_words - t->pos < n)
            return NULL;
        t->pos += n;
        return t->map + t->pos - n;
    }
    if (fdio_read_full(t->fd, dst, n * sizeof *dst) < n * sizeof *dst)
        return NULL;
    t->pos += n;
    return dst;
}

/* The next frame, checked: its kind, N words at *WORDS. False with ERR. */
static bool next_frame(struct trace_reader *t, enum frame_kind *kind, const uint64_t **words, size_t *n, char *err,
                       size_t errlen)
{
    uint64_t head_buf[FRAME_HEAD_WORDS], at = t->pos * sizeof(uint64_t);
    const uint64_t *head = take(t, head_buf, FRAME_HEAD_WORDS);
    if (!head) {
        snprintf(err, errlen, "'%s' ends at byte %llu, before its end frame: the trace is truncated", t->path,
                 (unsigned long long)at);
        return false;
    }
    *kind = (enum frame_kind)(head[0] & 0xff);
    *n = (size_t)(head[0] >> 8);
    uint64_t sum = head[1], h0 = head[0];
    if (*kind < FRAME_PROGRAM || *kind > FRAME_END || *n > TRACE_FRAME_MAX) {
        snprintf(err, errlen, "'%s' is corrupt at byte %llu: no frame of kind %u and %zu words", t->path,
                 (unsigned long long)at, (unsigned)*kind, *n);
        return false;
    }
    *words = *n ? take(t, t->buf, *n) : t->buf;
    if (!*words) {
        snprintf(err, errlen, "'%s' ends inside the frame at byte %llu: the trace is truncated", t->path,
                 (unsigned long long)at);
        return false;
    }
    if (frame_sum(at / sizeof(uint64_t), h0, *words, *n) != sum) {
        snprintf(err, errlen, "'%s' is corrupt: the frame at bytes %llu-%llu does not match its checksum", t->path,
                 (unsigned long long)at, (unsigned long long)(t->pos * sizeof(uint64_t) - 1));
        return false;
    }
    return true;
}

/* The program's frame: a length, the path, its 64 hex digits of SHA-256. */
static bool read_program(struct trace_reader *t, char *err, size_t errlen)
{
    enum frame_kind kind;
    const uint64_t *w;
    size_t n;
    if (!next_frame(t, &kind, &w, &n, err, errlen))
        return false;
    size_t len = n ? (size_t)w[0] : 0, pw = (len + 7) / 8;
    if (kind != FRAME_PROGRAM || len == 0 || len >= sizeof t->program || n != 1 + pw + 8) {
        snprintf(err, errlen, "'%s' is corrupt at byte %d: no program frame", t->path, HEADER_WORDS * 8);
        return false;
    }
    memcpy(t->program, w + 1, len);
    t->program[len] = '\0';
    memcpy(t->program_sha, w + 1 + pw, 64);
    t->program_sha[64] = '\0';
    return true;
}

static bool read_header(struct trace_reader *t, char *err, size_t errlen)
{
    uint64_t h[HEADER_WORDS];
    const uint64_t *head = take(t, h, 2);
    const uint64_t digit = 0xffull << 48;
    if (!head || (head[0] & ~digit) != (TRACE_MAGIC_BASE & ~digit)) {
        snprintf(err, errlen, "'%s' is not an mdlsim trace (no header)", t->path);
        return false;
    }
    unsigned version = (unsigned)((head[0] & digit) >> 48) - '0';
    if (head[0] != TRACE_MAGIC) {
        snprintf(err, errlen, "'%s' is a trace of format %u; this mdlsim reads format %d (record it again with this "
                 "mdlsim)", t->path, version, TRACE_VERSION);
        return false;
    }
    uint64_t isa = head[1];
    const uint64_t *sum = take(t, h + 2, 1);
    if (!sum) {
        snprintf(err, errlen, "'%s' ends inside its header (%d bytes): the trace is truncated", t->path,
                 HEADER_WORDS * 8);
        return false;
    }
    if (*sum != header_sum(isa)) {
        snprintf(err, errlen, "'%s' is corrupt: its header (bytes 0-%d) does not match its checksum", t->path,
                 HEADER_WORDS * 8 - 1);
        return false;
    }
    if (isa >= MDL_ISA_COUNT) {
        char known[128];
        isa_list(known, sizeof known);
        snprintf(err, errlen, "'%s' is corrupt at byte 8: ISA %llu is neither %s", t->path, (unsigned long long)isa,
                 known);
        return false;
    }
    t->isa = (enum mdl_isa)isa;
    return true;
}

/* A regular file is read in place; a pipe, or a file that cannot be mapped, is read. */
static void map_file(struct trace_reader *t)
{
    struct stat st;
    if (fstat(t->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(uint64_t))
        return;
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, t->fd, 0);
    if (p == MAP_FAILED)
        return;
    madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
    t->map = p;
    t->size = (uint64_t)st.st_size;
    t->map_words = (size_t)st.st_size / sizeof(uint64_t);
}

bool trace_open(struct trace_reader *t, const char *path, char *err, size_t errlen)
{
    *t = (struct trace_reader){ .path = path, .fd = open(path, O_RDONLY | O_CLOEXEC) };
    struct stat st;
    if (t->fd < 0 || fstat(t->fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "cannot read '%s': %s", path, t->fd < 0 ? strerror(errno) : strerror(EISDIR));
        trace_close(t);
        return false;
    }
    map_file(t);
    t->buf = t->map ? NULL : alloc_resize(NULL, TRACE_FRAME_MAX, sizeof *t->buf);
    if (!read_header(t, err, errlen) || !read_program(t, err, errlen)) {
        trace_close(t);
        return false;
    }
    return true;
}

/* The end frame's words: how the program ended, with an exit code (0 to 255) or a signal
 * (1 to 64) it can have ended with. AT: the frame's byte, for the message. */
static bool read_end(struct trace_reader *t, const uint64_t *w, size_t n, uint64_t at, char *err, size_t errlen)
{
    if (n != 2 || (w[0] != TRACE_EXITED && w[0] != TRACE_KILLED)) {
        snprintf(err, errlen, "'%s' is corrupt at byte %llu: an end frame of %zu words saying neither exited nor "
                 "killed", t->path, (unsigned long long)at, n);
        return false;
    }
    bool killed = w[0] == TRACE_KILLED;
    if (killed ? w[1] == 0 || w[1] > 64 : w[1] > 255) {    /* Linux's signals: 1 to SIGRTMAX */
        snprintf(err, errlen, "'%s' is corrupt at byte %llu: the program %s %llu (%s)", t->path,
                 (unsigned long long)at, killed ? "was killed by signal" : "exited with code",
                 (unsigned long long)w[1], killed ? "a signal is 1 to 64" : "an exit code is 0 to 255");
        return false;
    }
    t->end = (enum trace_end)w[0];
    t->end_value = (int)w[1];
    return true;
}

/* Whether the file ends with the end frame, read up to T's place. */
static bool ends_here(struct trace_reader *t, char *err, size_t errlen)
{
    uint64_t at = t->pos * sizeof(uint64_t);
    char more;
    bool after = t->map ? t->size > at : read(t->fd, &more, 1) > 0;
    if (!after)
        return true;
    snprintf(err, errlen, "'%s' is corrupt: bytes after its end frame, from byte %llu", t->path,
             (unsigned long long)at);
    return false;
}

bool trace_next(struct trace_reader *t, const uint64_t **words, size_t *n, char *err, size_t errlen)
{
    enum frame_kind kind;
    *err = '\0';
    if (t->end != TRACE_RUNNING || !next_frame(t, &kind, words, n, err, errlen))
        return false;
    if (kind == FRAME_EVENTS)
        return true;
    uint64_t at = (t->pos - *n - FRAME_HEAD_WORDS) * 8;
    if (kind == FRAME_END) {
        if (read_end(t, *words, *n, at, err, errlen))
            ends_here(t, err, errlen);
        return false;
    }
    snprintf(err, errlen, "'%s' is corrupt at byte %llu: a frame of kind %u where events are", t->path,
             (unsigned long long)at, (unsigned)kind);
    return false;
}

void trace_close(struct trace_reader *t)
{
    if (t->map)
        munmap((void *)t->map, (size_t)t->size);
    if (t->fd >= 0)
        close(t->fd);
    free(t->buf);
    t->map = NULL;
    t->buf = NULL;
    t->fd = -1;
}
