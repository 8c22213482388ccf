/* The progress line and the relay of QEMU's stderr share one lock: the guest's output erases
 * the line before it goes out, so that neither garbles the other. */
#include "console.h"
#include "alloc.h"
#include "fdio.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { HOLD_MAX = 64 * 1024, SHOW_AFTER_MS = 1000 };

struct console {
    pthread_mutex_t lock;
    bool progress;
    size_t shown;                   /* columns of the progress line on the screen; 0: none */
    struct timespec start;
    /* the relay: QEMU's stderr on pipe_r, until a byte on stop_r */
    bool relaying, started;
    int pipe_r, stop_r, stop_w;
    pthread_t thread;
    char *held;
    size_t n_held;
};

/* With the lock held. */
static void erase_line(struct console *c)
{
    if (!c->shown)
        return;
    char blank[256];
    size_t n = c->shown + 2 < sizeof blank ? c->shown + 2 : sizeof blank;
    memset(blank, ' ', n);
    blank[0] = blank[n - 1] = '\r';
    fdio_write_all(STDERR_FILENO, blank, n);
    c->shown = 0;
}

struct console *console_new(bool progress)
{
    struct console *c = alloc_zeroed(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    c->progress = progress;
    c->pipe_r = c->stop_r = c->stop_w = -1;
    clock_gettime(CLOCK_MONOTONIC, &c->start);
    return c;
}

void console_free(struct console *c)
{
    if (!c)
        return;
    console_end_relay(c, NULL, 0);
    console_clear(c);
    pthread_mutex_destroy(&c->lock);
    free(c->held);
    free(c);
}

/* ---- the relay ------------------------------------------------------------------------------- */

/* With the lock held: what was held goes out, and from now on everything. */
static bool release(struct console *c)
{
    c->started = true;
    erase_line(c);
    bool ok = fdio_write_all(STDERR_FILENO, c->held, c->n_held);
    c->n_held = 0;
    return ok;
}

/* Bytes from QEMU: held until the guest starts (or writes more than QEMU would say before it),
 * then written at once. False when stderr is closed. */
static bool pass(struct console *c, const char *buf, size_t n)
{
    pthread_mutex_lock(&c->lock);
    bool ok = true;
    if (!c->started && c->n_held + n <= HOLD_MAX) {
        memcpy(c->held + c->n_held, buf, n);
        c->n_held += n;
    } else {
        ok = release(c) && fdio_write_all(STDERR_FILENO, buf, n);
    }
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* Until told to stop: then whatever QEMU left in the pipe, without waiting for an end of file
 * that a child of the guest holding its stderr would delay. */
static void *relay_main(void *arg)
{
    struct console *c = arg;
    /* a closed stderr (| head) is an error here, not the end of mdlsim */
    sigset_t pipe_signal;
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, NULL);
    char buf[4096];
    bool stopping = false;
    for (;;) {
        struct pollfd p[2] = { { .fd = c->pipe_r, .events = POLLIN }, { .fd = c->stop_r, .events = POLLIN } };
        if (!stopping && poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (!stopping && p[1].revents) {
            stopping = true;
            fcntl(c->pipe_r, F_SETFL, O_NONBLOCK);
        } else if (!stopping && !p[0].revents) {
            continue;
        }
        ssize_t n = read(c->pipe_r, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !pass(c, buf, (size_t)n))
            break;
    }
    /* the guest's next write to its stderr fails as it would on the closed stderr itself */
    close(c->pipe_r);
    return NULL;
}

int console_relay(struct console *c)
{
    int p[2], s[2];
    c->held = alloc_resize(NULL, HOLD_MAX, 1);
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(s, O_CLOEXEC) != 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    c->pipe_r = p[0];
    c->stop_r = s[0];
    c->stop_w = s[1];
    if (pthread_create(&c->thread, NULL, relay_main, c) != 0) {
        for (int i = 0; i < 2; i++) {
            close(p[i]);
            close(s[i]);
        }
        return -1;
    }
    c->relaying = true;
    return p[1];
}

void console_started(struct console *c)
{
    pthread_mutex_lock(&c->lock);
    if (!c->started)
        release(c);
    pthread_mutex_unlock(&c->lock);
}

void console_end_relay(struct console *c, char *held, size_t len)
{
    if (c->relaying) {
        while (write(c->stop_w, "", 1) < 0 && errno == EINTR)
            ;
        pthread_join(c->thread, NULL);
        close(c->stop_r);
        close(c->stop_w);
        c->relaying = false;
    }
    pthread_mutex_lock(&c->lock);
    if (held && len) {
        size_t n = c->n_held < len - 1 ? c->n_held : len - 1;
        memcpy(held, c->held, n);
        held[n] = '\0';
        c->n_held = 0;
    }
    release(c);                     /* nobody asked: QEMU's words are not lost */
    pthread_mutex_unlock(&c->lock);
}

/* ---- the progress line -------------------------------------------------------------------------- */

/* 1234567 as "1.2M". */
static void count_text(char *out, size_t len, double v)
{
    static const char unit[] = "kMGTP";
    int u = -1;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u < 0)
        snprintf(out, len, "%.0f", v);
    else
        snprintf(out, len, "%.1f%c", v, unit[u]);
}

void console_progress(struct console *c, uint64_t executed, uint64_t modelled)
{
    if (!c->progress)
        return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double s = (double)(now.tv_sec - c->start.tv_sec) + (double)(now.tv_nsec - c->start.tv_nsec) / 1e9;
    if (s * 1000 < SHOW_AFTER_MS)
        return;
    char line[256], mod[16], exe[16];
    count_text(mod, sizeof mod, (double)modelled);
    count_text(exe, sizeof exe, (double)executed);
    unsigned t = (unsigned)s;
    int n = snprintf(line, sizeof line, "\rmdlsim: %s instructions modelled", mod);
    if (modelled != executed)
        n += snprintf(line + n, sizeof line - (size_t)n, " of %s executed", exe);
    n += snprintf(line + n, sizeof line - (size_t)n, ", %.1f MIPS, ", (double)executed / s / 1e6);
    if (t >= 3600)
        n += snprintf(line + n, sizeof line - (size_t)n, "%u:", t / 3600);
    n += snprintf(line + n, sizeof line - (size_t)n, t >= 3600 ? "%02u:%02u" : "%u:%02u", t / 60 % 60, t % 60);
    pthread_mutex_lock(&c->lock);
    size_t width = (size_t)n - 1;
    if (width < c->shown) {
        /* the shorter line covers the longer one's end */
        memset(line + n, ' ', c->shown - width);
        n += (int)(c->shown - width);
    }
    fdio_write_all(STDERR_FILENO, line, (size_t)n);
    c->shown = width;
    pthread_mutex_unlock(&c->lock);
}

void console_clear(struct console *c)
{
    pthread_mutex_lock(&c->lock);
    erase_line(c);
    pthread_mutex_unlock(&c->lock);
}
