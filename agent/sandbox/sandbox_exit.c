#include "sandbox_exit.h"

#include <signal.h>
#include <string.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "pidfd_exit.h"
#include "procexit.h"
#include "sandbox_cgroup.h"

struct sandbox_exit {
	enum sandbox_exit_source source; /* PIDFD, NETLINK or DOCKER, never AUTO */
	struct procexit *procexit;       /* NETLINK's subscription */
	struct docker *docker;           /* borrowed: finds an init Docker knows */
	int cgroup_version;
};

/* One container's init: its pidfd (PIDFD) or its process events' watch
 * (NETLINK). */
struct sandbox_exit_init {
	int pidfd; /* -1: none */
	struct procexit_watch *events;
	pid_t pid;   /* the init's */
	char id[65]; /* the container's */
};

static const char *source_name(enum sandbox_exit_source s)
{
	switch (s) {
	case SANDBOX_EXIT_AUTO: return "auto";
	case SANDBOX_EXIT_PIDFD: return "pidfd";
	case SANDBOX_EXIT_NETLINK: return "process events";
	case SANDBOX_EXIT_DOCKER: return "Docker";
	}
	return "unknown";
}

/* The way to take for want (logged when it is not the best one). */
static enum sandbox_exit_source pick(struct sandbox_exit *ex, enum sandbox_exit_source want)
{
	_cleanup_free_ char *err = NULL;
	const char *no_pidfd = NULL;

	if (want == SANDBOX_EXIT_DOCKER)
		return SANDBOX_EXIT_DOCKER;
	/* Asked only when it may be used: a forced other way says nothing
	 * about this kernel's pidfds. */
	if ((want == SANDBOX_EXIT_AUTO || want == SANDBOX_EXIT_PIDFD) &&
	    pidfd_exit_supported(&no_pidfd)) {
		log_debug("the ends of runs come from the kernel through pidfds");
		return SANDBOX_EXIT_PIDFD;
	}
	if ((want == SANDBOX_EXIT_AUTO || want == SANDBOX_EXIT_NETLINK) &&
	    procexit_open(&ex->procexit, &err) == 0) {
		if (want == SANDBOX_EXIT_AUTO)
			log_info("the ends of runs come from the kernel's process events: pidfds "
				 "cannot report exit statuses here (%s)", no_pidfd);
		else
			log_debug("the ends of runs come from the kernel's process events, as asked");
		return SANDBOX_EXIT_NETLINK;
	}
	if (want == SANDBOX_EXIT_AUTO)
		log_info("the ends of runs wait for Docker's exit path, some 20 ms more per run: "
			 "pidfds cannot report exit statuses here (%s), and the kernel's process "
			 "events are not available to this process (%s)", no_pidfd,
			 err ? err : "unknown");
	else
		log_info("the ends of runs wait for Docker's exit path: the %s way is not "
			 "available (%s)", source_name(want),
			 want == SANDBOX_EXIT_PIDFD ? no_pidfd : err ? err : "unknown");
	return SANDBOX_EXIT_DOCKER;
}

struct sandbox_exit *sandbox_exit_start(enum sandbox_exit_source want, struct docker *d,
				       int cgroup_version)
{
	struct sandbox_exit *ex = xcalloc(1, sizeof(*ex));

	ex->docker = d;
	ex->cgroup_version = cgroup_version;
	ex->source = pick(ex, want);
	return ex;
}

void sandbox_exit_stop(struct sandbox_exit *ex)
{
	if (!ex)
		return;
	procexit_close(ex->procexit);
	free(ex);
}

enum sandbox_exit_source sandbox_exit_source_get(const struct sandbox_exit *ex)
{
	return ex->source;
}

static int pidfd_status(void *ctx, int *status)
{
	return pidfd_exit_status(*(const int *)ctx, status);
}

static int procexit_status(void *ctx, int *status)
{
	return procexit_watch_status(ctx, status);
}

struct sandbox_exit_init *sandbox_exit_watch(struct sandbox_exit *ex, const char *id)
{
	_cleanup_free_ char *dir = NULL;
	struct docker_container_state st = { 0 };
	struct sandbox_exit_init *init;
	char *err = NULL;
	pid_t pid;
	int fd;

	if (ex->source == SANDBOX_EXIT_DOCKER)
		return NULL;
	init = xcalloc(1, sizeof(*init));
	init->pidfd = -1;
	/* The init from the container's cgroup, or else from Docker. */
	dir = sandbox_cgroup_dir(ex->cgroup_version, "pids", id);
	pid = dir ? sandbox_cgroup_init(dir) : -ENOENT;
	if (pid < 0 && docker_container_inspect(ex->docker, id, &st, &err) == DOCKER_OK &&
	    st.running)
		pid = st.pid;
	docker_container_state_clear(&st);
	/* Process events are watched before the check that the pid is still
	 * the init: an exit between the two is then seen, not missed. */
	if (pid > 0 && ex->source == SANDBOX_EXIT_NETLINK)
		init->events = procexit_watch(ex->procexit, pid);
	fd = pid > 0 ? pidfd_exit_open(pid, id) : -ESRCH;
	if (fd >= 0 && ex->source == SANDBOX_EXIT_PIDFD)
		init->pidfd = fd;
	else if (fd >= 0)
		close(fd);
	init->pid = pid;
	snprintf(init->id, sizeof(init->id), "%s", id);
	if (fd < 0 || (ex->source == SANDBOX_EXIT_NETLINK && !init->events)) {
		sandbox_exit_unwatch(ex, init);
		init = NULL;
		log_debug("cannot watch the init of container %.12s (%s): its result waits for "
			  "Docker", id, err ? err : strerror(fd < 0 ? -fd : ENOMEM));
	}
	free(err);
	return init;
}

void sandbox_exit_unwatch(struct sandbox_exit *ex, struct sandbox_exit_init *init)
{
	if (!init)
		return;
	if (init->pidfd >= 0)
		close(init->pidfd);
	procexit_unwatch(ex->procexit, init->events);
	free(init);
}

pid_t sandbox_exit_init_pid(const struct sandbox_exit_init *init)
{
	return init->pid;
}

bool sandbox_exit_release(struct sandbox_exit_init *init, struct sandbox_exit_watch *w)
{
	pid_t bootstrap;
	int fd;

	if (!init)
		return false;
	/* A pidfd of a live process in the container's cgroup: a pid recycled
	 * since the children were read is never signalled. */
	if ((bootstrap = sandbox_proc_first_child(init->pid)) <= 0 ||
	    (fd = pidfd_exit_open(bootstrap, init->id)) < 0) {
		log_debug("container %.12s: no bootstrap to wake (it has ended?): the run ends "
			  "with its init", init->id);
		return false;
	}
	if (pidfd_send_signal(fd, SIGUSR1, NULL, 0) < 0) {
		close(fd);
		return false;
	}
	/* From now on the run ends with the bootstrap: docker-init reaps it at
	 * once and exits with its status (128 + a signal's number for a killed
	 * one, as pidfd_exit_code() reads a wait status), while the init's own
	 * reap waits for containerd's shim, several milliseconds later, more
	 * under load. Only a pidfd watch still waiting for the init changes. */
	if (w && init->pidfd >= 0 && w->fd == init->pidfd && !w->ended_seen) {
		close(init->pidfd);
		init->pidfd = fd;
		w->fd = fd;
	} else {
		close(fd);
	}
	return true;
}

void sandbox_exit_pump_watch(struct sandbox_exit_init *init, struct sandbox_exit_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (init && init->pidfd >= 0) {
		w->fd = init->pidfd;
		w->get_status = pidfd_status;
		w->ctx = &init->pidfd;
	} else if (init && init->events) {
		w->fd = procexit_watch_fd(init->events);
		w->get_status = procexit_status;
		w->ctx = init->events;
	}
}
