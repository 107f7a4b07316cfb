#include "pidfd_exit.h"

#include <errno.h>
#include <linux/types.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

/* The kernel's struct pidfd_info up to exit_code (its first published size,
 * 64 bytes); the system headers of Debian 12 predate it. The ioctl number
 * carries the size, and the kernel fills what fits. */
struct mai_pidfd_info {
	__u64 mask;
	__u64 cgroupid;
	__u32 pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	__s32 exit_code;
};

#define MAI_PIDFD_GET_INFO _IOWR(0xFF, 11, struct mai_pidfd_info)
#define MAI_PIDFD_INFO_EXIT (1ULL << 3)

int pidfd_exit_status(int pidfd, int *status)
{
	struct mai_pidfd_info info;

	memset(&info, 0, sizeof(info));
	info.mask = MAI_PIDFD_INFO_EXIT;
	if (ioctl(pidfd, MAI_PIDFD_GET_INFO, &info) < 0) {
		/* ENOTTY/EINVAL: no such ioctl. ESRCH: reaped on a kernel whose
		 * ioctl answers only for live processes, so no exit status. */
		return errno == ENOTTY || errno == EINVAL || errno == ESRCH ? -EOPNOTSUPP : -errno;
	}
	if (!(info.mask & MAI_PIDFD_INFO_EXIT))
		return -EAGAIN;
	*status = info.exit_code;
	return 0;
}

int pidfd_exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static bool supported;

static void probe(void)
{
	int fd, status = 0;
	pid_t child = fork();

	if (child == 0)
		_exit(42);
	if (child < 0)
		return;
	fd = pidfd_open(child, 0);
	waitpid(child, NULL, 0);
	if (fd < 0)
		return;
	supported = pidfd_exit_status(fd, &status) == 0 && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 42;
	close(fd);
}

bool pidfd_exit_supported(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, probe);
	return supported;
}

static pid_t parent_of(pid_t pid)
{
	char path[64];
	_cleanup_free_ char *stat = NULL;
	size_t len;
	int ppid;
	char *end;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (fileio_read_path(path, 4096, &stat, &len) < 0)
		return -1;
	/* "pid (comm) state ppid ...": comm may hold spaces and parentheses. */
	end = strrchr(stat, ')');
	if (!end || sscanf(end + 1, " %*c %d", &ppid) != 1)
		return -1;
	return ppid;
}

pid_t pidfd_exit_cgroup_init(const char *dir)
{
	_cleanup_free_ char *path = xasprintf("%s/cgroup.procs", dir);
	_cleanup_free_ char *procs = NULL;
	pid_t pids[64], init = -ESRCH;
	size_t len, n = 0;
	int r = fileio_read_path(path, 1 << 16, &procs, &len);

	if (r < 0)
		return r;
	for (char *p = procs, *e; *p && n < ARRAY_SIZE(pids); p = e) {
		long v = strtol(p, &e, 10);
		if (e == p)
			break;
		pids[n++] = (pid_t)v;
	}
	for (size_t i = 0; i < n; i++) {
		pid_t ppid = parent_of(pids[i]);
		bool inside = false;
		for (size_t k = 0; k < n && !inside; k++)
			inside = pids[k] == ppid;
		if (inside || ppid < 0)
			continue;
		if (init > 0)
			return -ESRCH; /* two roots: not a container's tree */
		init = pids[i];
	}
	return init;
}

int pidfd_exit_open(pid_t pid, const char *cgroup_part)
{
	char path[64];
	_cleanup_free_ char *cgroups = NULL;
	size_t len;
	int fd, r;

	if (pid <= 0)
		return -ESRCH;
	fd = pidfd_open(pid, 0);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	r = fileio_read_path(path, 1 << 16, &cgroups, &len);
	if (r < 0) {
		close(fd);
		return r == -ENOENT ? -ESRCH : r;
	}
	if (!strstr(cgroups, cgroup_part)) {
		close(fd);
		return -EPERM;
	}
	/* Alive now, after the pidfd and the cgroup were read (a pidfd turns
	 * readable when its process ends): the pid was not recycled in between,
	 * so the pidfd is that process's. */
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 0) != 0) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}
