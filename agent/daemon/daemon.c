/* The event loop: watch -> intake -> jobs; signals; retries; status.json. */
#include "daemon_int.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fileio.h"
#include "log.h"
#include "monoclock.h"
#include "names.h"

#define STATUS_EVERY_MS 1000u

static void wake(struct daemon *d)
{
	uint64_t one = 1;
	if (write(d->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("cannot wake the event loop");
}

void daemon_write_result(struct daemon *d, const struct result_info *r)
{
	char *err = NULL;

	pthread_mutex_lock(&d->result_lock);
	int rc = result_write(d->cfg->agent.drop_dir, r, &err);
	pthread_mutex_unlock(&d->result_lock);
	if (rc < 0) {
		log_errorx("%s", err);
		free(err);
	}
	pthread_mutex_lock(&d->lock);
	/* Answers by state: the transient queued/running sidecars do not count. */
	if ((unsigned)r->state <= RESULT_ERROR && r->state != RESULT_QUEUED &&
	    r->state != RESULT_RUNNING)
		d->counts_state[r->state]++;
	d->status_dirty = true;
	pthread_mutex_unlock(&d->lock);
	if (r->state == RESULT_ERROR) {
		/* The operator sees why, not only that. */
		_cleanup_free_ char *p = names_printable(r->file);
		log_warnx("%s: error: %s", p, r->detail ? r->detail : "(no detail)");
	} else if (log_get_level() >= LOG_LEVEL_INFO) {
		_cleanup_free_ char *p = names_printable(r->file);
		log_info("%s: %s%s%s", p, result_state_to_string(r->state),
			 r->state == RESULT_COMPLETED ? " " : "",
			 r->state == RESULT_COMPLETED ? result_verdict_to_string(r->verdict) : "");
	}
}

void daemon_schedule_retry(struct daemon *d, const char *name)
{
	pthread_mutex_lock(&d->lock);
	struct daemon_retry *rt = strmap_get(d->retries, name);
	if (!rt) {
		rt = xcalloc(1, sizeof(*rt));
		strmap_put(d->retries, name, rt);
	}
	/* Doubling from the base, capped by docker.retry_backoff_max. */
	uint64_t delay = (uint64_t)d->retry_base_ms << (rt->attempts < 20 ? rt->attempts : 20);
	if (delay > d->retry_backoff_max_ms)
		delay = d->retry_backoff_max_ms;
	rt->attempts++;
	rt->due_ms = (uint64_t)monoclock_ms() + delay;
	pthread_mutex_unlock(&d->lock);
	wake(d);
}

void daemon_clear_retry(struct daemon *d, const char *name)
{
	pthread_mutex_lock(&d->lock);
	strmap_remove(d->retries, name);
	pthread_mutex_unlock(&d->lock);
}

/* Writes a sidecar for a file that never became a job (rejected at intake). */
static void reject(struct daemon *d, const char *name, const char *reason, const char *message)
{
	struct result_info r = { .file = name, .state = RESULT_REJECTED, .reason = reason,
				 .detail = message, .decision = { .uid = -1 } };
	clock_gettime(CLOCK_REALTIME, &r.accepted);
	r.finished = r.accepted;
	daemon_write_result(d, &r);
}

/* Takes name in and queues it. force: a user's answer arrived for it. */
static void take(struct daemon *d, const char *name, bool force)
{
	const char *slash = strrchr(name, '/');
	_cleanup_free_ char *dir = slash ? xasprintf("%s/%.*s", d->cfg->agent.drop_dir,
						     (int)(slash - name), name)
					 : xstrdup(d->cfg->agent.drop_dir);
	_cleanup_free_ char *printable = names_printable(name);
	struct intake_options io = { .max_size = d->max_file_size };
	struct daemon_job *job = xcalloc(1, sizeof(*job));
	int err = 0;

	/* The directory is opened anew each time: the drop directory may have
	 * been replaced since. O_NOFOLLOW keeps a symlinked subdirectory out. */
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	enum intake_status s = dfd < 0 ? INTAKE_VANISHED :
		intake_read(dfd, slash ? slash + 1 : name, &io, &job->snap, &err);
	if (s != INTAKE_OK) {
		daemon_job_free(job);
		if (s == INTAKE_VANISHED) {
			log_debug("%s: gone before it could be read; nothing to answer", printable);
			return;
		}
		if (s == INTAKE_IO_ERROR)
			log_warnx("%s: cannot read it: %s", printable, strerror(err));
		reject(d, name, intake_status_to_string(s), intake_status_message(s));
		return;
	}
	job->name = xstrdup(name);
	clock_gettime(CLOCK_REALTIME, &job->accepted);
	_cleanup_free_ char *sha = xstrdup(job->snap.sha256);
	enum jobs_submit_result jr = jobs_submit(d->jobs, name, sha, force, job);
	log_debug("%s: %s (%.12s)", printable, jobs_submit_result_to_string(jr), sha);
}

/* Under the pool's lock, before a worker can take the job (jobs.h). */
static void on_accepted(void *arg, const struct jobs_item *item)
{
	struct daemon *d = arg;
	const struct daemon_job *job = item->payload;
	struct result_info r = { .file = job->name, .sha256 = job->snap.sha256,
				 .size = job->snap.len, .state = RESULT_QUEUED,
				 .accepted = job->accepted, .decision = { .uid = -1 } };
	daemon_write_result(d, &r);
}

static void on_name(void *arg, const char *rel, enum names_kind kind)
{
	struct daemon *d = arg;

	switch (kind) {
	case NAMES_SCRIPT:
		take(d, rel, false);
		break;
	case NAMES_APPROVE:
	case NAMES_OVERRIDE: {
		_cleanup_free_ char *script = names_script_for_answer(rel);
		if (script)
			take(d, script, true);
		break;
	}
	case NAMES_BAD_NAME:
		reject(d, rel, "bad_name", "The file name is not valid UTF-8, so results cannot "
		       "name it: rename the file (mv) to a UTF-8 name.");
		break;
	case NAMES_IGNORED:
		break;
	}
}

struct due_ctx {
	uint64_t now;
	char *names[64];
	size_t n;
	uint64_t next;
};

static void collect_due(const char *key, void *value, void *arg)
{
	struct due_ctx *c = arg;
	struct daemon_retry *rt = value;
	if (rt->due_ms <= c->now) {
		if (c->n < ARRAY_SIZE(c->names))
			c->names[c->n++] = xstrdup(key);
	} else if (rt->due_ms < c->next) {
		c->next = rt->due_ms;
	}
}

/* Retakes the names whose retry is due; returns ms until the next one. */
static int run_retries(struct daemon *d)
{
	struct due_ctx c = { .now = (uint64_t)monoclock_ms(), .next = UINT64_MAX };

	pthread_mutex_lock(&d->lock);
	strmap_foreach(d->retries, collect_due, &c);
	for (size_t i = 0; i < c.n; i++) {
		/* Keep the attempt count for the backoff; only the due time moves. */
		struct daemon_retry *rt = strmap_get(d->retries, c.names[i]);
		rt->due_ms = UINT64_MAX;
	}
	pthread_mutex_unlock(&d->lock);
	for (size_t i = 0; i < c.n; i++) {
		log_info("retrying %s", c.names[i]);
		/* Forced: the index may hold an earlier held state of this very
		 * content (awaiting_confirmation before the approval came). */
		take(d, c.names[i], true);
		free(c.names[i]);
	}
	if (c.n == ARRAY_SIZE(c.names))
		return 0;
	return c.next == UINT64_MAX ? -1 : (int)(c.next - c.now);
}

/* docker_reachable (null: not known), and when and why as checked. */
static void set_docker_health(struct daemon *d, json_t *o)
{
	bool up = false;
	struct timespec at;
	_cleanup_free_ char *why = NULL;
	char when[40];

	if (!d->stages || !d->stages->docker_health ||
	    !d->stages->docker_health(d->stages->ctx, &up, &at, &why)) {
		json_object_set_new(o, "docker_reachable", json_null());
		return;
	}
	result_format_time(&at, when, sizeof(when));
	json_object_set_new(o, "docker_reachable", json_boolean(up));
	json_object_set_new(o, "docker_checked", json_string(when));
	if (why)
		json_object_set_new(o, "docker_error", json_string(why));
}

static void write_status(struct daemon *d)
{
	struct jobs_stats js;
	struct timespec now;
	json_t *states = json_object(), *levels = json_object();
	static const char *const level_names[] = { "LOW", "MEDIUM", "HIGH", "BLOCKED" };

	jobs_get_stats(d->jobs, &js);
	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&d->lock);
	for (unsigned i = RESULT_COMPLETED; i <= RESULT_ERROR; i++)
		json_object_set_new(states, result_state_to_string(i),
				    json_integer(d->counts_state[i]));
	for (unsigned i = 0; i <= LEVEL_BLOCKED; i++)
		json_object_set_new(levels, level_names[i], json_integer(d->counts_level[i]));
	size_t retrying = strmap_size(d->retries);
	d->status_dirty = false;
	pthread_mutex_unlock(&d->lock);

	json_t *o = json_pack("{s:i, s:s, s:I, s:I, s:s, s:b,"
			      " s:{s:i, s:i, s:i, s:I, s:I, s:I}, s:o, s:o, s:s}",
		"schema_version", 1, "agent_version", MAI_VERSION,
		"pid", (json_int_t)getpid(),
		"uptime_s", (json_int_t)(now.tv_sec - d->started.tv_sec),
		"drop_dir", d->cfg->agent.drop_dir,
		"watching", watch_dir_present(d->watch),
		"queue", "queued", js.queued, "running", js.running, "workers", js.workers,
		"retrying", (json_int_t)retrying, "submitted", (json_int_t)js.submitted,
		"superseded", (json_int_t)js.superseded,
		"states", states, "levels", levels,
		"config_sha256", d->reloaded ? d->reloaded->sha256 : d->cfg->sha256);
	set_docker_health(d, o);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	_cleanup_free_ char *path = xasprintf("%s/%s", d->cfg->agent.state_dir, DAEMON_STATUS_NAME);
	/* Rewritten at every change and every second: not worth an fsync. */
	int r = fileio_write_replace(path, text, strlen(text), 0644);
	if (r < 0)
		log_warnx("cannot write %s: %s", path, strerror(-r));
	free(text);
}

enum daemon_liveness daemon_liveness(long long pid, long long age_s)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return DAEMON_GONE;
	return age_s >= 0 && age_s <= DAEMON_STATUS_STALE_S ? DAEMON_RUNNING : DAEMON_STUCK;
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

/* The settings of cfg that apply at once, to what starts afterwards. */
static void apply_live(struct daemon *d, const struct mai_config *cfg)
{
	d->max_file_size = cfg->agent.max_file_size;
	if (d->watch)
		watch_set_settle_ms(d->watch, (unsigned)cfg->agent.settle_delay_ms);
	atomic_store(&d->diff_max, cfg->audit.diff_max);
	pthread_mutex_lock(&d->lock);
	d->retry_backoff_max_ms = cfg->agent.docker.retry_backoff_max_ms;
	pthread_mutex_unlock(&d->lock);
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
			log_info("%s: stopping", strsignal((int)si.ssi_signo));
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
	log_info("ready: watching %s with %lld worker(s)", d->cfg->agent.drop_dir,
		 (long long)d->cfg->agent.workers);
	while (!atomic_load(&d->stop)) {
		struct epoll_event evs[8];
		int t = min_timeout(watch_timeout_ms(d->watch), run_retries(d));
		t = min_timeout(t, (int)STATUS_EVERY_MS);
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
		int r = watch_process(d->watch);
		if (r < 0)
			log_warnx("reading inotify events: %s", strerror(-r));
		uint64_t now = (uint64_t)monoclock_ms();
		if (d->status_dirty || now - last_status >= STATUS_EVERY_MS) {
			write_status(d);
			last_status = now;
		}
	}
	notify("STOPPING=1");
	/* Running jobs are killed by the sandbox (and recorded as such by
	 * their worker); queued ones are found again by the next start. */
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

static int epoll_add(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void retry_free(void *p) { free(p); }

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
	d->config_dir = o->config_dir ? xstrdup(o->config_dir) : NULL;
	d->stages = o->stages;
	d->retry_base_ms = o->retry_base_ms ? o->retry_base_ms : 1000;
	d->epfd = d->sigfd = d->wakefd = -1;
	pthread_mutex_init(&d->lock, NULL);
	apply_live(d, o->cfg);
	pthread_mutex_init(&d->result_lock, NULL);
	d->retries = strmap_new(retry_free);
	d->granted = strmap_new(daemon_grant_free);
	clock_gettime(CLOCK_MONOTONIC, &d->started);

	r = fileio_mkdir_p(ag->state_dir, 0700);
	if (r < 0) {
		*err = xasprintf("cannot create the state directory %s: %s (agent.state_dir in "
				 "agent.yaml)", ag->state_dir, strerror(-r));
		goto fail;
	}
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
				   .accepted = on_accepted, .arg = d };
	r = jobs_new(&jo, &d->jobs, err);
	if (r < 0)
		goto fail;
	struct watch_options wo = { .dir = ag->drop_dir, .recursive = ag->recursive,
				    .settle_ms = (unsigned)ag->settle_delay_ms };
	r = watch_new(&wo, on_name, d, &d->watch, err);
	if (r < 0)
		goto fail;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->epfd < 0 || d->wakefd < 0) {
		r = -errno;
		*err = xasprintf("cannot set up the event loop: %s", strerror(-r));
		goto fail;
	}
	if ((r = epoll_add(d->epfd, watch_fd(d->watch))) < 0 ||
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
	watch_free(d->watch);
	strmap_free(d->retries);
	strmap_free(d->granted);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->wakefd >= 0)
		close(d->wakefd);
	config_free(d->reloaded);
	free(d->config_dir);
	pthread_mutex_destroy(&d->lock);
	pthread_mutex_destroy(&d->result_lock);
	free(d);
}
