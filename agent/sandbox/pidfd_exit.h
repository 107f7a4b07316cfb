/* The exit status of a process that is not our child, from the kernel:
 * a pidfd (pidfd_open) becomes readable when the process ends, and since
 * Linux 6.15 its PIDFD_GET_INFO ioctl reports the wait status once the
 * process's own parent has reaped it. The sandbox uses this to learn that a
 * container's init (docker-init, whose parent is containerd's shim) has
 * ended, and how, without waiting for Docker to notice: neither the script
 * nor anything else in the container can forge it. */
#ifndef MAI_PIDFD_EXIT_H
#define MAI_PIDFD_EXIT_H

#include <stdbool.h>
#include <sys/types.h>

/* Whether this kernel reports exit statuses through pidfds: probed once
 * (thread-safe) by asking PIDFD_GET_INFO for the exit status of a child
 * that exited with a known status and was reaped, what the sandbox needs,
 * whatever the kernel's version says. When not, *why (may be NULL; a static
 * string) says what the probe saw. */
bool pidfd_exit_supported(const char **why);

/* A pidfd for pid, provided that pid is in a cgroup whose path contains
 * cgroup_part (a container id) and is alive after the pidfd was taken, so a
 * recycled pid is never mistaken for it. The fd (close-on-exec; caller
 * closes) or -errno: -ESRCH when it is gone, -EPERM when it is not in
 * that cgroup. */
int pidfd_exit_open(pid_t pid, const char *cgroup_part);

/* The process's wait status (as waitpid reports it) into *status: 0 once it
 * has ended and been reaped, -EAGAIN before (still running, or a zombie),
 * -EOPNOTSUPP when the kernel cannot say. Asked while the parent reaps the
 * process, it answers one of the first two: the kernel's ESRCH of that
 * moment is asked again. */
int pidfd_exit_status(int pidfd, int *status);

/* The status as Docker reports a container's exit code: the code of a
 * normal exit, 128 + the signal of a killed process. */
int pidfd_exit_code(int status);

#endif
