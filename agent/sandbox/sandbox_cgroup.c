#include "sandbox_cgroup.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "fileio.h"
#include "macro.h"

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *sandbox_cgroup_dir(int version, const char *controller, const char *id)
{
	char *candidates[2];

	if (version == 2) {
		candidates[0] = xasprintf("/sys/fs/cgroup/docker/%s", id);
		candidates[1] = xasprintf("/sys/fs/cgroup/system.slice/docker-%s.scope", id);
	} else {
		candidates[0] = xasprintf("/sys/fs/cgroup/%s/docker/%s", controller, id);
		candidates[1] = xasprintf("/sys/fs/cgroup/%s/system.slice/docker-%s.scope",
					  controller, id);
	}
	for (size_t i = 0; i < 2; i++) {
		if (is_dir(candidates[i])) {
			free(candidates[1 - i]);
			return candidates[i];
		}
	}
	free(candidates[0]);
	free(candidates[1]);
	return NULL;
}

/* The parent and start time (clock ticks after boot) of pid from its
 * /proc/PID/stat; -1 when it is gone. */
static pid_t parent_of(pid_t pid, unsigned long long *started)
{
	char path[64];
	_cleanup_free_ char *stat = NULL;
	size_t len;
	int ppid;
	unsigned long long start = 0;
	char *end;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (fileio_read_path(path, 4096, &stat, &len) < 0)
		return -1;
	/* "pid (comm) state ppid ... starttime (the 22nd field)": comm may hold
	 * spaces and parentheses. */
	end = strrchr(stat, ')');
	if (!end || sscanf(end + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
				    "%*d %*d %*d %*d %llu", &ppid, &start) < 1)
		return -1;
	if (started)
		*started = start;
	return ppid;
}

pid_t sandbox_cgroup_init(const char *dir)
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
		pid_t ppid = parent_of(pids[i], NULL);
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

pid_t sandbox_proc_first_child(pid_t parent)
{
	char path[80];
	_cleanup_free_ char *list = NULL;
	unsigned long long first_start = 0;
	pid_t first = -ESRCH;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)parent, (int)parent);
	if ((r = fileio_read_path(path, 1 << 16, &list, &len)) < 0)
		return r;
	for (char *p = list, *e; *p; p = e) {
		long v = strtol(p, &e, 10);
		unsigned long long start = 0;
		if (e == p)
			break;
		if (parent_of((pid_t)v, &start) != parent)
			continue; /* gone meanwhile */
		if (first < 0 || start < first_start) {
			first = (pid_t)v;
			first_start = start;
		}
	}
	return first;
}

bool sandbox_proc_reads_stdin(pid_t pid)
{
	char path[64];
	_cleanup_free_ char *text = NULL;
	size_t len;
	long nr;
	unsigned long fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	if (fileio_read_path(path, 4096, &text, &len) < 0)
		return false;
	/* "NR ARG1 ARG2 ...", or "running" / "-1 ..." outside a call. */
	return sscanf(text, "%ld 0x%lx", &nr, &fd) == 2 && nr == SYS_read && fd == 0;
}
