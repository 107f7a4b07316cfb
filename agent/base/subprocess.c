#include "subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "monoclock.h"

extern char **environ;

void subprocess_spawnattr_init(posix_spawnattr_t *attr)
{
	sigset_t none, all;

	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_init(attr);
	posix_spawnattr_setsigmask(attr, &none);
	posix_spawnattr_setsigdefault(attr, &all);
	posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

char *subprocess_find_program(const char *name)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path; *p; ) {
		size_t n = strcspn(p, ":");
		char *file = xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "", name);

		if (access(file, X_OK) == 0)
			return file;
		free(file);
		p += n + (p[n] == ':');
	}
	return NULL;
}

int subprocess_start(char *const argv[], int fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC), rc;

	if (devnull < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, 0);
	posix_spawn_file_actions_adddup2(&fa, fd, 1);
	posix_spawn_file_actions_adddup2(&fa, devnull, 2);
	subprocess_spawnattr_init(&attr);
	rc = posix_spawn(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(devnull);
	return -rc;
}

int subprocess_capture(char *const argv[], unsigned timeout_ms, size_t max, bool with_stderr,
		       char **out, size_t *out_len)
{
	int pipefd[2], devnull, status = 0;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	pid_t pid;
	size_t len = 0, cap = 65536 < max + 1 ? 65536 : max + 1;
	char *buf, sink[4096];
	long long deadline = monoclock_ms() + timeout_ms;
	int rc;

	*out = NULL;
	*out_len = 0;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	if (devnull >= 0) {
		posix_spawn_file_actions_adddup2(&fa, devnull, 0);
		if (!with_stderr)
			posix_spawn_file_actions_adddup2(&fa, devnull, 2);
	}
	subprocess_spawnattr_init(&attr);
	rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (devnull >= 0)
		close(devnull);
	if (rc != 0) {
		close(pipefd[0]);
		return -rc;
	}
	buf = xmalloc(cap);
	for (;;) {
		long long left = deadline - monoclock_ms();
		struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
		ssize_t n;

		if (left <= 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			close(pipefd[0]);
			free(buf);
			return -ETIMEDOUT;
		}
		if (poll(&p, 1, (int)left) <= 0)
			continue;
		if (len + 1 == cap && cap < max + 1) {
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			buf = xrealloc(buf, cap);
		}
		if (len + 1 < cap)
			n = read(pipefd[0], buf + len, cap - len - 1);
		else
			n = read(pipefd[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < cap)
			len += (size_t)n;
	}
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
