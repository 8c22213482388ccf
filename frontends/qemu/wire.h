/* The event stream from the QEMU plugin to mdlsim: little-endian 64-bit words written to a
 * file descriptor. Translation-time records describe a static instruction, and a translation
 * block, once; execution records carry only integers (block or instruction id, addresses). */
#ifndef WIRE_H
#define WIRE_H
#include <stdint.h>

#define WIRE_MAGIC 0x4d444c5349570002ull    /* "MDLSIW", version 2: blocks */
/* Version 1 has no block records; traces recorded with it are read as they are. */
#define WIRE_MAGIC_V1 0x4d444c5349570001ull

/* A record starts with a word whose low 8 bits are its kind. */
enum wire_kind {
    /* word0 = kind | len << 8 | id << 32; word1 = pc; then ceil(len / 8) words of bytes */
    WIRE_INSN = 1,
    /* word0 = kind | id << 32: one execution of static instruction id */
    WIRE_EXEC = 2,
    /* word0 = kind | size << 8 | store << 16 | index << 32; word1 = virtual address: an
     * architectural access (vector pieces are merged) of the instruction executed last, or, while
     * a block is open, of its instruction at INDEX (accesses come in the order they were made) */
    WIRE_MEM = 3,
    /* word0 = kind | exit code << 32: the guest exits */
    WIRE_EXIT = 4,
    /* word0 = kind: a second vCPU started (multi-threaded guest) */
    WIRE_THREAD = 5,
    /* word0 = kind | path length << 8; word1 = guest start; word2 = guest end; word3 = file offset;
     * then ceil(length / 8) words of the path (no terminating zero): the guest has the file mapped
     * there. Written before the INSN record of the first instruction executed in a mapping the
     * stream has not named yet (the executable, its interpreter, each shared library). */
    WIRE_MAP = 6,
    /* word0 = kind | path length << 8; then ceil(length / 8) words of the path (length 0: not
     * readable): the guest calls execve (or execveat) with that path. Written before the call;
     * the stream ends there when the call succeeds (the program replaced itself, and what the
     * new one runs is not QEMU's), else the guest's next instruction follows. */
    WIRE_EXECVE = 7,
    /* word0 = kind | n << 8 | id << 32; then ceil(n / 2) words holding the n instruction ids,
     * two to a word (low half first): translation block ID runs these instructions in this order
     * (each announced by an INSN record before). Written before the block's first RUN. */
    WIRE_BLOCK = 8,
    /* word0 = kind | id << 32: block ID starts; it is open until the next record other than MEM
     * and runs all its instructions unless a CUT record closes it */
    WIRE_RUN = 9,
    /* word0 = kind | k << 8: the open block was left after its first K instructions (a fault, an
     * exit, the end of the recording), K smaller than its length */
    WIRE_CUT = 10,
};
enum { WIRE_BLOCK_MAX = 512 };     /* instructions in a block: TCG's own bound */
enum { WIRE_PATH_MAX = 4096 };

/* The shared-memory transport (plugin options shm= and free=): the words are written in place
 * into chunks of a shared area, so that neither side copies them through the kernel. The
 * descriptor then carries one token per chunk filled: index | words << 32, in stream order.
 * The reader gives each chunk back, once read, by writing its index (a uint32_t) to the free
 * channel, which the plugin reads before it fills another. The area is a whole number of
 * chunks of WIRE_CHUNK_WORDS words. */
#define WIRE_CHUNK_WORDS (64 * 1024 + 8)

#endif
