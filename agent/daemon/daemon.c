/* The event loop: source of names (watch or mount) -> intake (taking names
 * in: daemon_take.c) -> jobs;
 * signals; retries; status.json. */
#include "daemon.h"
#include "daemon_loop.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "daemon_inflight.h"
#include "daemon_mount.h"
#include "dropfs.h"
#include "fileio.h"
#include "log.h"
#include "monoclock.h"
#include "names.h"
#include "place.h"
#include "quarantine.h"


#define STATUS_EVERY_MS 1000u
#define STATUS_BUSY_MS 100u

static void wake(void *arg)
{
	struct daemon *d = arg;
	uint64_t one = 1;
	if (write(d->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("cannot wake the event loop");
}

static void write_status(struct daemon *d)
{
	struct jobs_stats js;
	struct timespec now, checked = { 0 };
	_cleanup_free_ char *why = NULL;
	struct daemon_status_facts f = { .drop_dir = d->cfg->agent.drop_dir,
					 .drop_mode = d->cfg->agent.drop_mode == CONFIG_DROP_MOUNT ?
						      "mount" : "watch",
					 .watching = drop_source_present(d->source),
					 .config_sha256 = d->reloaded ? d->reloaded->sha256
								      : d->cfg->sha256,
					 .config_dir = d->config_dir,
					 .docker_checked = &checked };

	jobs_get_stats(d->jobs, &js);
	clock_gettime(CLOCK_MONOTONIC, &now);
	f.uptime_s = now.tv_sec - d->started.tv_sec;
	/* Names not taken in yet wait as much as queued jobs do. */
	f.queued = js.queued + (unsigned)daemon_intake_count(d->intake);
	f.running = js.running;
	f.workers = js.workers;
	f.submitted = js.submitted;
	f.superseded = js.superseded;
	f.retrying = daemon_retries_count(d->env.retries);
	if (d->stages && d->stages->docker_health)
		f.docker_known = d->stages->docker_health(d->stages->ctx, &f.docker_reachable,
							  &checked, &why);
	if (d->stages && d->stages->runtimes)
		d->stages->runtimes(d->stages->ctx, f.runtimes, &f.runtime_warning);
	f.docker_error = why;
	_cleanup_free_ char *audit_why = NULL;
	enum audit_health h = daemon_audit_state(d, &audit_why);
	if (h == AUDIT_HEALTH_OK && !atomic_load(&d->env.stopping) && d->stages && d->stages->audit_health)
		atomic_store(&d->env.halt, false);
	f.audit_state = audit_health_to_string(h);
	f.audit_message = audit_why;
	if (d->stages && d->stages->pool_size)
		f.pool_size = d->stages->pool_size(d->stages->ctx);
	json_t *engine = d->stages && d->stages->engine ? d->stages->engine(d->stages->ctx) : NULL;
	f.engine = engine;
	int r = daemon_status_write(d->env.status, d->cfg->agent.state_dir, &f);
	json_decref(engine);
	if (r < 0)
		log_warnx("cannot write %s/%s: %s", d->cfg->agent.state_dir, DAEMON_STATUS_NAME,
			  strerror(-r));
}

/* sd_notify without libsystemd: one datagram to $NOTIFY_SOCKET. */
static void notify(const char *state)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n;

	if (!sock || !*sock || (sock[0] != '/' && sock[0] != '@'))
		return;
	n = strlen(sock);
	if (n >= sizeof(sa.sun_path))
		return;
	memcpy(sa.sun_path, sock, n);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)) < 0)
		log_warn("cannot notify the service manager");
}

struct approvers *daemon_approvers_from_config(const struct mai_config *cfg)
{
	const struct config_security *s = &cfg->security;
	return approvers_new((const char *const *)s->approvers.users.items, s->approvers.users.n,
			     (const char *const *)s->approvers.groups.items, s->approvers.groups.n,
			     s->allow_self_approval);
}

/* The approvers of cfg, after saying which of them name no account. */
static struct approvers *load_approvers(const struct mai_config *cfg)
{
	struct approvers *a = daemon_approvers_from_config(cfg);
	_cleanup_free_ char *unknown = approvers_unknown(a);
	for (char *line = unknown, *nl; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = '\0';
		/* The default group need not exist; a name someone wrote should. */
		if (strcmp(line, "group " APPROVERS_DEFAULT_GROUP) == 0)
			log_info("approvers: %s does not exist (yet): nobody approves through it",
				 line);
		else
			log_warnx("approvers: %s does not exist: nobody approves through it until "
				  "it does (approvers in security.yaml)", line);
	}
	_cleanup_free_ char *who = approvers_describe(a);
	log_info("approvers: %s%s", who,
		 approvers_allow_self(a) ? ", who may approve what they wrote themselves"
					 : ", never for a script they wrote themselves");
	return a;
}

/* The settings of cfg that apply at once, to what starts afterwards. */
static void apply_live(struct daemon *d, const struct mai_config *cfg)
{
	d->max_file_size = cfg->agent.max_file_size;
	if (d->jobs)
		jobs_set_max_per_owner(d->jobs, (unsigned)cfg->agent.max_jobs_per_writer);
	if (d->source) {
		drop_source_set_settle_ms(d->source, (unsigned)cfg->agent.settle_delay_ms);
		drop_source_set_max_size(d->source, cfg->agent.max_file_size);
	}
	atomic_store(&d->env.diff_max, cfg->audit.diff_max);
	daemon_retries_set_max(d->env.retries, cfg->agent.docker.retry_backoff_max_ms);
}

/* SIGHUP: everything that can change at run time changes for the jobs that
 * start afterwards; the keys that need a restart keep the running value
 * (d->cfg), each named in a warning and in the audit record. */
static void reload(struct daemon *d)
{
	struct mai_config *cfg = NULL;
	char *err = NULL;

	if (!d->config_dir) {
		log_warnx("SIGHUP: no configuration directory to reload");
		return;
	}
	if (config_load(d->config_dir, &cfg, &err) < 0 ||
	    (d->stages && d->stages->reload &&
	     d->stages->reload(d->stages->ctx, cfg, d->config_dir, &err) < 0)) {
		log_errorx("SIGHUP: the new configuration is refused, the running one stays: %s",
			   err);
		free(err);
		config_free(cfg);
		return;
	}
	log_set_level((enum log_level)cfg->agent.log_level);
	apply_live(d, cfg);
	daemon_job_set_approvers(&d->env, load_approvers(cfg));
	json_t *restart = config_restart_changes(d->cfg, cfg);
	size_t i;
	json_t *key;
	json_array_foreach(restart, i, key)
		log_warnx("SIGHUP: %s changed in %s; it takes effect at the next start (the "
			  "running agent keeps the old value)", json_string_value(key),
			  d->config_dir);
	if (d->stages && d->stages->audit) {
		json_t *f = json_pack("{s:s, s:b, s:O}", "config_sha256", cfg->sha256, "reload", 1,
				      "restart_required", restart);
		uint64_t seq;
		if (d->stages->audit(d->stages->ctx, AUDIT_EVENT_CONFIG_LOADED, f, &seq) < 0)
			log_errorx("SIGHUP: cannot audit the reload");
		json_decref(f);
	}
	json_decref(restart);
	log_info("configuration reloaded (sha256 %.12s)", cfg->sha256);
	config_free(d->reloaded);
	d->reloaded = cfg;
}

static void handle_signals(struct daemon *d)
{
	struct signalfd_siginfo si;
	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			reload(d);
		} else {
			/* Who asked, for an operator who wonders why it stopped. */
			char comm[32] = "?";
			_cleanup_free_ char *cpath = xasprintf("/proc/%u/comm", si.ssi_pid);
			_cleanup_fclose_ FILE *cf = si.ssi_pid ? fopen(cpath, "re") : NULL;
			if (cf && fgets(comm, sizeof(comm), cf))
				comm[strcspn(comm, "\n")] = '\0';
			log_info("%s from pid %u (%s): stopping", strsignal((int)si.ssi_signo),
				 si.ssi_pid, comm);
			atomic_store(&d->stop, true);
		}
	}
}

static int min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

int daemon_run(struct daemon *d)
{
	uint64_t last_status = 0;
	int ret = 0;

	write_status(d);
	notify("READY=1");
	log_info("ready: %s %s with %lld worker(s)",
		 d->cfg->agent.drop_mode == CONFIG_DROP_MOUNT ? "serving (mount mode)" : "watching",
		 d->cfg->agent.drop_dir, (long long)d->cfg->agent.workers);
	while (!atomic_load(&d->stop)) {
		struct epoll_event evs[8];
		int t = min_timeout(drop_source_timeout_ms(d->source), daemon_take_retries(d));
		t = min_timeout(t, (int)STATUS_EVERY_MS);
		if (daemon_intake_count(d->intake) > 0)
			t = 0; /* names wait: look for new ones, then take more in */
		int n = epoll_wait(d->epfd, evs, ARRAY_SIZE(evs), t);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			log_error("epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			if (fd == d->sigfd) {
				handle_signals(d);
			} else if (fd == d->wakefd) {
				uint64_t v;
				if (read(d->wakefd, &v, sizeof(v)) < 0 && errno != EAGAIN)
					log_warn("eventfd");
			}
		}
		int r = drop_source_process(d->source);
		if (r < 0)
			log_warnx("reading the drop directory's events: %s", strerror(-r));
		daemon_take_due(d);
		uint64_t now = (uint64_t)monoclock_ms();
		/* While names wait for intake the loop goes round every slice:
		 * status.json follows at most every STATUS_BUSY_MS then. */
		bool busy = daemon_intake_count(d->intake) > 0;
		if ((daemon_status_dirty(d->env.status) && (!busy || now - last_status >= STATUS_BUSY_MS)) ||
		    now - last_status >= STATUS_EVERY_MS) {
			/* Answers a full disk held back, as soon as it has room. */
			daemon_sidecars_place_pending(d->env.sidecars);
			write_status(d);
			last_status = now;
		}
	}
	notify("STOPPING=1");
	/* Running jobs are killed by the sandbox (and recorded as such by
	 * their worker); queued ones are found again by the next start. */
	atomic_store(&d->env.stopping, true);
	atomic_store(&d->env.halt, true);
	if (d->stages && d->stages->cancel_all)
		d->stages->cancel_all(d->stages->ctx);
	jobs_stop(d->jobs);
	write_status(d);
	log_info("stopped");
	return ret;
}

void daemon_request_stop(struct daemon *d)
{
	atomic_store(&d->stop, true);
	wake(d);
}

/* What the sweep at start moved aside (quarantine.h): recorded. The
 * script's answer is given again when its name is taken (the scan
 * follows): content that has its final answer gets the agent's copy of it
 * placed again (answer_restored, daemon_sidecars.h), as an approved script
 * must not be held again; content without a kept copy runs again. */
static void on_moved_aside(void *arg, const char *rel, const char *moved_to, const char *what,
			   const char *script)
{
	struct daemon *d = arg;
	if (!d->stages || !d->stages->audit)
		return;
	_cleanup_free_ char *f1 = names_printable(rel), *f2 = names_printable(moved_to);
	_cleanup_free_ char *f3 = names_printable(script);
	json_t *f = json_pack("{s:s, s:s, s:s, s:s}", "file", f1, "moved_to", f2, "what", what,
			      "script", f3);
	uint64_t seq;
	if (d->stages->audit(d->stages->ctx, AUDIT_EVENT_MOVED_ASIDE, f, &seq) < 0)
		log_errorx("%s: its move aside cannot be recorded in the audit log", f1);
	json_decref(f);
}

/* The source of names agent.drop_mode asks for, with the drop directory's
 * permissions and group applied. 0 or -errno with *err. */
int daemon_check_drop_fs(const struct mai_config *cfg, char **err)
{
	const struct config_agent *ag = &cfg->agent;
	if (geteuid() != 0)
		return 0;
	_cleanup_close_ int dfd = open(ag->drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = dfd < 0 ? 0 : dirwrite_marks_supported(dfd);
	if (r == -ENOTSUP)
		*err = xasprintf("the drop directory %s is on a file system that keeps no extended "
				 "attributes (ramfs, vfat, some network file systems): the agent "
				 "marks the answers it gives to each script's writer with one "
				 "(%s)%s, and could not tell them from anyone else's files there. Put "
				 "the drop directory on a file system that keeps them (ext4, xfs, "
				 "btrfs, tmpfs) and start the agent again (agent.drop_dir in "
				 "agent.yaml)", ag->drop_dir, DIRWRITE_MARK_XATTR,
				 ag->drop_mode == CONFIG_DROP_MOUNT
					 ? " and in mount mode keeps the directory's permissions in "
					   "another across restarts" : "");
	else if (r < 0)
		log_warnx("cannot check that %s keeps extended attributes: %s", ag->drop_dir,
			  strerror(-r));
	return r == -ENOTSUP ? r : 0;
}

static int open_source(struct daemon *d, char **err)
{
	const struct config_agent *ag = &d->cfg->agent;
	int r = daemon_check_drop_fs(d->cfg, err);
	if (r < 0)
		return r;

	if (ag->drop_mode == CONFIG_DROP_MOUNT) {
		_cleanup_free_ char *notes = xasprintf("%s/%s", ag->state_dir, DAEMON_WRITING_DIR);
		struct dropfs_options fo = {
			.dir = ag->drop_dir, .recursive = ag->recursive,
			.max_file_size = ag->max_file_size, .dir_mode = ag->drop_dir_mode,
			.dir_group = ag->drop_dir_group,
			.answer_allowed = daemon_mount_answer_allowed,
			.refused = daemon_mount_refused, .renamed = daemon_mount_renamed,
			.arg = &d->env, .notes_dir = notes,
		};
		r = dropfs_new(&fo, daemon_take_name, d, &d->source, err);
	} else {
		_cleanup_close_ int dfd = open(ag->drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0) {
			r = -errno;
			*err = xasprintf("cannot open the drop directory %s: %s (agent.drop_dir in "
					 "agent.yaml)", ag->drop_dir, strerror(-r));
			return r;
		}
		r = drop_dir_prepare(dfd, ag->drop_dir, ag->drop_dir_mode, ag->drop_dir_group, err);
		if (r < 0)
			return r;
		struct watch_options wo = { .dir = ag->drop_dir, .recursive = ag->recursive,
					    .settle_ms = (unsigned)ag->settle_delay_ms };
		r = drop_source_watch_new(&wo, daemon_take_name, d, &d->source, err);
	}
	if (r < 0)
		return r;
	/* The agent's own files go where the source says (the directory
	 * underneath a mount); before any name is reported, what a crash left
	 * half-written there goes. */
	d->env.source = d->source;
	d->env.place.drop_dir = drop_source_dir(d->source);
	drop_source_set_max_size(d->source, d->max_file_size);
	place_clear_temporaries(d->env.place.drop_dir, ag->recursive);
	/* What is moved aside goes to the state directory's quarantine/,
	 * out of the drop group's reach, when a rename can take it there. */
	_cleanup_free_ char *holder = xasprintf("%s/%s", ag->state_dir, DAEMON_QUARANTINE_DIR);
	_cleanup_close_ int dfd = open(d->env.place.drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (quarantine_set_holder(holder) < 0)
		log_warn("cannot create %s: what is moved aside goes to %s of its directory",
			 holder, QUARANTINE_DIR);
	else if (dfd >= 0 && !quarantine_holder_reaches(dfd))
		log_warnx("%s is on another file system than the drop directory %s: what is moved "
			  "aside goes to %s of its directory instead (root's, 0700, but a member of "
			  "the drop group may rename it away in watch mode); put agent.state_dir on "
			  "the drop directory's file system", holder, ag->drop_dir, QUARANTINE_DIR);
	/* What was put at the agent's and the approvers' names while it was
	 * stopped goes aside before any name is taken. */
	quarantine_sweep(d->env.place.drop_dir, ag->recursive, on_moved_aside, d);
	return 0;
}

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

void daemon_block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	pthread_sigmask(SIG_BLOCK, set, NULL);
}

int daemon_new(const struct daemon_options *o, struct daemon **out, char **err)
{
	struct daemon *d = xcalloc(1, sizeof(*d));
	const struct config_agent *ag = &o->cfg->agent;
	int r;

	d->cfg = o->cfg;
	/* Absolute, as status.json gives it to the commands (a relative one
	 * would name another directory from their working directory). */
	d->config_dir = o->config_dir ? realpath(o->config_dir, NULL) : NULL;
	if (o->config_dir && !d->config_dir)
		d->config_dir = xstrdup(o->config_dir);
	d->stages = o->stages;
	d->epfd = d->sigfd = d->wakefd = -1;
	d->writers = strmap_new(free);
	d->intake = daemon_intake_new();
	d->env = (struct daemon_job_env){
		.cfg = o->cfg, .stages = o->stages, .status = daemon_status_new(),
		.retries = daemon_retries_new(o->retry_base_ms ? o->retry_base_ms : 1000,
					      ag->docker.retry_backoff_max_ms),
		.grants = daemon_grants_new(), .resumes = daemon_resumes_new(), .wake = wake, .wake_arg = d,
	};
	d->env.sidecars = daemon_sidecars_new(ag->state_dir, daemon_job_place_again, &d->env);
	pthread_mutex_init(&d->env.result_lock, NULL);
	pthread_mutex_init(&d->env.approvers_lock, NULL);
	d->fallback_dir = xasprintf("%s/%s", ag->state_dir, PLACE_FALLBACK_DIR);
	d->env.place = (struct place_dirs){ .drop_dir = ag->drop_dir,
					    .fallback_dir = d->fallback_dir };
	d->env.approvers = load_approvers(o->cfg);
	apply_live(d, o->cfg);
	clock_gettime(CLOCK_MONOTONIC, &d->started);

	r = fileio_mkdir_p(ag->state_dir, 0700);
	if (r < 0) {
		*err = xasprintf("cannot create the state directory %s: %s (agent.state_dir in "
				 "agent.yaml)", ag->state_dir, strerror(-r));
		goto fail;
	}
	/* Searchable, not listable: anyone may read status.json ('mai-agent
	 * status' as any member of the drop group; it names no user's script),
	 * while everything else in it stays the agent's (0700 directories, 0600
	 * files). */
	struct stat sst;
	if (stat(ag->state_dir, &sst) == 0 && sst.st_uid == geteuid() &&
	    (sst.st_mode & 0777) == 0700 && chmod(ag->state_dir, 0711) < 0)
		log_warn("cannot let others read %s/%s", ag->state_dir, DAEMON_STATUS_NAME);
	/* Runs a killed agent left in flight are recorded before anything runs
	 * again (daemon_inflight.h). */
	r = daemon_inflight_recover(ag->state_dir, o->stages, err);
	if (r < 0)
		goto fail;
	if (o->handle_signals) {
		sigset_t set;
		/* Blocked before the workers start, so that they inherit it. */
		daemon_block_signals(&set);
		d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
		if (d->sigfd < 0) {
			r = -errno;
			*err = xasprintf("cannot create a signalfd: %s", strerror(-r));
			goto fail;
		}
	}
	struct jobs_options jo = { .workers = (unsigned)ag->workers, .state_dir = ag->state_dir,
				   .run = daemon_job_run, .free_payload = daemon_job_free,
				   .accepted = daemon_take_accepted, .arg = &d->env,
				   .max_per_owner = (unsigned)ag->max_jobs_per_writer };
	r = jobs_new(&jo, &d->jobs, err);
	if (r < 0)
		goto fail;
	d->env.jobs = d->jobs;
	r = open_source(d, err);
	if (r < 0)
		goto fail;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->epfd < 0 || d->wakefd < 0) {
		r = -errno;
		*err = xasprintf("cannot set up the event loop: %s", strerror(-r));
		goto fail;
	}
	if ((r = epoll_add(d->epfd, drop_source_fd(d->source))) < 0 ||
	    (r = epoll_add(d->epfd, d->wakefd)) < 0 ||
	    (d->sigfd >= 0 && (r = epoll_add(d->epfd, d->sigfd)) < 0)) {
		*err = xasprintf("cannot set up the event loop: %s", strerror(-r));
		goto fail;
	}
	*out = d;
	return 0;
fail:
	daemon_free(d);
	return r;
}

void daemon_free(struct daemon *d)
{
	if (!d)
		return;
	jobs_free(d->jobs);
	/* After the workers: the last results go to the mount's backing
	 * directory and tell the mount, which is unmounted here. */
	drop_source_free(d->source);
	/* After the workers, the last to move anything aside. */
	quarantine_set_holder(NULL);
	daemon_intake_free(d->intake);
	strmap_free(d->writers);
	daemon_retries_free(d->env.retries);
	daemon_grants_free(d->env.grants);
	daemon_resumes_free(d->env.resumes);
	daemon_sidecars_free(d->env.sidecars);
	daemon_status_free(d->env.status);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->wakefd >= 0)
		close(d->wakefd);
	config_free(d->reloaded);
	free(d->config_dir);
	free(d->fallback_dir);
	approvers_unref(d->env.approvers);
	pthread_mutex_destroy(&d->env.result_lock);
	pthread_mutex_destroy(&d->env.approvers_lock);
	free(d);
}
