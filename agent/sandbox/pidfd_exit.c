#include "pidfd_exit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/types.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
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

/* PIDFD_GET_INFO asked for the exit status: 0 with info filled, or the
 * ioctl's -errno. */
static int get_exit_info(int pidfd, struct mai_pidfd_info *info)
{
	memset(info, 0, sizeof(*info));
	info->mask = MAI_PIDFD_INFO_EXIT;
	return ioctl(pidfd, MAI_PIDFD_GET_INFO, info) < 0 ? -errno : 0;
}

/* How many times an ESRCH is asked again at once (see below). */
#define REAP_RACE_TRIES 8
/* How many times the probe asks again after an ESRCH, 1 ms apart (judge()). */
#define PROBE_REAP_TRIES 20

/* get_exit_info(), asked again up to tries times, pause_ns apart, while it
 * answers ESRCH: the ioctl can meet a process while it is being reaped (it
 * found the task, whose pid was then detached before the ioctl read it
 * back); the exit status is published before the pid is detached, so a
 * later ask gets it. A kernel that keeps no exit status says ESRCH every
 * time. */
static int get_exit_info_through_reap(int pidfd, struct mai_pidfd_info *info, int tries,
				      long pause_ns)
{
	int r = get_exit_info(pidfd, info);

	for (int i = 0; r == -ESRCH && i < tries; i++) {
		if (pause_ns) {
			const struct timespec ts = { 0, pause_ns };
			nanosleep(&ts, NULL);
		}
		r = get_exit_info(pidfd, info);
	}
	return r;
}

int pidfd_exit_status(int pidfd, int *status)
{
	struct mai_pidfd_info info;
	/* On a kernel that reports exit statuses, an ESRCH is the reap's race
	 * (get_exit_info_through_reap()); seen on Linux 6.18 about once in a
	 * hundred reaps when the ioctl runs beside the reap, which a watch
	 * woken by the exit makes likely. */
	int r = get_exit_info(pidfd, &info);
	if (r == -ESRCH && pidfd_exit_supported(NULL))
		r = get_exit_info_through_reap(pidfd, &info, REAP_RACE_TRIES, 0);
	/* ENOTTY/EINVAL: no such ioctl. ESRCH on a kernel whose ioctl answers
	 * only for live processes (reaped, so no exit status), or one that kept
	 * saying so. */
	if (r == -ENOTTY || r == -EINVAL || r == -ESRCH)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
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
static char why_not[160];

/* What the probe's ioctl said, into supported or why_not. With SIGCHLD
 * ignored the kernel reaps the probe's child itself, and the parent's
 * waitpid() returns as the reap begins: asked then, the ioctl can answer
 * ESRCH, so it is asked again, a millisecond apart, before an ESRCH counts
 * (the probe runs once a process). */
static void judge(int fd)
{
	struct mai_pidfd_info info;
	int r = get_exit_info_through_reap(fd, &info, PROBE_REAP_TRIES, 1000000);

	if (r == -ENOTTY || r == -EINVAL)
		snprintf(why_not, sizeof(why_not), "the kernel does not know PIDFD_GET_INFO "
			 "(Linux 6.13 added it, 6.15 its exit status)");
	else if (r == -ESRCH || (r == 0 && !(info.mask & MAI_PIDFD_INFO_EXIT)))
		snprintf(why_not, sizeof(why_not), "PIDFD_GET_INFO gives no exit status for a "
			 "reaped process (PIDFD_INFO_EXIT, Linux 6.15)");
	else if (r < 0)
		snprintf(why_not, sizeof(why_not), "PIDFD_GET_INFO failed: %s", strerror(-r));
	else if (!WIFEXITED(info.exit_code) || WEXITSTATUS(info.exit_code) != 42)
		snprintf(why_not, sizeof(why_not), "PIDFD_GET_INFO gave wait status %#x for a "
			 "child that exited with 42", (unsigned)info.exit_code);
	else
		supported = true;
}

/* Asks for what the sandbox needs, not for a kernel version: the exit
 * status of a process that has ended and been reaped. The child waits on a
 * pipe until its pidfd is taken, so that the pidfd is its own even when
 * SIGCHLD is ignored (the kernel then reaps it at once, and waitpid waits
 * for that and fails with ECHILD). */
static void probe(void)
{
	int gate[2], fd;
	pid_t child;
	char c;

	if (pipe2(gate, O_CLOEXEC) < 0) {
		snprintf(why_not, sizeof(why_not), "no pipe for the probe: %s", strerror(errno));
		return;
	}
	child = fork();
	if (child == 0) {
		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(42);
	}
	close(gate[0]);
	if (child < 0) {
		snprintf(why_not, sizeof(why_not), "cannot fork the probe: %s", strerror(errno));
		close(gate[1]);
		return;
	}
	fd = pidfd_open(child, 0);
	if (fd < 0)
		snprintf(why_not, sizeof(why_not), "pidfd_open failed: %s", strerror(errno));
	close(gate[1]);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	if (fd >= 0) {
		judge(fd);
		close(fd);
	}
}

bool pidfd_exit_supported(const char **why)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, probe);
	if (why)
		*why = supported ? NULL : why_not;
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
