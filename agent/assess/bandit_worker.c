/* The resident Bandit worker: started lazily, one request at a time under a
 * lock, killed on a timeout and started again by the next request. Each
 * message on the socket is a 4-byte big-endian length and its bytes (see
 * agent/assess/bandit_worker.py). */
#include "bandit_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "monoclock.h"
#include "subprocess.h"

/* After a failed start, the one-shot `bandit` for this long. */
#define RETRY_AFTER_MS 60000

struct bandit_worker {
	pthread_mutex_t lock; /* guards everything below; held for a request */
	pid_t pid;            /* -1: none runs */
	int fd;               /* our end of its stdin/stdout socket */
	char *program;        /* the analyzers.bandit.path it was started for */
	long long retry_at;   /* after a failed start for program */
	bool hello_pending;   /* started ahead (prestart): its "ready" not read yet */
};

struct bandit_worker *bandit_worker_new(void)
{
	struct bandit_worker *w = xcalloc(1, sizeof(*w));

	pthread_mutex_init(&w->lock, NULL);
	w->pid = -1;
	w->fd = -1;
	return w;
}

static void worker_stop(struct bandit_worker *w)
{
	if (w->pid > 0) {
		kill(w->pid, SIGKILL);
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (w->fd >= 0)
		close(w->fd);
	w->pid = -1;
	w->fd = -1;
	w->hello_pending = false;
}

void bandit_worker_free(struct bandit_worker *w)
{
	if (!w)
		return;
	worker_stop(w);
	pthread_mutex_destroy(&w->lock);
	free(w->program);
	free(w);
}

pid_t bandit_worker_pid(struct bandit_worker *w)
{
	pthread_mutex_lock(&w->lock);
	pid_t pid = w->pid;
	pthread_mutex_unlock(&w->lock);
	return pid;
}

/* Waits until fd is ready for events or the deadline passes: 0, or
 * -ETIMEDOUT. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - monoclock_ms();
		struct pollfd p = { .fd = fd, .events = events };

		if (left <= 0)
			return -ETIMEDOUT;
		int n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int send_all(int fd, const void *buf, size_t len, long long deadline)
{
	const uint8_t *p = buf;

	while (len > 0) {
		int r = wait_fd(fd, POLLOUT, deadline);
		if (r < 0)
			return r;
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* -EIO when the worker closed the socket before len bytes came. */
static int recv_all(int fd, void *buf, size_t len, long long deadline)
{
	uint8_t *p = buf;

	while (len > 0) {
		int r = wait_fd(fd, POLLIN, deadline);
		if (r < 0)
			return r;
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_message(int fd, const uint8_t *data, size_t len, long long deadline)
{
	uint8_t h[4] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			 (uint8_t)len };

	if (len > UINT32_MAX)
		return -EMSGSIZE;
	int r = send_all(fd, h, sizeof(h), deadline);
	return r < 0 ? r : send_all(fd, data, len, deadline);
}

/* One message, NUL-terminated in *out (caller frees); -EMSGSIZE when it is
 * longer than max. */
static int recv_message(int fd, size_t max, long long deadline, char **out, size_t *out_len)
{
	uint8_t h[4];
	int r = recv_all(fd, h, sizeof(h), deadline);

	if (r < 0)
		return r;
	size_t len = (size_t)h[0] << 24 | (size_t)h[1] << 16 | (size_t)h[2] << 8 | h[3];
	if (len > max)
		return -EMSGSIZE;
	_cleanup_free_ char *buf = xmalloc(len + 1);
	r = recv_all(fd, buf, len, deadline);
	if (r < 0)
		return r;
	buf[len] = '\0';
	*out = steal_pointer(&buf);
	*out_len = len;
	return 0;
}

/* The interpreter and its optional argument from the #! line of path, as
 * the kernel reads it. -ENOEXEC when there is none. */
static int read_shebang(const char *path, char **interp, char **arg)
{
	char line[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -ENOEXEC;
	line[n] = '\0';
	char *end = strchr(line, '\n');
	if (!end)
		return -ENOEXEC;
	*end = '\0';
	char *p = line + 2 + strspn(line + 2, " \t");
	size_t ilen = strcspn(p, " \t");
	if (ilen == 0)
		return -ENOEXEC;
	char *rest = p + ilen + strspn(p + ilen, " \t");
	while (end > rest && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		*--end = '\0';
	*interp = xstrndup(p, ilen);
	*arg = *rest ? xstrdup(rest) : NULL;
	return 0;
}

/* Starts the worker's process for program; its "ready" is still to be read
 * (worker_await()). -ENOEXEC when no worker can run for program. */
static int worker_spawn(struct bandit_worker *w, const char *program)
{
	_cleanup_free_ char *path = subprocess_find_program(program);
	_cleanup_free_ char *interp = NULL, *arg = NULL;
	int sv[2], r;

	if (!path)
		return -ENOEXEC;
	if (read_shebang(path, &interp, &arg) < 0) {
		log_debug("bandit worker: %s has no #! line; one-shot runs", path);
		return -ENOEXEC;
	}
	char *argv[] = { interp, arg ? arg : "-c", arg ? "-c" : (char *)bandit_worker_py,
			 arg ? (char *)bandit_worker_py : NULL, NULL };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	r = subprocess_start(argv, sv[1], &w->pid);
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		w->pid = -1;
		log_debug("bandit worker: cannot start %s: %s", interp, strerror(-r));
		return -ENOEXEC;
	}
	w->fd = sv[0];
	w->hello_pending = true;
	return 0;
}

/* Reads the started worker's "ready", within timeout_ms. */
static int worker_await(struct bandit_worker *w, const char *program, unsigned timeout_ms)
{
	_cleanup_free_ char *hello = NULL;
	size_t hello_len;
	int r = recv_message(w->fd, 64, monoclock_ms() + timeout_ms, &hello, &hello_len);

	if (r == 0 && hello_len == 5 && !memcmp(hello, "ready", 5)) {
		w->hello_pending = false;
		return 0;
	}
	worker_stop(w);
	if (r == -ETIMEDOUT)
		return r;
	log_warnx("bandit worker: the interpreter on the #! line of %s could not import "
		  "Bandit's API; each job runs a one-shot %s", program, program);
	return -ENOEXEC;
}

/* A new worker for program (the one before stopped), unless a failed start
 * is too recent; started only (ready unread) when await is false. */
static int worker_start(struct bandit_worker *w, const char *program, unsigned timeout_ms,
			bool await)
{
	int r;

	if (w->retry_at && monoclock_ms() < w->retry_at)
		return -ENOEXEC;
	free(w->program);
	w->program = xstrdup(program);
	r = worker_spawn(w, program);
	if (r == 0 && await)
		r = worker_await(w, program, timeout_ms);
	w->retry_at = r == -ENOEXEC ? monoclock_ms() + RETRY_AFTER_MS : 0;
	return r;
}

/* Forgets a worker that died or that was started for another program. */
static void worker_check(struct bandit_worker *w, const char *program)
{
	if (w->pid > 0 && waitpid(w->pid, NULL, WNOHANG) == w->pid) {
		w->pid = -1; /* died between requests: reaped */
		worker_stop(w);
	}
	if (w->program && strcmp(w->program, program)) {
		worker_stop(w);
		w->retry_at = 0;
	}
}

static int report_locked(struct bandit_worker *w, const char *program, unsigned timeout_ms,
			 const uint8_t *data, size_t len, size_t max, char **report,
			 size_t *report_len)
{
	int r;

	worker_check(w, program);
	if (w->pid < 0 && (r = worker_start(w, program, timeout_ms, true)) < 0)
		return r;
	if (w->hello_pending && (r = worker_await(w, program, timeout_ms)) < 0) {
		w->retry_at = r == -ENOEXEC ? monoclock_ms() + RETRY_AFTER_MS : 0;
		return r;
	}
	long long deadline = monoclock_ms() + timeout_ms;
	r = send_message(w->fd, data, len, deadline);
	if (r == 0)
		r = recv_message(w->fd, max, deadline, report, report_len);
	if (r < 0) {
		worker_stop(w);
		return r == -ETIMEDOUT ? r : -EIO;
	}
	if (*report_len == 0) { /* Bandit raised on this snapshot */
		free(*report);
		*report = NULL;
		return -EIO;
	}
	return 0;
}

void bandit_worker_prestart(struct bandit_worker *w, const char *program)
{
	pthread_mutex_lock(&w->lock);
	worker_check(w, program);
	if (w->pid < 0)
		worker_start(w, program, 0, false);
	pthread_mutex_unlock(&w->lock);
}

int bandit_worker_report(struct bandit_worker *w, const char *program, unsigned timeout_ms,
			 const uint8_t *data, size_t len, size_t max, char **report,
			 size_t *report_len)
{
	*report = NULL;
	*report_len = 0;
	pthread_mutex_lock(&w->lock);
	int r = report_locked(w, program, timeout_ms, data, len, max, report, report_len);
	pthread_mutex_unlock(&w->lock);
	return r;
}
