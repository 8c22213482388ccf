/* Starting a program under QEMU user mode as a shell would start it natively. */
#ifndef LAUNCH_H
#define LAUNCH_H
#include <stdbool.h>
#include <stddef.h>

/* NAME as a shell finds a command, in PATH (LEN bytes): NAME itself when it has a slash, else
 * the first executable regular file of that name in a directory of $PATH. False when none. */
bool launch_find_program(const char *name, char *path, size_t len);

#endif
