/* The processors this process may run on, for the threads it starts. */
#include "cpus.h"
#include <sched.h>
#include <unistd.h>

unsigned cpus_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);    /* more processors than a cpu_set_t holds */
    return online > 1 ? (unsigned)online : 1;
}
