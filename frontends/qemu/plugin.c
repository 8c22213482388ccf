/* QEMU TCG plugin for user-mode QEMU 7.2 (plugin API v1): streams the translation blocks a guest
 * executes, and their memory accesses, to mdlsim in the format of wire.h. One callback per block
 * and an inline counter per instruction: the counter says where a block was left early. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wire.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the wire format is little-endian and words are written as they are in memory"
#endif

/* Integer registers only: QEMU's code for a guest's AVX leaves the upper halves of the host's
 * ymm registers dirty, and GCC's legacy-SSE stores (it pairs two 64-bit stores) then cost a
 * state transition each, which made the plugin 4x slower on AVX loops. */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#pragma GCC target("general-regs-only")
#endif

/* ---- The part of QEMU 7.2's qemu-plugin.h used here ---------------------------------------------
 * Debian ships no qemu-plugin.h, so these declarations copy its ABI (API version 1) exactly. */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;

typedef struct qemu_info_t {
    const char *target_name;
    struct {
        int min;
        int cur;
    } version;
    bool system_emulation;
    union {
        struct {
            int smp_vcpus;
            int max_vcpus;
        } system;
    };
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

typedef void (*qemu_plugin_simple_cb_t)(qemu_plugin_id_t id);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_simple_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_vcpu_syscall_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_index, int64_t num,
                                              uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                              uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);
typedef void (*qemu_plugin_vcpu_syscall_ret_cb_t)(qemu_plugin_id_t id, unsigned int vcpu_idx, int64_t num,
                                                  int64_t ret);

void qemu_plugin_reset(qemu_plugin_id_t id, qemu_plugin_simple_cb_t cb);
void qemu_plugin_register_vcpu_init_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_simple_cb_t cb);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
                                          enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn, enum qemu_plugin_op op, void *ptr,
                                                uint64_t imm);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
void qemu_plugin_register_vcpu_syscall_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_cb_t cb);
void qemu_plugin_register_vcpu_syscall_ret_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_syscall_ret_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
uint64_t qemu_plugin_start_code(void);
const char *qemu_plugin_path_to_binary(void);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv);

/* ---- State ------------------------------------------------------------------------------------- */

#define BUF_WORDS (64 * 1024)    /* flushed with one write(2) when full */
#define BUF_SLACK 8              /* room for the final MEM and EXIT records without a flush */
_Static_assert(BUF_WORDS + BUF_SLACK == WIRE_CHUNK_WORDS, "a shared chunk holds one buffer");
#define MEM_MERGE_MAX 128        /* merged accesses stay below the 8-bit size field of WIRE_MEM */
#define EXIT_UNKNOWN 0xffffffffu /* the guest ended without an exit syscall (e.g. a signal) */
#define NO_ID UINT32_MAX

/* A static instruction. Its id is given when vCPU 0 first executes it, not at translation:
 * QEMU 7.2 also reports, truncated, an x86 instruction that it then cuts from the block
 * because it crosses a page; such a phantom never executes and so never reaches the stream. */
struct rec {
    uint64_t pc;
    _Atomic uint32_t id;   /* NO_ID until announced; written by vCPU 0's thread only */
    uint32_t len;
    uint8_t bytes[];
};

/* A translation block: the records of the instructions it runs, in order. Its id, too, is given
 * at its first execution on vCPU 0. A last instruction QEMU may have cut (see struct rec) is not
 * among them: it is instrumented on its own, so that it reaches the stream only if it runs. */
struct blk {
    struct blk *next;    /* another block at the same address */
    _Atomic uint32_t id; /* NO_ID until announced; written by vCPU 0's thread only */
    uint32_t n;
    struct rec *insn[];
};

/* Instructions run, counted inline by the code QEMU generates (every vCPU's: QEMU 7.2 has no
 * per-vCPU counters; mdlsim refuses a second thread anyway). A block's share is its count at the
 * next block less its count at its start. */
static volatile uint64_t executed;

/* vCPU 0's stream: only the thread running vCPU 0 touches it, except at exit (see stop_vcpu0). */
static struct {
    uint64_t *w;
    size_t n;
    uint64_t left;       /* executions still to record (limit=N) */
    uint32_t next_id, next_block;
    struct blk *open;    /* the block running, whose RUN record is out; NULL: none */
    uint64_t open_at;    /* EXECUTED when it started */
    bool recording;
    bool mem_pending;    /* a MEM record still growing with further pieces of the same access */
    bool mem_store;
    uint32_t mem_size, mem_index;
    uint64_t mem_addr;
} S;

/* Set when vCPU 0 must leave its fast path: a THREAD record to write, a stop asked, recording over. */
static atomic_int attention = 1;
static atomic_bool stop_asked, stop_acked, done, thread_pending, thread_seen, forked_child;
static atomic_bool vcpu0_in_syscall;   /* then vCPU 0 is in no callback and need not be waited for */
static atomic_uint exit_code = EXIT_UNKNOWN;

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -1;
static bool out_closed;              /* under out_lock */
/* The shared-memory transport (wire.h), when mdlsim offers one: S.w is chunk `cur` of it. */
static struct {
    uint64_t *area;                  /* NULL: the words themselves go to out_fd */
    size_t chunks;
    int free_fd;
    uint32_t cur;
} shm = { NULL, 0, -1, 0 };
static pthread_t vcpu0_thread;
static atomic_bool vcpu0_thread_known;

static qemu_plugin_id_t plugin_id;
static int64_t nr_exit = -1, nr_exit_group = -1;
/* kill, tkill, tgkill: how a program sends itself a signal (raise, abort). QEMU 7.2 runs no exit
 * callback when a signal kills the guest, so vCPU 0 flushes its buffer before one may. */
static int64_t nr_kill[3] = { -1, -1, -1 };
/* execve, execveat: a guest that replaces itself leaves QEMU, and the plugin, behind */
static int64_t nr_exec[2] = { -1, -1 };
/* The read end of a pipe whose write end only mdlsim holds: its end of file says mdlsim is gone
 * (plugin option life=N). */
static int life_fd = -1;

/* Instructions (struct rec) and blocks (chains of struct blk) by vaddr: open addressing, linear
 * probing, at most half full. Translation may run on any vCPU's thread, hence the lock. */
struct slot {
    uint64_t pc;
    void *p;         /* NULL: empty */
};
struct table {
    struct slot *slot;
    size_t cap, used;
};
static struct table T, TB;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void *check_alloc(void *p)
{
    if (!p) {
        fprintf(stderr, "mdlsim plugin: out of memory\n");
        abort();
    }
    return p;
}

/* ---- Output ------------------------------------------------------------------------------------ */

/* mdlsim closing its end is a normal way to stop (it saw enough), so SIGPIPE is blocked around the
 * write and a SIGPIPE this write caused is taken back: QEMU would deliver it to the guest. */
static void take_back_sigpipe(const sigset_t *pending_before)
{
    if (sigismember(pending_before, SIGPIPE))
        return;
    sigset_t pipe_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    struct timespec zero = { 0, 0 };
    while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
        ;
}

static bool write_bytes(const char *p, size_t len, const sigset_t *pending_before)
{
    while (len > 0) {
        ssize_t k = write(out_fd, p, len);
        if (k > 0) {
            p += k;
            len -= (size_t)k;
        } else if (k < 0 && errno == EINTR) {
            continue;
        } else if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pfd = { .fd = out_fd, .events = POLLOUT };
            poll(&pfd, 1, -1);
        } else {
            if (k < 0 && errno == EPIPE)
                take_back_sigpipe(pending_before);
            else
                fprintf(stderr, "mdlsim plugin: writing the event stream: %s\n", strerror(errno));
            return false;
        }
    }
    return true;
}

/* Writes n words; false when the reader is gone or the write failed. Call with out_lock held. */
static bool write_words(const uint64_t *w, size_t n)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    sigpending(&pending);
    bool ok = write_bytes((const char *)w, n * sizeof *w, &pending);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return ok;
}

/* The next chunk the reader has given back; false when it is gone. */
static bool take_chunk(void)
{
    uint32_t idx;
    size_t have = 0;
    while (have < sizeof idx) {
        ssize_t k = read(shm.free_fd, (char *)&idx + have, sizeof idx - have);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        have += (size_t)k;
    }
    if (idx >= shm.chunks) {
        fprintf(stderr, "mdlsim plugin: the reader gave back chunk %u of %zu\n", idx, shm.chunks);
        return false;
    }
    shm.cur = idx;
    S.w = shm.area + (size_t)idx * WIRE_CHUNK_WORDS;
    return true;
}

/* Sends the first N words of S.w; unless LAST, S.w is then free to refill. Call with out_lock
 * held; false when the reader is gone or the write failed. */
static bool send_words(size_t n, bool last)
{
    if (!shm.area)
        return write_words(S.w, n);
    uint64_t token = shm.cur | (uint64_t)n << 32;
    return write_words(&token, 1) && (last || take_chunk());
}

/* Recording ends for good (limit reached, or mdlsim stopped reading): QEMU drops the
 * instrumentation so the guest runs on at full speed; the exit callbacks are registered again
 * (after_reset) because the exit code still ends the stream. */
static void after_reset(qemu_plugin_id_t id);

static void stop_recording(void)
{
    static bool reset_asked;
    S.recording = false;
    atomic_store(&done, true);
    atomic_store(&attention, 1);
    if (!reset_asked) {
        reset_asked = true;
        qemu_plugin_reset(plugin_id, after_reset);
    }
}

/* vCPU 0 leaves its stream to an exit running on another thread. */
static void ack_stop(void)
{
    S.recording = false;
    atomic_store(&stop_acked, true);
}

static void close_output(void)
{
    out_closed = true;
    close(out_fd);
}

/* Writes vCPU 0's buffer; false when recording has to end (stream closed, broken, or an exit on
 * another thread is about to write the buffer itself). */
static bool flush_main(void)
{
    pthread_mutex_lock(&out_lock);
    bool stopping = atomic_load(&stop_asked);
    bool ok = !stopping && !out_closed && send_words(S.n, false);
    if (!stopping) {
        S.n = 0;
        if (!ok && !out_closed)
            close_output();
    }
    pthread_mutex_unlock(&out_lock);
    if (stopping)
        ack_stop();
    else if (!ok)
        stop_recording();
    return ok;
}

static inline void put1(uint64_t w)
{
    if (S.n >= BUF_WORDS && !flush_main())
        return;
    S.w[S.n++] = w;
}

static inline void put2(uint64_t w0, uint64_t w1)
{
    if (S.n + 2 > BUF_WORDS && !flush_main())
        return;
    S.w[S.n] = w0;
    S.w[S.n + 1] = w1;
    S.n += 2;
}

static uint64_t mem_word0(void)
{
    return WIRE_MEM | (uint64_t)S.mem_size << 8 | (uint64_t)S.mem_store << 16 | (uint64_t)S.mem_index << 32;
}

static void put_mem(void)
{
    S.mem_pending = false;
    put2(mem_word0(), S.mem_addr);
}

/* How many instructions of the open block ran, and are recorded (limit=N). */
static uint64_t open_count(void)
{
    uint64_t k = executed - S.open_at;
    k = k < S.open->n ? k : S.open->n;     /* another vCPU counted too */
    return k < S.left ? k : S.left;
}

static void reach_limit(void);

/* The open block ends: its last access goes out, and a CUT record when it was left early. */
static void close_block(void)
{
    if (S.mem_pending)
        put_mem();
    if (!S.open)
        return;
    uint64_t k = open_count();
    bool cut = k < S.open->n;
    S.open = NULL;
    S.left -= k;
    if (cut)
        put1(WIRE_CUT | k << 8);
    if (S.left == 0)
        reach_limit();
}

/* ---- The guest's mappings ---------------------------------------------------------------------- */

/* The guest's code ranges the stream has named (file mappings) or seen (anonymous code: JIT, the
 * vDSO). An instruction outside all of them has the plugin look up, in /proc/self/maps, the
 * mapping that holds it and name its file: the executable, its interpreter, each library. Only
 * the mapping an executed instruction is in: QEMU's own mappings share the address space (the
 * host's libc among them, the same file as an x86-64 guest's). User-mode QEMU keeps guest memory
 * at guest_base + guest address; guest_base follows from where the executable's code is in the
 * host's maps and in the guest (start_code). vCPU 0's thread only. */
#define MAP_MAX 1024
#define MAP_LOOKS 1024
static struct {
    uint64_t lo[MAP_MAX], hi[MAP_MAX];
    unsigned n, looks;
    bool base_known;
    uint64_t base;
} M;

static bool map_known(uint64_t pc)
{
    for (unsigned i = 0; i < M.n; i++)
        if (pc >= M.lo[i] && pc < M.hi[i])
            return true;
    return false;
}

static void map_remember(uint64_t lo, uint64_t hi)
{
    if (M.n < MAP_MAX) {
        M.lo[M.n] = lo;
        M.hi[M.n++] = hi;
    }
}

struct maps_line {
    uint64_t lo, hi, off, inode;
    const char *path;       /* "" for an anonymous mapping */
};

static bool parse_maps_line(char *line, struct maps_line *m)
{
    int n = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*x:%*x %" SCNu64 " %n", &m->lo, &m->hi, &m->off,
               &m->inode, &n) < 4 || n == 0)
        return false;
    char *p = line + n;
    p[strcspn(p, "\n")] = 0;
    m->path = p;
    return true;
}

/* guest_base: 0 when the executable's code is in the host's maps where the guest has it, else the
 * difference for the executable's first mapping. */
static void find_base(FILE *maps)
{
    struct stat st;
    const char *exe = qemu_plugin_path_to_binary();
    uint64_t code = qemu_plugin_start_code(), first = UINT64_MAX;
    bool identity = false;
    char *line = NULL;
    size_t cap = 0;
    M.base_known = true;
    if (!exe || stat(exe, &st) != 0)
        return;
    while (getline(&line, &cap, maps) > 0) {
        struct maps_line m;
        if (!parse_maps_line(line, &m) || m.inode != (uint64_t)st.st_ino)
            continue;
        identity |= code >= m.lo && code < m.hi;
        first = m.lo < first ? m.lo : first;
    }
    free(line);
    rewind(maps);
    M.base = identity || first == UINT64_MAX ? 0 : first - (code & ~(uint64_t)0xfff);
}

/* LEN bytes of STR as ceil(LEN / 8) words, the last padded with zeros. */
static void put_string(const char *str, size_t len)
{
    for (size_t i = 0; i < len && S.recording; i += 8) {
        uint64_t w = 0;
        memcpy(&w, str + i, len - i < 8 ? len - i : 8);
        put1(w);
    }
}

static void put_map(const struct maps_line *m)
{
    size_t len = strlen(m->path);
    if (!len || len >= WIRE_PATH_MAX)
        return;
    put1(WIRE_MAP | (uint64_t)len << 8);
    put1(m->lo - M.base);
    put1(m->hi - M.base);
    put1(m->off);
    put_string(m->path, len);
}

/* Before the first instruction executed at PC in a range not seen yet: a MAP record naming the
 * file mapped there, if any. */
static void name_mapping(uint64_t pc)
{
    if (map_known(pc) || M.looks >= MAP_LOOKS)
        return;
    M.looks++;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return;
    if (!M.base_known)
        find_base(maps);
    char *line = NULL;
    size_t cap = 0;
    uint64_t host = pc + M.base;
    while (getline(&line, &cap, maps) > 0) {
        struct maps_line m;
        if (!parse_maps_line(line, &m) || host < m.lo || host >= m.hi || m.lo < M.base)
            continue;
        map_remember(m.lo - M.base, m.hi - M.base);
        if (m.path[0] == '/')
            put_map(&m);
        break;
    }
    free(line);
    fclose(maps);
    if (!map_known(pc))     /* not in the maps at all: its page is not looked up again */
        map_remember(pc & ~(uint64_t)0xfff, (pc & ~(uint64_t)0xfff) + 0x1000);
}

/* The string at guest address ADDR into BUF (CAP bytes): its length, 0 when it cannot be read
 * whole. Read with process_vm_readv, a page at a time, which fails on an address the guest has
 * not mapped where a plain read would crash QEMU. */
static size_t guest_string(uint64_t addr, char *buf, size_t cap)
{
    if (!M.base_known) {
        FILE *maps = fopen("/proc/self/maps", "r");
        if (maps) {
            find_base(maps);
            fclose(maps);
        }
    }
    uint64_t host = addr + M.base;
    size_t have = 0;
    while (have + 1 < cap) {
        size_t want = 4096 - (size_t)((host + have) % 4096);
        want = want < cap - 1 - have ? want : cap - 1 - have;
        struct iovec local = { buf + have, want }, remote = { (void *)(uintptr_t)(host + have), want };
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (n <= 0)
            return 0;
        char *nul = memchr(buf + have, 0, (size_t)n);
        if (nul)
            return (size_t)(nul - buf);
        have += (size_t)n;
    }
    return 0;
}

/* The guest is about to replace itself with the program at guest address PATH: the record, and
 * everything before it, go out now, since a successful execve ends QEMU without an exit callback
 * (the buffer would be lost with it). */
static void announce_exec(uint64_t path)
{
    char name[WIRE_PATH_MAX];
    size_t len = guest_string(path, name, sizeof name);
    close_block();
    put1(WIRE_EXECVE | (uint64_t)len << 8);
    put_string(name, len);
    if (S.recording)
        flush_main();
}

/* The INSN record of r, at its first execution on vCPU 0. */
static void announce(struct rec *r)
{
    name_mapping(r->pc);
    uint32_t id = S.next_id++;
    atomic_store_explicit(&r->id, id, memory_order_relaxed);
    put2(WIRE_INSN | (uint64_t)r->len << 8 | (uint64_t)id << 32, r->pc);
    put_string((const char *)r->bytes, r->len);
}

/* The BLOCK record of b, and the INSN records of its instructions not announced yet, at its
 * first execution on vCPU 0. */
static void announce_block(struct blk *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        if (atomic_load_explicit(&b->insn[i]->id, memory_order_relaxed) == NO_ID)
            announce(b->insn[i]);
    uint32_t id = S.next_block++;
    atomic_store_explicit(&b->id, id, memory_order_relaxed);
    put1(WIRE_BLOCK | (uint64_t)b->n << 8 | (uint64_t)id << 32);
    for (uint32_t i = 0; i < b->n && S.recording; i += 2) {
        uint64_t lo = atomic_load_explicit(&b->insn[i]->id, memory_order_relaxed);
        uint64_t hi = i + 1 < b->n ? atomic_load_explicit(&b->insn[i + 1]->id, memory_order_relaxed) : 0;
        put1(lo | hi << 32);
    }
}

/* ---- vCPU 0's slow path ------------------------------------------------------------------------ */

/* Taken when attention is set; true when the current execution is to be recorded. */
static bool attend(void)
{
    if (!atomic_load(&vcpu0_thread_known)) {
        vcpu0_thread = pthread_self();
        atomic_store(&vcpu0_thread_known, true);
    }
    if (atomic_load(&stop_asked)) {
        ack_stop();
        return false;
    }
    if (!S.recording)
        return false;
    atomic_store(&attention, 0);   /* before the checks: a flag set meanwhile sets it again */
    if (atomic_exchange(&thread_pending, false)) {
        close_block();
        if (S.recording)
            put1(WIRE_THREAD);
    }
    if (atomic_load(&stop_asked)) {
        ack_stop();
        return false;
    }
    return S.recording;
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata);
static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8);

static void after_reset(qemu_plugin_id_t id)
{
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
}

static void reach_limit(void)
{
    if (S.recording)
        flush_main();
    if (S.recording)
        stop_recording();
}

/* ---- Execution callbacks (hot: one call per guest instruction) ---------------------------------- */

/* Ends what ran before; false when nothing more is to be recorded (limit reached). */
static inline bool end_previous(void)
{
    close_block();
    if (S.recording && S.left == 0)
        reach_limit();
    return S.recording;
}

/* The same for an instruction recorded on its own, which counts at once. */
static inline bool begin_exec(void)
{
    if (!end_previous())
        return false;
    S.left--;
    return true;
}

static inline void put_exec(uint32_t id)
{
    put1(WIRE_EXEC | (uint64_t)id << 32);
}

/* Whether this callback runs on vCPU 0 while the recording goes on (attention taken first). */
static inline bool recording_on(unsigned int vcpu)
{
    return vcpu == 0 && (!atomic_load_explicit(&attention, memory_order_relaxed) || attend());
}

/* A block starts: userdata is its struct blk. */
static void on_block(unsigned int vcpu, void *udata)
{
    if (!recording_on(vcpu))
        return;
    if (!end_previous())
        return;
    struct blk *b = udata;
    if (atomic_load_explicit(&b->id, memory_order_relaxed) == NO_ID)
        announce_block(b);
    put1(WIRE_RUN | (uint64_t)atomic_load_explicit(&b->id, memory_order_relaxed) << 32);
    if (S.recording) {
        S.open = b;
        S.open_at = executed;
    }
}

/* An instruction already announced when its block was translated: userdata is its id. */
static void on_exec(unsigned int vcpu, void *udata)
{
    if (!recording_on(vcpu))
        return;
    if (begin_exec())
        put_exec((uint32_t)(uintptr_t)udata);
}

/* An instruction not yet announced at translation: userdata is its struct rec. */
static void on_exec_new(unsigned int vcpu, void *udata)
{
    if (!recording_on(vcpu))
        return;
    if (!begin_exec())
        return;
    struct rec *r = udata;
    if (atomic_load_explicit(&r->id, memory_order_relaxed) == NO_ID)
        announce(r);
    put_exec(atomic_load_explicit(&r->id, memory_order_relaxed));
}

/* QEMU reports a vector access as several pieces (e.g. 32 bytes as four 8-byte loads): pieces of
 * one execution that continue the previous one in the same direction grow one record. Userdata
 * is the instruction's index in its block. */
static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
    if (vcpu != 0 || !S.recording)
        return;
    uint32_t size = 1u << qemu_plugin_mem_size_shift(info), index = (uint32_t)(uintptr_t)udata;
    bool store = qemu_plugin_mem_is_store(info);
    if (S.mem_pending && index == S.mem_index && store == S.mem_store && vaddr == S.mem_addr + S.mem_size &&
        S.mem_size + size <= MEM_MERGE_MAX) {
        S.mem_size += size;
        return;
    }
    if (S.mem_pending)
        put_mem();
    S.mem_pending = true;
    S.mem_index = index;
    S.mem_store = store;
    S.mem_size = size;
    S.mem_addr = vaddr;
}

/* ---- Translation ------------------------------------------------------------------------------- */

static struct slot *find_slot(const struct table *t, uint64_t pc)
{
    size_t i = (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (t->cap - 1);
    while (t->slot[i].p && t->slot[i].pc != pc)
        i = (i + 1) & (t->cap - 1);
    return &t->slot[i];
}

static void grow_table(struct table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1 << 16;
    struct table g = { check_alloc(calloc(cap, sizeof *g.slot)), cap, t->used };
    for (size_t i = 0; i < t->cap; i++)
        if (t->slot[i].p)
            *find_slot(&g, t->slot[i].pc) = t->slot[i];
    free(t->slot);
    *t = g;
}

static void *table_get(struct table *t, uint64_t pc)
{
    return find_slot(t, pc)->p;
}

static void table_put(struct table *t, uint64_t pc, void *p)
{
    struct slot *s = find_slot(t, pc);
    t->used += !s->p;
    *s = (struct slot){ pc, p };
    if (t->used * 2 > t->cap)
        grow_table(t);
}

/* Instruction bytes: in user mode haddr is the guest memory itself, whereas insn_data may lose
 * the bytes of an x86 instruction that crosses a page. */
static const uint8_t *insn_bytes(const struct qemu_plugin_insn *insn)
{
    const uint8_t *p = qemu_plugin_insn_haddr(insn);
    return p ? p : qemu_plugin_insn_data(insn);
}

/* The same instruction as r: same bytes, or a prefix of them (QEMU 7.2's truncated phantom of
 * a page-crossing instruction, see struct rec). */
static bool same_insn(const struct rec *r, const uint8_t *bytes, size_t len)
{
    return len <= r->len && memcmp(r->bytes, bytes, len) == 0;
}

/* The record of the instruction at this vaddr with these bytes; new bytes make a new record
 * (code was changed or a different mapping was loaded), which gets a new id. */
static struct rec *lookup(const struct qemu_plugin_insn *insn)
{
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    size_t len = qemu_plugin_insn_size(insn);
    const uint8_t *bytes = insn_bytes(insn);
    struct rec *r = table_get(&T, pc);
    if (r && same_insn(r, bytes, len))
        return r;
    r = check_alloc(malloc(sizeof *r + len));
    r->pc = pc;
    atomic_init(&r->id, NO_ID);
    r->len = (uint32_t)len;
    memcpy(r->bytes, bytes, len);
    /* a replaced record stays allocated: blocks translated before may still use it */
    table_put(&T, pc, r);
    return r;
}

/* The block of these N instructions at PC: the one translated before, or a new one (the chain of
 * a vaddr holds each version of its code, and blocks of other lengths). */
static struct blk *block_of(uint64_t pc, struct rec *const *insn, uint32_t n)
{
    struct blk *first = table_get(&TB, pc);
    for (struct blk *b = first; b; b = b->next)
        if (b->n == n && memcmp(b->insn, insn, n * sizeof *insn) == 0)
            return b;
    struct blk *b = check_alloc(malloc(sizeof *b + n * sizeof *insn));
    b->next = first;
    atomic_init(&b->id, NO_ID);
    b->n = n;
    memcpy(b->insn, insn, n * sizeof *insn);
    table_put(&TB, pc, b);
    return b;
}

/* An instruction instrumented on its own (see struct blk), INDEX in its translation block. */
static void instrument_alone(struct qemu_plugin_insn *insn, struct rec *r, size_t index)
{
    uint32_t id = atomic_load_explicit(&r->id, memory_order_relaxed);
    if (id != NO_ID)
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)id);
    else
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec_new, QEMU_PLUGIN_CB_NO_REGS, r);
    qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, (void *)index);
}

/* Whether QEMU may have cut this last instruction of a block of several: it starts close enough
 * to the end of a page to cross it (its reported length is only what QEMU read before it found
 * out; an instruction has at most 15 bytes; any page size is a multiple of 4 KiB). True of few
 * blocks that run whole, whose last instruction then costs a callback of its own. */
static bool may_be_cut(const struct qemu_plugin_insn *insn, size_t index)
{
    return index > 0 && qemu_plugin_insn_vaddr(insn) % 4096 > 4096 - 15;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    if (atomic_load(&done))
        return;   /* code translated after the recording ended runs uninstrumented */
    pthread_mutex_lock(&table_lock);
    size_t n = qemu_plugin_tb_n_insns(tb);
    struct rec *insn[WIRE_BLOCK_MAX + 1];
    size_t whole = n > WIRE_BLOCK_MAX ? 0 : n;      /* beyond TCG's bound: each on its own */
    if (whole && may_be_cut(qemu_plugin_tb_get_insn(tb, n - 1), n - 1))
        whole--;
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
        struct rec *r = lookup(in);
        if (i >= whole) {
            instrument_alone(in, r, i);
            continue;
        }
        insn[i] = r;
        qemu_plugin_register_vcpu_insn_exec_inline(in, QEMU_PLUGIN_INLINE_ADD_U64, (void *)&executed, 1);
        qemu_plugin_register_vcpu_mem_cb(in, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, (void *)i);
    }
    if (whole)
        qemu_plugin_register_vcpu_tb_exec_cb(tb, on_block, QEMU_PLUGIN_CB_NO_REGS,
                                             block_of(qemu_plugin_tb_vaddr(tb), insn, (uint32_t)whole));
    pthread_mutex_unlock(&table_lock);
}

/* ---- Threads, fork, exit ----------------------------------------------------------------------- */

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
    (void)id;
    if (vcpu == 0 || atomic_load(&forked_child) || atomic_exchange(&thread_seen, true))
        return;
    atomic_store(&thread_pending, true);   /* vCPU 0 writes it (attend): it owns the stream */
    atomic_store(&attention, 1);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1, uint64_t a2,
                       uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7, uint64_t a8)
{
    (void)id, (void)a3, (void)a4, (void)a5, (void)a6, (void)a7, (void)a8;
    if (vcpu == 0)
        atomic_store(&vcpu0_in_syscall, true);
    if (num == nr_exit || num == nr_exit_group)
        atomic_store(&exit_code, (unsigned)(a1 & 0xff));   /* the status a parent sees */
    /* the syscall ends its block (QEMU runs it outside translated code): closed here, the block
     * is whole in the stream before anything the call may end or write */
    if (vcpu == 0 && S.recording && !atomic_load(&forked_child) && !atomic_load(&stop_asked))
        close_block();
    if (vcpu == 0 && S.recording && S.n && (num == nr_kill[0] || num == nr_kill[1] || num == nr_kill[2]))
        flush_main();
    /* (a fork child's S.w is the parent's chunk of the shared area: it must not write there) */
    if (vcpu == 0 && S.recording && !atomic_load(&forked_child) && (num == nr_exec[0] || num == nr_exec[1]))
        announce_exec(num == nr_exec[0] ? a1 : a2);     /* execveat(dirfd, path, ...) */
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
    (void)id, (void)num, (void)ret;
    if (vcpu == 0)
        atomic_store(&vcpu0_in_syscall, false);
}

/* mdlsim is gone (killed, crashed) when the lifeline ends: nobody reads this run any more, and
 * nobody would end it, so QEMU ends itself rather than run on under init (a child of a guest
 * fork has no other tie to mdlsim). A guest that closed the descriptor (POLLNVAL) loses the
 * watch. */
static void *watch_life(void *arg)
{
    (void)arg;
    struct pollfd p = { .fd = life_fd, .events = POLLIN };
    while (poll(&p, 1, -1) < 0 && errno == EINTR)
        ;
    if (!(p.revents & POLLNVAL))
        kill(getpid(), SIGKILL);
    return NULL;
}

/* A thread waiting on the lifeline, with every signal blocked: the guest's signals are QEMU's to
 * take, on its own threads. */
static void watch_mdlsim(void)
{
    if (life_fd < 0)
        return;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    if (pthread_create(&t, NULL, watch_life, NULL) == 0)
        pthread_detach(t);
    else
        fprintf(stderr, "mdlsim plugin: cannot watch for the end of mdlsim\n");
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The child of a guest fork runs this plugin too; its events would interleave with the
 * parent's on the same pipe, so it records nothing and lets go of the pipe. */
static void in_fork_child(void)
{
    atomic_store(&forked_child, true);
    S.recording = false;    /* the forking thread is the only one the child has */
    atomic_store(&done, true);
    atomic_store(&stop_asked, true);
    atomic_store(&attention, 1);
    close(out_fd);   /* no lock: another thread of the parent may have held it at the fork */
    if (shm.free_fd >= 0)
        close(shm.free_fd);
    /* the parent's watcher did not come along (fork copies the calling thread only); a death
     * signal would not do here, since it fires when the parent exits, not when mdlsim does */
    watch_mdlsim();
}

/* An exit on another thread: QEMU 7.2 lets the other vCPUs run on during the exit callback, so
 * wait until vCPU 0 has stopped touching its stream, or is in a syscall (it sees the stop when it
 * comes back); the bound covers anything else that keeps it from its next instruction. */
static void stop_vcpu0(void)
{
    atomic_store(&stop_asked, true);
    atomic_store(&attention, 1);
    if (!atomic_load(&vcpu0_thread_known) || pthread_equal(pthread_self(), vcpu0_thread))
        return;
    for (int ms = 0; ms < 1000 && !atomic_load(&stop_acked) && !atomic_load(&vcpu0_in_syscall); ms++)
        nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

static void on_exit_cb(qemu_plugin_id_t id, void *udata)
{
    (void)id, (void)udata;
    if (atomic_load(&forked_child))
        return;
    stop_vcpu0();
    pthread_mutex_lock(&out_lock);
    if (!out_closed) {
        if (S.mem_pending) {   /* BUF_SLACK leaves room for these words: no flush from here */
            S.w[S.n++] = mem_word0();
            S.w[S.n++] = S.mem_addr;
        }
        uint64_t ran = S.recording && S.open ? open_count() : 0;
        if (S.recording && S.open && ran < S.open->n)     /* e.g. a fault killed the guest */
            S.w[S.n++] = WIRE_CUT | ran << 8;
        S.open = NULL;
        S.w[S.n++] = WIRE_EXIT | (uint64_t)atomic_load(&exit_code) << 32;
        send_words(S.n, true);
        S.n = 0;
        close_output();
    }
    pthread_mutex_unlock(&out_lock);
}

/* ---- Installation ------------------------------------------------------------------------------ */

static void set_exit_syscalls(const char *target)
{
    static const struct {
        const char *target;
        int64_t exit, exit_group, kill[3], exec[2];
    } tab[] = {
        { "x86_64", 60, 231, { 62, 200, 234 }, { 59, 322 } },
        { "i386", 1, 252, { 37, 238, 270 }, { 11, 358 } },
        { "arm", 1, 248, { 37, 238, 268 }, { 11, 387 } },
        { "aarch64", 93, 94, { 129, 130, 131 }, { 221, 281 } },
        { "riscv64", 93, 94, { 129, 130, 131 }, { 221, 281 } },
        { "riscv32", 93, 94, { 129, 130, 131 }, { 221, 281 } },
        { "loongarch64", 93, 94, { 129, 130, 131 }, { 221, 281 } },
    };
    for (size_t i = 0; target && i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(target, tab[i].target) == 0) {
            nr_exit = tab[i].exit;
            nr_exit_group = tab[i].exit_group;
            memcpy(nr_kill, tab[i].kill, sizeof nr_kill);
            memcpy(nr_exec, tab[i].exec, sizeof nr_exec);
        }
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    *out = v;
    return errno == 0 && *end == '\0';
}

struct options {
    int fd, shm_fd, free_fd, life_fd;
    uint64_t limit;
};

/* KEY=N with N at most MAX: 1; 0 when ARG is another option; -1 (reported) for a bad N. */
static int option_u64(const char *arg, const char *key, uint64_t max, uint64_t *out)
{
    size_t k = strlen(key);
    if (strncmp(arg, key, k) != 0 || arg[k] != '=')
        return 0;
    if (parse_u64(arg + k + 1, out) && *out <= max)
        return 1;
    fprintf(stderr, "mdlsim plugin: bad value in '%s' (a decimal number is expected)\n", arg);
    return -1;
}

/* fd=N (required), limit=N, shm=N with free=N for the shared-memory transport (wire.h), life=N
 * for the lifeline (life_fd); anything else is refused so that a typo does not go unnoticed. */
static bool parse_options(int argc, char **argv, struct options *o)
{
    *o = (struct options){ -1, -1, -1, -1, 0 };
    for (int i = 0; i < argc; i++) {
        uint64_t v = 0;
        int r;
        if ((r = option_u64(argv[i], "fd", INT32_MAX, &v)) > 0)
            o->fd = (int)v;
        else if (!r && (r = option_u64(argv[i], "shm", INT32_MAX, &v)) > 0)
            o->shm_fd = (int)v;
        else if (!r && (r = option_u64(argv[i], "free", INT32_MAX, &v)) > 0)
            o->free_fd = (int)v;
        else if (!r && (r = option_u64(argv[i], "life", INT32_MAX, &v)) > 0)
            o->life_fd = (int)v;
        else if (!r && (r = option_u64(argv[i], "limit", UINT64_MAX, &v)) > 0)
            o->limit = v;
        if (r < 0)
            return false;
        if (!r) {
            fprintf(stderr, "mdlsim plugin: unknown option '%s'\n", argv[i]);
            return false;
        }
    }
    if (o->fd < 0)
        fprintf(stderr, "mdlsim plugin: the option fd=N (where to write the events) is required\n");
    else if ((o->shm_fd < 0) != (o->free_fd < 0))
        fprintf(stderr, "mdlsim plugin: the options shm=N and free=N go together\n");
    return o->fd >= 0 && (o->shm_fd < 0) == (o->free_fd < 0);
}

/* The guest shares QEMU's descriptor table: moving a descriptor of ours to a high close-on-exec
 * one keeps the guest's first open() at 3 and keeps it out of programs the guest executes. */
static int move_high(int fd, const char *key)
{
    if (fcntl(fd, F_GETFD) < 0) {
        fprintf(stderr, "mdlsim plugin: %s=%d is not an open file descriptor\n", key, fd);
        return -1;
    }
    int high = fcntl(fd, F_DUPFD_CLOEXEC, 512);
    if (high < 0)
        high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (high < 0) {
        fprintf(stderr, "mdlsim plugin: cannot duplicate %s=%d: %s\n", key, fd, strerror(errno));
        return -1;
    }
    if (fd > 2)
        close(fd);
    return high;
}

static bool open_output(int fd)
{
    out_fd = move_high(fd, "fd");
    if (out_fd < 0)
        return false;
    /* When the words themselves go through it, a 1 MiB pipe (Linux's default maximum) halves
     * the time spent passing the stream on: the plugin and its reader switch far less often
     * than with the 64 KiB default. Not a pipe: the calls fail and change nothing. */
    int size = fcntl(out_fd, F_GETPIPE_SZ);
    if (size > 0 && size < 1 << 20)
        fcntl(out_fd, F_SETPIPE_SZ, 1 << 20);
    return true;
}

/* Maps the shared area (whole chunks, at least one) and keeps the free channel. */
static bool open_shared(int shm_fd, int free_fd)
{
    struct stat st;
    size_t chunk = WIRE_CHUNK_WORDS * sizeof(uint64_t);
    if (fstat(shm_fd, &st) != 0 || st.st_size <= 0 || (size_t)st.st_size % chunk != 0) {
        fprintf(stderr, "mdlsim plugin: shm=%d is not an area of whole %zu-byte chunks\n", shm_fd, chunk);
        return false;
    }
    void *area = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
    if (area == MAP_FAILED) {
        fprintf(stderr, "mdlsim plugin: cannot map shm=%d: %s\n", shm_fd, strerror(errno));
        return false;
    }
    close(shm_fd);
    shm.area = area;
    shm.chunks = (size_t)st.st_size / chunk;
    shm.free_fd = move_high(free_fd, "free");
    return shm.free_fd >= 0;
}

/* The magic goes out at once: QEMU 7.2 calls no plugin callback when the guest dies of a
 * signal, and a stream with the magic but no EXIT tells mdlsim that the guest died. */
static bool start_stream(void)
{
    if (!shm.area) {
        S.w = check_alloc(malloc((BUF_WORDS + BUF_SLACK) * sizeof *S.w));
        static const uint64_t magic = WIRE_MAGIC;
        return write_words(&magic, 1);
    }
    if (!take_chunk())
        return false;
    S.w[0] = WIRE_MAGIC;
    return send_words(1, false);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    struct options o;
    if (!parse_options(argc, argv, &o))
        return 1;
    if (info->system_emulation) {
        fprintf(stderr, "mdlsim plugin: only user-mode QEMU (qemu-x86_64, qemu-aarch64, ...) is supported\n");
        return 1;
    }
    if (!open_output(o.fd) || (o.shm_fd >= 0 && !open_shared(o.shm_fd, o.free_fd)) ||
        (o.life_fd >= 0 && (life_fd = move_high(o.life_fd, "life")) < 0))
        return 1;
    plugin_id = id;
    set_exit_syscalls(info->target_name);
    if (!start_stream()) {
        fprintf(stderr, "mdlsim plugin: cannot write the event stream to fd=%d\n", o.fd);
        return 1;
    }
    S.left = o.limit ? o.limit : UINT64_MAX;
    S.recording = true;
    grow_table(&T);
    grow_table(&TB);
    pthread_atfork(NULL, NULL, in_fork_child);
    watch_mdlsim();
    qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
    qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
    qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
    qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
    return 0;
}
