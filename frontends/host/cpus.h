/* The processors this process may run on: its affinity mask (taskset, a container's cpuset), as
 * nproc counts them, not every processor the system has online. */
#ifndef CPUS_H
#define CPUS_H

/* At least 1. */
unsigned cpus_available(void);

#endif
