/* A container's cgroup as the host sees it: where it is, and which of its
 * processes is the container's init. */
#ifndef MAI_SANDBOX_CGROUP_H
#define MAI_SANDBOX_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

/* The container's cgroup directory for one controller (v1; any for v2), or
 * NULL when this process does not see it: the cgroupfs driver's layout
 * first, then systemd's. Caller frees. */
char *sandbox_cgroup_dir(int version, const char *controller, const char *id);

/* The process in the cgroup directory dir (its cgroup.procs) whose parent
 * is outside it, as a container's init is: read from the kernel, without
 * asking Docker. -ESRCH when there is none or more than one, -errno when
 * the cgroup cannot be read. */
pid_t sandbox_cgroup_init(const char *dir);

/* The child of process parent that started first (its children from
 * /proc/PARENT/task/PARENT/children): in a container, the program its init
 * started, before any orphan the init adopted. -ESRCH when it has none,
 * -errno when /proc cannot say. */
pid_t sandbox_proc_first_child(pid_t parent);

/* Whether process pid is blocked in read() of its standard input (from
 * /proc/PID/syscall, which root may read): a bootstrap that waits for its
 * job, its interpreter started. */
bool sandbox_proc_reads_stdin(pid_t pid);

#endif
