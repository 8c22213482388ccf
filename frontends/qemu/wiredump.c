/* wiredump: prints the plugin's event stream (wire.h) read from stdin as text, one line per record,
 * and checks it on the way (an EXEC of an unknown id, a MEM without its EXEC, bytes after EXIT).
 * A block's run is printed as what it ran: an EXEC line per instruction, each with its MEM lines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the wire format is little-endian and words are read as they are in memory"
#endif

static struct {
    uint64_t buf[8192];
    size_t n, pos;
    uint64_t offset;   /* index of the next word in the stream, for messages */
} in;

/* An access made in the open block, by its instruction's index there. */
struct access {
    uint64_t w0, addr;
};

static struct {
    bool *known;       /* ids defined by an INSN record */
    size_t cap;
    uint32_t *block_ids;            /* the blocks' instructions, block b's from block_at[b] */
    size_t *block_at, n_blocks, n_ids;
    int64_t open;                   /* the block running (-1: none), and its accesses so far */
    struct access acc[1 << 16];
    size_t n_acc;
    bool have_exec;
    uint32_t last_exec;
    bool exited;
    uint64_t insn, exec, mem, thread, map, run, cut;
    uint32_t exit_code;
} st;

static bool counts_only;

static void fail(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "wiredump: word %" PRIu64 ": %s\n", in.offset ? in.offset - 1 : 0, msg);
    exit(1);
}

/* Next word; false at the end of the stream. A trailing partial word is an error. */
static bool next_word(uint64_t *w)
{
    if (in.pos == in.n) {
        size_t bytes = fread(in.buf, 1, sizeof in.buf, stdin);
        if (bytes % 8 && !feof(stdin))
            bytes += fread((char *)in.buf + bytes, 1, 8 - bytes % 8, stdin);
        if (bytes % 8)
            fail("the stream ends inside a word");
        in.n = bytes / 8;
        in.pos = 0;
        if (in.n == 0)
            return false;
    }
    *w = in.buf[in.pos++];
    in.offset++;
    return true;
}

static uint64_t need_word(const char *what)
{
    uint64_t w;
    if (!next_word(&w))
        fail(what);
    return w;
}

static void define_id(uint32_t id)
{
    if (id >= st.cap) {
        size_t cap = st.cap ? st.cap : 1024;
        while (cap <= id)
            cap *= 2;
        st.known = realloc(st.known, cap);
        if (!st.known)
            fail("out of memory");
        memset(st.known + st.cap, 0, cap - st.cap);
        st.cap = cap;
    }
    st.known[id] = true;
}

static void on_insn(uint64_t w0)
{
    uint32_t len = (uint32_t)(w0 >> 8) & 0xffffff, id = (uint32_t)(w0 >> 32);
    uint64_t pc = need_word("the stream ends inside an INSN record");
    define_id(id);
    st.insn++;
    if (!counts_only)
        printf("insn %" PRIu32 " 0x%" PRIx64 " %" PRIu32 " ", id, pc, len);
    for (uint32_t i = 0; i < len; i += 8) {
        uint64_t b = need_word("the stream ends inside the bytes of an INSN record");
        for (uint32_t k = i; k < len && k < i + 8 && !counts_only; k++)
            printf("%02x", (unsigned)(b >> 8 * (k - i) & 0xff));
    }
    if (!counts_only)
        putchar('\n');
}

static void *grown(void *p, size_t n, size_t size)
{
    p = realloc(p, n * size);
    if (!p)
        fail("out of memory");
    return p;
}

static void on_block(uint64_t w0)
{
    uint32_t n = (uint32_t)(w0 >> 8) & 0xffffff, id = (uint32_t)(w0 >> 32);
    if (n == 0 || n > WIRE_BLOCK_MAX || id != st.n_blocks)
        fail("BLOCK record with no or too many instructions, or not the next block id");
    st.block_ids = grown(st.block_ids, st.n_ids + n + 1, sizeof *st.block_ids);
    st.block_at = grown(st.block_at, st.n_blocks + 2, sizeof *st.block_at);
    for (uint32_t i = 0; i < n; i += 2) {
        uint64_t w = need_word("the stream ends inside a BLOCK record");
        st.block_ids[st.n_ids + i] = (uint32_t)w;
        st.block_ids[st.n_ids + i + 1] = (uint32_t)(w >> 32);
    }
    if (!counts_only)
        printf("block %" PRIu32 " of %" PRIu32 ":", id, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t insn = st.block_ids[st.n_ids + i];
        if (insn >= st.cap || !st.known[insn])
            fail("BLOCK of an instruction without an INSN record");
        if (!counts_only)
            printf(" %" PRIu32, insn);
    }
    if (!counts_only)
        putchar('\n');
    st.block_at[st.n_blocks++] = st.n_ids;
    st.block_at[st.n_blocks] = st.n_ids += n;
}

static void on_exec(uint64_t w0);
static void on_mem_of(uint64_t w0, uint64_t addr);

/* The open block ran its first K instructions. */
static void close_block(uint32_t k)
{
    const uint32_t *ids = st.block_ids + st.block_at[st.open];
    size_t a = 0;
    st.open = -1;
    for (uint32_t i = 0; i < k; i++) {
        on_exec((uint64_t)ids[i] << 32);
        for (; a < st.n_acc && (uint32_t)(st.acc[a].w0 >> 32) <= i; a++) {
            if ((uint32_t)(st.acc[a].w0 >> 32) < i)
                fail("MEM records of a block out of its instructions' order");
            on_mem_of((st.acc[a].w0 & 0xffffffffu) | (uint64_t)ids[i] << 32, st.acc[a].addr);
        }
    }
    st.n_acc = 0;
}

static uint32_t open_length(void)
{
    return (uint32_t)(st.block_at[st.open + 1] - st.block_at[st.open]);
}

static void on_run(uint64_t w0)
{
    uint32_t id = (uint32_t)(w0 >> 32);
    if (id >= st.n_blocks)
        fail("RUN of a block without a BLOCK record");
    st.open = id;
    st.run++;
}

static void on_cut(uint64_t w0)
{
    uint64_t k = w0 >> 8;
    if (st.open < 0 || k >= open_length())
        fail("CUT outside a block, or not before its end");
    st.cut++;
    if (!counts_only)
        printf("cut %" PRIu64 "\n", k);
    close_block((uint32_t)k);
}

static void on_exec(uint64_t w0)
{
    uint32_t id = (uint32_t)(w0 >> 32);
    if (id >= st.cap || !st.known[id])
        fail("EXEC of an instruction without an INSN record");
    st.have_exec = true;
    st.last_exec = id;
    st.exec++;
    if (!counts_only)
        printf("exec %" PRIu32 "\n", id);
}

static void on_mem(uint64_t w0)
{
    uint64_t addr = need_word("the stream ends inside a MEM record");
    if (st.open < 0) {
        on_mem_of((w0 & 0xffffffffu) | (uint64_t)st.last_exec << 32, addr);
        return;
    }
    if (st.n_acc == sizeof st.acc / sizeof st.acc[0])
        fail("too many MEM records in one block");
    st.acc[st.n_acc++] = (struct access){ w0, addr };
}

/* A MEM record (W0: of instruction id W0 >> 32) of the instruction executed last. */
static void on_mem_of(uint64_t w0, uint64_t addr)
{
    uint32_t size = (uint32_t)(w0 >> 8) & 0xff, id = (uint32_t)(w0 >> 32);
    unsigned store = (unsigned)(w0 >> 16) & 0xff;
    if (!st.have_exec || id != st.last_exec)
        fail("MEM record of an instruction other than the one executed last");
    if (size == 0 || store > 1)
        fail("MEM record with size 0 or a store flag other than 0/1");
    st.mem++;
    if (!counts_only)
        printf("mem %" PRIu32 " %s %" PRIu32 " 0x%" PRIx64 "\n", id, store ? "store" : "load", size, addr);
}

/* The LEN bytes of the path that ends a KIND record, NUL-terminated, into PATH (WIRE_PATH_MAX + 8). */
static void read_path(uint32_t len, char *path, const char *kind)
{
    char msg[96];
    snprintf(msg, sizeof msg, "the stream ends inside the path of %s record", kind);
    for (uint32_t i = 0; i < len; i += 8) {
        uint64_t b = need_word(msg);
        memcpy(path + i, &b, 8);
    }
    path[len] = 0;
}

static void on_map(uint64_t w0)
{
    uint32_t len = (uint32_t)(w0 >> 8) & 0xffffff;
    uint64_t lo = need_word("the stream ends inside a MAP record"), hi = need_word("the stream ends inside a MAP record"),
             off = need_word("the stream ends inside a MAP record");
    if (len == 0 || len >= WIRE_PATH_MAX || hi <= lo)
        fail("MAP record with an empty or too long path, or an empty range");
    char path[WIRE_PATH_MAX + 8];
    read_path(len, path, "a MAP");
    st.map++;
    if (!counts_only)
        printf("map 0x%" PRIx64 "-0x%" PRIx64 " 0x%" PRIx64 " %s\n", lo, hi, off, path);
}

static void on_execve(uint64_t w0)
{
    uint32_t len = (uint32_t)(w0 >> 8) & 0xffffff;
    if (len >= WIRE_PATH_MAX)
        fail("EXECVE record with a too long path");
    char path[WIRE_PATH_MAX + 8];
    read_path(len, path, "an EXECVE");
    if (!counts_only)
        printf("execve %s\n", path);
}

static void on_record(uint64_t w0)
{
    if (st.exited)
        fail("a record after EXIT");
    unsigned kind = w0 & 0xff;
    if (st.open >= 0 && kind != WIRE_MEM && kind != WIRE_CUT)
        close_block(open_length());
    switch (kind) {
    case WIRE_INSN: on_insn(w0); break;
    case WIRE_BLOCK: on_block(w0); break;
    case WIRE_RUN: on_run(w0); break;
    case WIRE_CUT: on_cut(w0); break;
    case WIRE_EXEC: on_exec(w0); break;
    case WIRE_MEM: on_mem(w0); break;
    case WIRE_EXIT:
        st.exited = true;
        st.exit_code = (uint32_t)(w0 >> 32);
        if (!counts_only)
            printf("exit %" PRId32 "\n", (int32_t)st.exit_code);
        break;
    case WIRE_MAP: on_map(w0); break;
    case WIRE_EXECVE: on_execve(w0); break;
    case WIRE_THREAD:
        st.thread++;
        if (!counts_only)
            printf("thread\n");
        break;
    default: fail("unknown record kind");
    }
}

static void print_counts(void)
{
    printf("insn %" PRIu64 "\nexec %" PRIu64 "\nmem %" PRIu64 "\nthread %" PRIu64 "\nmap %" PRIu64 "\nblock %zu\nrun %" PRIu64
           "\ncut %" PRIu64 "\n", st.insn, st.exec, st.mem, st.thread, st.map, st.n_blocks, st.run, st.cut);
    if (st.exited)
        printf("exit %" PRId32 "\n", (int32_t)st.exit_code);
    else
        printf("noexit\n");
}

int main(int argc, char **argv)
{
    counts_only = argc == 2 && strcmp(argv[1], "-c") == 0;
    if (argc > 2 || (argc == 2 && !counts_only)) {
        fprintf(stderr, "usage: wiredump [-c] < stream\n"
                        "  prints one line per record; -c prints only the number of records of each kind\n");
        return 2;
    }
    uint64_t w;
    st.open = -1;
    if (!next_word(&w) || (w != WIRE_MAGIC && w != WIRE_MAGIC_V1))
        fail("the stream does not start with WIRE_MAGIC");
    if (!counts_only)
        printf("magic 0x%016" PRIx64 "\n", w);
    while (next_word(&w))
        on_record(w);
    if (st.open >= 0)
        close_block(open_length());
    if (counts_only)
        print_counts();
    return 0;
}
