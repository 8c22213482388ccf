/* The tools' allocator (mdl/alloc.c): memory that runs out ends the process with the size that
 * was asked for, never a NULL that a caller could forget to check. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "alloc.h"

/* Runs ASK in a child whose address space is capped at 256 MiB, its stderr into MSG; the
 * child's wait status. */
static int in_child(void (*ask)(void), char *msg, size_t len)
{
    int p[2];
    cr_assert_eq(pipe(p), 0);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct rlimit cap = { 256u << 20, 256u << 20 };
        setrlimit(RLIMIT_AS, &cap);
        dup2(p[1], STDERR_FILENO);
        ask();
        _exit(0);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t got;
    while (n + 1 < len && (got = read(p[0], msg + n, len - 1 - n)) > 0)
        n += (size_t)got;
    msg[n] = '\0';
    close(p[0]);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    return status;
}

static void ask_a_gibibyte(void) { alloc_zeroed(1u << 20, 1024); }
static void ask_more_than_there_are_bytes(void) { alloc_resize(NULL, SIZE_MAX / 2, 4); }
static void ask_small(void) { free(alloc_strdup("fits")); free(alloc_resize(NULL, 0, 8)); free(alloc_zeroed(0, 8)); }

Test(alloc, memory_out_ends_the_process_saying_how_many_bytes_were_asked_for)
{
#ifdef __SANITIZE_ADDRESS__
    cr_skip_test("an address-space limit cannot hold AddressSanitizer's shadow memory (it reports the failed "
                 "mapping itself)");
#endif
    char msg[256], want[128];
    int status = in_child(ask_a_gibibyte, msg, sizeof msg);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %#x", status);
    /* the program's name as it was started: here Criterion's worker */
    snprintf(want, sizeof want, "%s: error: out of memory (1073741824 bytes)\n", program_invocation_short_name);
    cr_assert_str_eq(msg, want);
}

Test(alloc, a_size_beyond_the_address_space_is_out_of_memory_not_a_wrapped_product)
{
    char msg[256], want[128];
    int status = in_child(ask_more_than_there_are_bytes, msg, sizeof msg);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, "status %#x", status);
    snprintf(want, sizeof want, "%s: error: out of memory (%zu x 4 bytes)\n", program_invocation_short_name,
             SIZE_MAX / 2);
    cr_assert_str_eq(msg, want);
}

Test(alloc, zero_objects_and_small_requests_are_served)
{
    char msg[64];
    int status = in_child(ask_small, msg, sizeof msg);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %#x", status);
    cr_assert_str_eq(msg, "");
    size_t cap = 0;
    int *a = alloc_grow(NULL, &cap, 1, 4, sizeof *a);
    cr_assert_eq(cap, 4, "the first room is FIRST objects");
    a[3] = 7;
    cr_assert_eq(alloc_grow(a, &cap, 4, 4, sizeof *a), a, "room enough: nothing moves");
    a = alloc_grow(a, &cap, 9, 4, sizeof *a);
    cr_assert_eq(cap, 16, "doubled until 9 fit");
    cr_assert_eq(a[3], 7, "the objects stay");
    free(a);
    char *s = alloc_strndup("abcdef", 3);
    cr_assert_str_eq(s, "abc");
    free(s);
}
