/* Trace files (run --record, replay): the event stream in frames, each with its length and a
 * checksum, after a header naming the ISA (with a checksum of its own) and the program, before an
 * end frame saying how the program ended. Corruption is found in the frame it is in and reported
 * with its offset; nothing may follow the end frame. */
#ifndef TRACE_H
#define TRACE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mdl_machine.h"
#include "sha256.h"

/* The most words a frame holds: a chunk of the shared-memory stream (wire.h), so that recording
 * writes each chunk as one frame. A longer frame is corruption. */
#define TRACE_FRAME_MAX (64 * 1024 + 8)
#define TRACE_VERSION 3     /* 3: the header has a checksum */

/* How the program ended, as the end frame records it. */
enum trace_end { TRACE_RUNNING, TRACE_EXITED, TRACE_KILLED };

struct trace_writer {
    FILE *fp;
    uint64_t words;             /* written so far: each frame's checksum covers its place */
    int error;                  /* the errno of the first write that failed, 0 while none has */
};

/* The header and the program's frame (its absolute path and content hash); false with ERR. */
bool trace_write_start(struct trace_writer *w, FILE *fp, enum mdl_isa isa, const char *program, char *err,
                       size_t errlen);
/* N words of the stream, as frames of at most TRACE_FRAME_MAX words. False, with W->error, as soon
 * as a write fails (a full disk): every later write fails too. */
bool trace_write_events(struct trace_writer *w, const uint64_t *words, size_t n);
/* The end frame: how the program ended (a wait status: exit code, or the signal that killed it). */
bool trace_write_end(struct trace_writer *w, int wait_status);

struct trace_reader {
    const char *path;
    int fd;
    const uint64_t *map;        /* the whole file when it could be mapped; else read from FD */
    size_t map_words, pos;      /* in words, header included */
    uint64_t size;              /* the mapped file's bytes (a last word may be partial) */
    uint64_t *buf;              /* a frame read from FD */
    uint64_t offset;            /* words consumed so far, for the checksums and the messages */
    enum mdl_isa isa;
    char program[PATH_MAX];     /* the program recorded, and its content hash */
    char program_sha[SHA256_HEX];
    enum trace_end end;         /* as the end frame says, once read */
    int end_value;              /* its exit code or signal */
};

/* Opens PATH and reads its header and program frame; false with ERR (not a trace, another
 * version, an unknown ISA, a corrupt frame) and nothing to close. */
bool trace_open(struct trace_reader *t, const char *path, char *err, size_t errlen);
/* The next frame of events, checked, in place: false at the end frame (ERR empty) or with ERR
 * naming the offset where the file is truncated or corrupt, where an end frame holds an exit code
 * or signal no program ends with, or where bytes follow the end frame. */
bool trace_next(struct trace_reader *t, const uint64_t **words, size_t *n, char *err, size_t errlen);
void trace_close(struct trace_reader *t);

#endif
