/* Exit statuses of processes that are not our children, from the kernel's
 * process events connector (netlink, CN_IDX_PROC): the way to learn how a
 * container's init ended, without Docker, on kernels older than 6.15 whose
 * pidfds cannot say it (pidfd_exit.h). One thread reads the host's exit
 * events and hands those of watched pids to their watches. It needs the
 * host's user and PID namespaces and, on older kernels, CAP_NET_ADMIN. */
#ifndef MAI_PROCEXIT_H
#define MAI_PROCEXIT_H

#include <sys/types.h>

struct procexit;
struct procexit_watch;

/* Subscribes to the exit events and starts the reading thread. 0, or
 * -errno with *err (caller frees) saying why it is not available. */
int procexit_open(struct procexit **out, char **err);
/* Stops the thread; every watch must have been removed. NULL is a no-op. */
void procexit_close(struct procexit *p);

/* Watches pid (a thread-group leader) from now on: the caller checks after
 * this call that pid is still the process it means, since an exit before
 * it is not seen. NULL when out of resources. */
struct procexit_watch *procexit_watch(struct procexit *p, pid_t pid);
/* Readable (an eventfd) once the status is in or cannot be known. */
int procexit_watch_fd(const struct procexit_watch *w);
/* The wait status into *status: 0 once the process ended, -EAGAIN before,
 * -ENOBUFS when events were lost (the kernel's buffer overflowed), so it
 * will never be known this way. Thread-safe. */
int procexit_watch_status(struct procexit_watch *w, int *status);
/* Removes and frees the watch. NULL is a no-op. */
void procexit_unwatch(struct procexit *p, struct procexit_watch *w);

#endif
