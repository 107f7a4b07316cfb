#include "pidfd_exit.h"

#include <errno.h>
#include <linux/types.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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
