/* How the sandbox learns that a container's init has ended, and with what
 * status, from the kernel instead of Docker (sandbox_attach.h): a pidfd
 * per container where the kernel reports exit statuses through pidfds
 * (probed: pidfd_exit.h), else one subscription to the kernel's process
 * events. */
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "pidfd_exit.h"
#include "procexit.h"
#include "sandbox_cgroup.h"
#include "sandbox_internal.h"

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

void sandbox_exit_start(struct sandbox *sb, enum sandbox_exit_source want)
{
	_cleanup_free_ char *err = NULL;
	const char *no_pidfd = NULL;

	sb->exit_source = SANDBOX_EXIT_DOCKER;
	if (want == SANDBOX_EXIT_DOCKER)
		return;
	/* Asked only when it may be used: a forced other way says nothing
	 * about this kernel's pidfds. */
	if ((want == SANDBOX_EXIT_AUTO || want == SANDBOX_EXIT_PIDFD) &&
	    pidfd_exit_supported(&no_pidfd)) {
		sb->exit_source = SANDBOX_EXIT_PIDFD;
		log_debug("the ends of runs come from the kernel through pidfds");
		return;
	}
	if ((want == SANDBOX_EXIT_AUTO || want == SANDBOX_EXIT_NETLINK) &&
	    procexit_open(&sb->procexit, &err) == 0) {
		sb->exit_source = SANDBOX_EXIT_NETLINK;
		if (want == SANDBOX_EXIT_AUTO)
			log_info("the ends of runs come from the kernel's process events: pidfds "
				 "cannot report exit statuses here (%s)", no_pidfd);
		else
			log_debug("the ends of runs come from the kernel's process events, as asked");
		return;
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
}

void sandbox_exit_stop(struct sandbox *sb)
{
	procexit_close(sb->procexit);
	sb->procexit = NULL;
}

static int pidfd_status(void *ctx, int *status)
{
	return pidfd_exit_status(*(const int *)ctx, status);
}

static int procexit_status(void *ctx, int *status)
{
	return procexit_watch_status(ctx, status);
}

void sandbox_exit_watch(struct sandbox *sb, enum trust trust, struct sandbox_container *c)
{
	_cleanup_free_ char *dir = NULL;
	struct docker_container_state st = { 0 };
	char *err = NULL;
	pid_t pid;
	int fd;

	/* gVisor's init is the Sentry's task, not a host process. */
	if (sb->exit_source == SANDBOX_EXIT_DOCKER || sandbox_is_gvisor(sb, trust))
		return;
	/* The init from the container's cgroup, or else from Docker. */
	dir = sandbox_cgroup_dir(sb->cgroup_version, "pids", c->id);
	pid = dir ? sandbox_cgroup_init(dir) : -ENOENT;
	if (pid < 0 && docker_container_inspect(sb->docker, c->id, &st, &err) == DOCKER_OK &&
	    st.running)
		pid = st.pid;
	docker_container_state_clear(&st);
	/* Process events are watched before the check that the pid is still
	 * the init: an exit between the two is then seen, not missed. */
	if (pid > 0 && sb->exit_source == SANDBOX_EXIT_NETLINK)
		c->init_watch = procexit_watch(sb->procexit, pid);
	fd = pid > 0 ? pidfd_exit_open(pid, c->id) : -ESRCH;
	if (fd >= 0 && sb->exit_source == SANDBOX_EXIT_PIDFD) {
		c->init_pidfd = fd;
		c->has_pidfd = true;
	} else if (fd >= 0) {
		close(fd);
	}
	if (fd < 0 || (sb->exit_source == SANDBOX_EXIT_NETLINK && !c->init_watch)) {
		sandbox_exit_unwatch(sb, c);
		log_debug("cannot watch the init of container %.12s (%s): its result waits for "
			  "Docker", c->id, err ? err : strerror(fd < 0 ? -fd : ENOMEM));
	}
	free(err);
}

void sandbox_exit_unwatch(struct sandbox *sb, struct sandbox_container *c)
{
	if (c->has_pidfd)
		close(c->init_pidfd);
	c->has_pidfd = false;
	procexit_unwatch(sb->procexit, c->init_watch);
	c->init_watch = NULL;
}

void sandbox_exit_pump_watch(struct sandbox_container *c, struct sandbox_exit_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (c->has_pidfd) {
		w->fd = c->init_pidfd;
		w->get_status = pidfd_status;
		w->ctx = &c->init_pidfd;
	} else if (c->init_watch) {
		w->fd = procexit_watch_fd(c->init_watch);
		w->get_status = procexit_status;
		w->ctx = c->init_watch;
	}
}
