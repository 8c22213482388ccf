/* mdlsim's stderr during a run: a progress line redrawn in place on a terminal, and QEMU's
 * stderr relayed from a pipe. What QEMU writes before the guest's first instruction is held: it
 * is QEMU's own account of why the program could not start (a missing interpreter, an unknown
 * CPU model), which mdlsim then reports itself; once the guest runs, its stderr passes through
 * as it comes. */
#ifndef CONSOLE_H
#define CONSOLE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct console;

/* PROGRESS: draw the progress line (stderr is a terminal, and not --quiet). */
struct console *console_new(bool progress);
/* Erases the progress line and ends the relay (console_end_relay); NULL is ignored. */
void console_free(struct console *c);

/* A pipe for QEMU's stderr and a thread relaying it: the end to give QEMU, or -1 (QEMU then
 * writes to stderr itself). */
int console_relay(struct console *c);
/* The guest has started: what was held goes out, the rest as it comes. */
void console_started(struct console *c);
/* Once QEMU has exited: relays what is left in the pipe and stops. What was still held (QEMU's
 * words when the program never started) in HELD, LEN bytes at most, NUL-terminated. */
void console_end_relay(struct console *c, char *held, size_t len);

/* The progress line: instructions modelled (of EXECUTED), MIPS and the time since
 * console_new; drawn once the run has taken a second. */
void console_progress(struct console *c, uint64_t executed, uint64_t modelled);
/* Erases the progress line, before a report or an error. */
void console_clear(struct console *c);

#endif
