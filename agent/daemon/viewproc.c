#include "viewproc.h"

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "log.h"
#include "subprocess.h"

extern char **environ;

/* Where maiaudit is: an explicit override, the installed layout (both
 * programs in one bin directory), or the build tree (agent/ next to fs/). */
static char *viewproc_find_program(void)
{
	const char *env = getenv("MAI_MAIAUDIT");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	const char *dir = dirname(self);
	const char *candidates[] = { "maiaudit", "../fs/maiaudit" };
	for (size_t i = 0; i < ARRAY_SIZE(candidates); i++) {
		char *p = xasprintf("%s/%s", dir, candidates[i]);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

int viewproc_start(const char *mountpoint, const char *config_dir, const char *log_file,
		   pid_t *pid, char **err)
{
	_cleanup_free_ char *prog = viewproc_find_program();
	posix_spawnattr_t attr;
	int r;

	if (!prog) {
		*err = xasprintf("cannot find the maiaudit program next to mai-agent: install it, "
				 "or set MAI_MAIAUDIT to its path");
		return -ENOENT;
	}
	char *argv[] = { prog, (char *)mountpoint, "--config-dir", (char *)config_dir,
			 "--foreground", log_file ? "--log-file" : NULL, (char *)log_file, NULL };

	/* The view must get SIGTERM with its default meaning so that it
	 * unmounts. */
	subprocess_spawnattr_init(&attr);
	r = posix_spawn(pid, prog, NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (r != 0) {
		*err = xasprintf("cannot start %s: %s", prog, strerror(r));
		return -r;
	}
	log_info("audit view: %s mounting %s (pid %ld)", prog, mountpoint, (long)*pid);
	return 0;
}

void viewproc_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 100; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			return;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	log_warnx("the audit view (pid %ld) did not stop within 5 s; killing it: unmount "
		  "the mount point with 'fusermount3 -u -z' if it stays", (long)pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
