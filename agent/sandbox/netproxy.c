#include "netproxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "macro.h"

#define NETPROXY_READY_MS 10000
#define NETPROXY_RESTART_DELAY_MS 1000
#define NETPROXY_STOP_MS 3000

struct netproxy {
	char *program, *conf_path, *log_path, *pid_path, *url, *listen;
	int port;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pid_t pid;        /* under lock */
	bool stopping;    /* under lock */
	unsigned restarts; /* under lock */
	unsigned spawned;  /* under lock */
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* fork + exec with the log file as stdout and stderr, all signals
 * unblocked (the agent's threads block the ones its loop reads), and
 * SIGTERM when the supervising thread goes away. */
static pid_t spawn(struct netproxy *p)
{
	const char *argv[] = { p->program, "-d", "-c", p->conf_path, NULL };
	/* The agent's alone (the state directory is searchable by everyone,
	 * for status.json): it names what every user's runs fetched. The
	 * proxy writes it through the descriptor it inherits. */
	int logfd = open(p->log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (logfd >= 0 && fchmod(logfd, 0600) < 0)
		log_warn("cannot make %s the agent's alone", p->log_path);
	int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sigset_t all;
	pid_t pid;

	if (logfd < 0 || nullfd < 0) {
		log_warn("cannot open %s for the proxy", p->log_path);
		if (logfd >= 0)
			close(logfd);
		if (nullfd >= 0)
			close(nullfd);
		return -1;
	}
	sigemptyset(&all);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		sigprocmask(SIG_SETMASK, &all, NULL);
		dup2(nullfd, 0);
		dup2(logfd, 1);
		dup2(logfd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(logfd);
	close(nullfd);
	if (pid < 0)
		log_warn("cannot start %s", p->program);
	return pid;
}

/* DIR/tinyproxy.pid: the running proxy's pid, written by the agent at each
 * spawn (it knows the pid; tinyproxy's own PidFile would be handled by a
 * process that may already run as nobody). PR_SET_PDEATHSIG does not
 * outlive tinyproxy's change of user, so an agent killed with SIGKILL
 * leaves its proxy running: the next start finds it through this file. */
static void write_pid_file(const struct netproxy *p, pid_t pid)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	int r = fileio_write_atomic(p->pid_path, buf, (size_t)n, 0644);

	if (r < 0)
		log_warnx("cannot write %s: %s; a proxy left by a crash of the agent will not be "
			  "found at its next start (check agent.state_dir in agent.yaml)",
			  p->pid_path, strerror(-r));
}

/* Whether pid's command line has "-c CONF": a proxy started with our
 * configuration, not a process that got the pid since. */
static bool runs_our_conf(pid_t pid, const char *conf)
{
	_cleanup_free_ char *path = xasprintf("/proc/%d/cmdline", (int)pid), *args = NULL;
	size_t len;

	if (fileio_read_path(path, 1 << 16, &args, &len) < 0)
		return false;
	for (size_t i = 0; i < len; i += strlen(args + i) + 1) {
		size_t next = i + strlen(args + i) + 1;
		if (!strcmp(args + i, "-c") && next < len && !strcmp(args + next, conf))
			return true;
	}
	return false;
}

/* Waits up to ms for pid (not our child: no waitpid) to be gone. */
static bool gone_within(pid_t pid, long ms)
{
	for (long waited = 0; waited < ms; waited += 20) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		sleep_ms(20);
	}
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* Stops the proxy that a killed agent left (named by the pid file and
 * running our configuration), so that one proxy serves this directory. */
static void stop_leftover(const struct netproxy *p)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	char *end;

	if (fileio_read_path(p->pid_path, 64, &text, &len) < 0)
		return;
	long pid = strtol(text, &end, 10);
	if (pid <= 1 || pid > INT32_MAX || (*end && *end != '\n') ||
	    !runs_our_conf((pid_t)pid, p->conf_path))
		return;
	log_info("stopping the filtering proxy (pid %ld) that an earlier agent left running "
		 "with %s", pid, p->conf_path);
	kill((pid_t)pid, SIGTERM);
	if (gone_within((pid_t)pid, NETPROXY_STOP_MS))
		return;
	kill((pid_t)pid, SIGKILL);
	if (!gone_within((pid_t)pid, NETPROXY_STOP_MS))
		log_warnx("the filtering proxy (pid %ld) left by an earlier agent does not end",
			  pid);
}

static void describe_exit(int status, char *buf, size_t n)
{
	if (WIFEXITED(status))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "was killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "ended (status %d)", status);
}

static void *supervise(void *arg)
{
	struct netproxy *p = arg;

	for (;;) {
		pid_t pid = spawn(p);
		int status = 0;
		char why[64];

		pthread_mutex_lock(&p->lock);
		if (pid > 0) {
			write_pid_file(p, pid);
			p->pid = pid;
			p->spawned++;
			if (p->stopping)
				kill(pid, SIGTERM);
		}
		pthread_mutex_unlock(&p->lock);
		if (pid > 0) {
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			describe_exit(status, why, sizeof(why));
		} else {
			snprintf(why, sizeof(why), "could not be started");
		}
		pthread_mutex_lock(&p->lock);
		p->pid = -1;
		pthread_cond_broadcast(&p->cond);
		if (p->stopping) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		p->restarts++;
		pthread_mutex_unlock(&p->lock);
		log_warnx("the filtering proxy %s (pid %d) %s; restarting it (its log: %s)",
			  p->program, (int)pid, why, p->log_path);
		/* A proxy that dies at once must not spin. */
		sleep_ms(NETPROXY_RESTART_DELAY_MS);
		pthread_mutex_lock(&p->lock);
		bool stop = p->stopping;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
	}
	return NULL;
}

static bool accepts(const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	_cleanup_close_ int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return false;
	return connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
}

static int write_file(const char *path, const char *text, char **err)
{
	int r = fileio_write_atomic(path, text, strlen(text), 0644);
	if (r < 0)
		*err = xasprintf("cannot write %s: %s (check agent.state_dir in agent.yaml)", path,
				 strerror(-r));
	return r;
}

static void free_struct(struct netproxy *p)
{
	free(p->program);
	free(p->conf_path);
	free(p->log_path);
	free(p->pid_path);
	free(p->url);
	free(p->listen);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p);
}

int netproxy_start(const struct netproxy_options *o, struct netproxy **out, char **err)
{
	_cleanup_free_ char *conf = NULL, *filter = NULL, *filter_path = NULL;
	struct netproxy *p;
	int r;

	*out = NULL;
	r = netproxy_render(o, &conf, &filter, err);
	if (r < 0)
		return r;
	r = fileio_mkdir_p(o->dir, 0755);
	if (r < 0) {
		*err = xasprintf("cannot create %s: %s (check agent.state_dir in agent.yaml)", o->dir,
				 strerror(-r));
		return r;
	}
	p = xcalloc(1, sizeof(*p));
	p->program = xstrdup(o->program ? o->program : "tinyproxy");
	p->conf_path = xasprintf("%s/tinyproxy.conf", o->dir);
	p->log_path = xasprintf("%s/tinyproxy.log", o->dir);
	p->pid_path = xasprintf("%s/tinyproxy.pid", o->dir);
	p->url = xasprintf("http://%s:%d", o->listen, o->port);
	p->listen = xstrdup(o->listen);
	p->port = o->port;
	p->pid = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	filter_path = xasprintf("%s/filter", o->dir);
	if ((r = write_file(p->conf_path, conf, err)) < 0 ||
	    (r = write_file(filter_path, filter, err)) < 0)
		goto fail;
	stop_leftover(p);
	if (accepts(o->listen, o->port)) {
		*err = xasprintf("something already listens on %s:%d; stop it or choose another "
				 "network.proxy_port in config/sandbox.yaml", o->listen, o->port);
		r = -EADDRINUSE;
		goto fail;
	}
	if (pthread_create(&p->thread, NULL, supervise, p) != 0)
		abort();
	for (int waited = 0; waited < NETPROXY_READY_MS; waited += 50) {
		if (accepts(o->listen, o->port)) {
			log_info("filtering proxy %s listening on %s:%d for %zu allowed host(s); "
				 "log %s", p->program, o->listen, o->port, o->n_hosts, p->log_path);
			*out = p;
			return 0;
		}
		sleep_ms(50);
	}
	*err = xasprintf("the filtering proxy %s did not start listening on %s:%d within %d s; "
			 "see %s (is tinyproxy installed? packaging/install-deps.sh installs it)",
			 p->program, o->listen, o->port, NETPROXY_READY_MS / 1000, p->log_path);
	netproxy_stop(p);
	return -EIO;
fail:
	free_struct(p);
	return r;
}

void netproxy_stop(struct netproxy *p)
{
	struct timespec deadline;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	if (p->pid > 0)
		kill(p->pid, SIGTERM);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += NETPROXY_STOP_MS / 1000;
	while (p->pid > 0) {
		if (pthread_cond_timedwait(&p->cond, &p->lock, &deadline) == ETIMEDOUT) {
			if (p->pid > 0)
				kill(p->pid, SIGKILL);
			break;
		}
	}
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	if (unlink(p->pid_path) < 0 && errno != ENOENT)
		log_warn("cannot remove %s", p->pid_path);
	free_struct(p);
}

const char *netproxy_url(const struct netproxy *p) { return p->url; }
