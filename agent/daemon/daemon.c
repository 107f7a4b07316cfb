/* The event loop: source of names (watch or mount) -> intake -> jobs;
 * signals; retries; status.json. */
#include "daemon.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "account.h"
#include "daemon_inflight.h"
#include "daemon_intake.h"
#include "daemon_job.h"
#include "daemon_mount.h"
#include "dirwrite.h"
#include "dropfs.h"
#include "fileio.h"
#include "log.h"
#include "monoclock.h"
#include "names.h"
#include "place.h"
#include "quarantine.h"
#include "source.h"
#include "stagetime.h"
#include "strmap.h"

struct daemon {
	const struct mai_config *cfg;
	struct mai_config *reloaded; /* owned: the config from the last SIGHUP */
	char *config_dir;
	char *fallback_dir;          /* state_dir/unplaced (place.h) */
	const struct daemon_stages *stages;
	struct drop_source *source; /* the watch or the mount */
	/* name -> struct known_writer: who wrote each name's content last, as
	 * the source said, for the takes that come without a writer (an
	 * answer, a retry). The loop's thread only. */
	struct strmap *writers;
	struct jobs *jobs;
	struct daemon_intake *intake; /* the names waiting to be taken in */
	int epfd, sigfd, wakefd;
	atomic_bool stop;
	struct timespec started;
	uint64_t max_file_size;      /* a reload changes it; the loop's thread only */
	/* What the workers share (daemon_job.h); each part has its own lock. */
	struct daemon_job_env env;
};

#define STATUS_EVERY_MS 1000u
#define STATUS_BUSY_MS 100u

static void wake(void *arg)
{
	struct daemon *d = arg;
	uint64_t one = 1;
	if (write(d->wakefd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_warn("cannot wake the event loop");
}

struct known_writer {
	char sha256[HASH_SHA256_HEX_LEN + 1];
	struct drop_writer writer;
};

/* Who wrote name's content snap: the source's word when it has one (and it
 * is remembered), else what the source said of this very content before,
 * else the file's owner. */
static void resolve_writer(struct daemon *d, const char *name, const struct intake_snapshot *snap,
			   const struct drop_writer *said, struct drop_writer *out)
{
	if (said && said->from != DROP_WRITER_UNKNOWN) {
		struct known_writer *k = xcalloc(1, sizeof(*k));
		memcpy(k->sha256, snap->sha256, sizeof(k->sha256));
		k->writer = *said;
		strmap_put(d->writers, name, k);
		*out = *said;
		return;
	}
	struct known_writer *k = strmap_get(d->writers, name);
	if (k && strcmp(k->sha256, snap->sha256) == 0) {
		*out = k->writer;
		return;
	}
	drop_writer_from_owner(out, snap->uid, snap->gid);
}

/* Records and answers a file that never became a job (refused before its
 * content was read, or read and not to be run: empty, incomplete). seen:
 * what intake saw of it (uid and links of a hard link; the content's
 * SHA-256 and size when it was read), or NULL; writer: who wrote it, as the
 * source knows (may be NULL). */
static void reject(struct daemon *d, const char *name, const char *reason, const char *message,
		   const struct intake_snapshot *seen, const struct drop_writer *writer)
{
	struct result_info r = { .file = name, .state = RESULT_REJECTED, .reason = reason,
				 .detail = message, .writer = writer, .decision = { .uid = -1 } };
	uint64_t seq;

	if (seen && seen->sha256[0]) {
		r.sha256 = seen->sha256;
		r.size = seen->len;
	}
	clock_gettime(CLOCK_REALTIME, &r.accepted);
	r.finished = r.accepted;
	if (d->stages && d->stages->audit) {
		_cleanup_free_ char *shown = names_is_utf8(name) ? xstrdup(name) : names_printable(name);
		json_t *f = json_pack("{s:s, s:s}", "file", shown, "reason", reason);
		if (r.sha256)
			json_object_set_new(f, "sha256", json_string(r.sha256));
		if (seen && seen->nlink > 1) {
			json_object_set_new(f, "uid", json_integer(seen->uid));
			json_object_set_new(f, "links", json_integer((json_int_t)seen->nlink));
		}
		json_t *w = writer ? drop_writer_to_json(writer) : NULL;
		if (w)
			json_object_set_new(f, "writer", w);
		if (d->stages->audit(d->stages->ctx, AUDIT_EVENT_INTAKE_REJECTED, f, &seq) == 0) {
			r.audit.seqs = &seq;
			r.audit.n_seqs = 1;
		} else {
			log_errorx("%s: its rejection (%s) cannot be recorded in the audit log", shown,
				   reason);
		}
		json_decref(f);
	}
	daemon_job_write_result(&d->env, &r);
}

/* The audit log's health as the stage says (OK when it cannot say), and
 * the halt flag that follows it: what runs stops while the log takes no
 * records. *why (caller frees) when not OK. */
static enum audit_health audit_state(struct daemon *d, char **why)
{
	*why = NULL;
	if (!d->stages || !d->stages->audit_health)
		return AUDIT_HEALTH_OK;
	enum audit_health h = d->stages->audit_health(d->stages->ctx, why);
	if (h != AUDIT_HEALTH_OK)
		atomic_store(&d->env.halt, true);
	return h;
}

/* A script whose sidecars cannot be named is not run: it is answered under
 * the short name (names.h), and the log says so. */
static void reject_long_name(struct daemon *d, const char *name, const struct drop_writer *writer)
{
	const char *slash = strrchr(name, '/');
	_cleanup_free_ char *side = names_result_sidecar(name, RESULT_SUFFIX);
	const char *short_name = strrchr(side, '/') ? strrchr(side, '/') + 1 : side;
	size_t n = strlen(slash ? slash + 1 : name);
	_cleanup_free_ char *shown = names_printable(name), *shown_side = names_printable(short_name);
	_cleanup_free_ char *msg = xasprintf(
		"The name is %zu bytes long, so its answer files (.result.json, .audit) would not fit "
		"in a file name (at most %d bytes): it was not run, and this answer is %s. Rename "
		"the script to at most %zu bytes (mv) and it is taken again.",
		n, NAME_MAX, shown_side, (size_t)NAME_MAX - strlen(RESULT_SUFFIX) + strlen(".py"));
	log_warnx("%s: the name is %zu bytes long, too long for its sidecars; rejected "
		  "(name_too_long), answered as %s", shown, n, shown_side);
	reject(d, name, "name_too_long", msg, NULL, writer);
}

/* A job its writer may not queue now: they have the most jobs queued or
 * running that one writer may have (agent.max_jobs_per_writer). Answered
 * at once, not recorded as final: saved again later, the file is taken. */
static void refuse_over_cap(struct daemon *d, const char *name, const char *sha, size_t len,
			    const struct drop_writer *w)
{
	_cleanup_free_ char *user = account_user_label(w->uid);
	unsigned n = jobs_owner_active(d->jobs, w->uid);
	_cleanup_free_ char *msg = xasprintf(
		"Not queued: %s already has %u jobs queued or running, the most one writer may "
		"have (agent.max_jobs_per_writer in agent.yaml), so that others get their turns. "
		"Save this file again (or 'mai-agent submit' it) once some of them have ended.",
		user, n);
	struct result_info r = { .file = name, .sha256 = sha, .size = len, .state = RESULT_REJECTED,
				 .reason = "writer_queue_full", .detail = msg, .writer = w,
				 .decision = { .uid = -1 } };
	clock_gettime(CLOCK_REALTIME, &r.accepted);
	r.finished = r.accepted;
	daemon_job_write_result(&d->env, &r);
}

/* The message of a script the mount says is incomplete (intake.h): err is
 * the errno of its failed write, 0 when it was open for writing as the agent
 * stopped. Caller frees. */
static char *incomplete_message(int err)
{
	if (err)
		return xasprintf("A write to this file failed (%s) before it was closed, so its "
				 "content is not complete: it was not run. Write it again once that "
				 "is fixed (a full disk: free some space) and it is taken.",
				 strerror(err));
	return xstrdup("The file was open for writing when the agent stopped (it was killed, or "
		       "the machine went down), so its content may not be complete: it was not "
		       "run. Write it again (save it once more) and it is taken.");
}

/* Reads name's snapshot into *snap. */
static enum intake_status read_snapshot(struct daemon *d, const char *name,
					struct intake_snapshot *snap, int *err)
{
	const char *slash = strrchr(name, '/');
	const char *drop = drop_source_dir(d->source);
	_cleanup_free_ char *dir = slash ? xasprintf("%s/%.*s", drop, (int)(slash - name), name)
					 : xstrdup(drop);
	struct intake_options io = { .max_size = d->max_file_size };

	/* The directory is opened anew each time: the drop directory may have
	 * been replaced since. O_NOFOLLOW keeps a symlinked subdirectory out. */
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return INTAKE_VANISHED;
	return intake_read(dfd, slash ? slash + 1 : name, &io, snap, err);
}

/* Takes name in and queues it. force: a user's answer arrived for it.
 * taken: the snapshot the source took (taken over), or NULL to read it
 * now; writer: who wrote it, as the source knows (may be NULL); rerun_uid:
 * who asked for it to run again (foo.rerun), or -1. */
static void take(struct daemon *d, const char *name, bool force, struct drop_taken *taken,
		 const struct drop_writer *writer, long rerun_uid)
{
	_cleanup_free_ char *printable = names_printable(name);
	struct daemon_job *job;
	enum intake_status s;
	int err = 0;
	int64_t t0 = stagetime_now_ns();

	if (!names_sidecar_fits(name)) {
		reject_long_name(d, name, writer);
		return;
	}
	job = xcalloc(1, sizeof(*job));
	job->rerun_uid = rerun_uid;
	if (taken) {
		s = taken->status;
		err = taken->err;
		job->snap = taken->snap;
		memset(&taken->snap, 0, sizeof(taken->snap));
		/* The cap as it is now (a reload may have lowered it since the
		 * mount read the file). */
		if (s == INTAKE_OK && job->snap.len > d->max_file_size)
			s = INTAKE_TOO_LARGE;
	} else {
		s = read_snapshot(d, name, &job->snap, &err);
		/* Read by the agent itself (a retry, an answer, a rerun): the
		 * source's word on content whose write did not complete stands. */
		if (s == INTAKE_OK && drop_source_incomplete(d->source, name, &err))
			s = INTAKE_INCOMPLETE;
	}
	if (s == INTAKE_INCOMPLETE) {
		_cleanup_free_ char *msg = incomplete_message(err);
		if (err)
			log_warnx("%s: a write to it failed (%s): not run, rejected (incomplete)",
				  printable, strerror(err));
		else
			log_warnx("%s: it was open for writing when the agent stopped: not run, "
				  "rejected (incomplete)", printable);
		reject(d, name, "incomplete", msg, &job->snap, writer);
		daemon_job_free(job);
		return;
	}
	if (s == INTAKE_OK && job->snap.len == 0) {
		log_info("%s: empty: answered without a container", printable);
		reject(d, name, "empty", "The file is empty (0 bytes): there is nothing to run, so no "
		       "container was started. If a write to it failed (a full disk?), write it "
		       "again.", &job->snap, writer);
		daemon_job_free(job);
		return;
	}
	if (s != INTAKE_OK) {
		if (s == INTAKE_VANISHED) {
			log_debug("%s: gone before it could be read; nothing to answer", printable);
			/* A job that waited for a retry is over with its file. */
			daemon_retries_clear(d->env.retries, name);
			daemon_resumes_drop(d->env.resumes, name);
		} else {
			if (s == INTAKE_IO_ERROR)
				log_warnx("%s: cannot read it: %s", printable, strerror(err));
			else if (s == INTAKE_HARD_LINK)
				log_warnx("%s: a hard link (%lu links), not read: rejected", printable,
					  (unsigned long)job->snap.nlink);
			reject(d, name, intake_status_to_string(s), intake_status_message(s),
			       &job->snap, writer);
		}
		daemon_job_free(job);
		return;
	}
	resolve_writer(d, name, &job->snap, writer, &job->writer);
	/* A log that was changed behind the writer takes nothing more: no job
	 * starts, and the result says why. */
	_cleanup_free_ char *why = NULL;
	enum audit_health h = audit_state(d, &why);
	if (h == AUDIT_HEALTH_TAMPERED || h == AUDIT_HEALTH_BROKEN) {
		struct result_info r = { .file = name, .sha256 = job->snap.sha256, .size = job->snap.len,
					 .state = RESULT_ERROR, .retry = RESULT_RETRY_NEXT_START,
					 .reason = h == AUDIT_HEALTH_TAMPERED ? "audit_tampered" : "audit_broken",
					 .detail = h == AUDIT_HEALTH_TAMPERED
						   ? "the audit log was changed after the agent wrote it, so the "
						     "agent takes no jobs until it is replaced; 'mai-agent status' "
						     "says how"
						   : "the audit log cannot be written until the agent restarts",
					 .writer = &job->writer, .decision = { .uid = -1 } };
		clock_gettime(CLOCK_REALTIME, &r.accepted);
		r.finished = r.accepted;
		daemon_job_write_result(&d->env, &r);
		daemon_job_free(job);
		return;
	}
	if (!force && jobs_is_final(d->jobs, name, job->snap.sha256, NULL) &&
	    daemon_job_answer_again(&d->env, name, job->snap.sha256)) {
		/* Said as a submit would say it: the log shows what became of
		 * each file taken (a rescan's, a drop's). */
		log_debug("%s: %s (%.12s)", printable, jobs_submit_result_to_string(JOBS_ALREADY_FINAL),
			  job->snap.sha256);
		daemon_job_free(job);
		return;
	}
	job->name = xstrdup(name);
	clock_gettime(CLOCK_REALTIME, &job->accepted);
	/* A snapshot the source took (mount mode) was read at the close. */
	job->intake_ns = stagetime_now_ns() - t0;
	_cleanup_free_ char *sha = xstrdup(job->snap.sha256);
	struct drop_writer w = job->writer;
	size_t len = job->snap.len;
	enum jobs_submit_result jr = jobs_submit_by(d->jobs, name, sha, force, w.uid, job);
	log_debug("%s: %s (%.12s)", printable, jobs_submit_result_to_string(jr), sha);
	if (jr == JOBS_OVER_CAP)
		refuse_over_cap(d, name, sha, len, &w);
}

/* Under the pool's lock, before a worker can take the job (jobs.h). */
static void on_accepted(void *arg, const struct jobs_item *item)
{
	struct daemon_job_env *env = arg;
	struct daemon_job *job = item->payload;
	struct dirwrite_access access;
	place_script_access(job->snap.uid, job->snap.gid, job->snap.mode, &access);
	struct result_info r = { .file = job->name, .sha256 = job->snap.sha256,
				 .size = job->snap.len, .state = RESULT_QUEUED, .access = &access,
				 .accepted = job->accepted, .writer = &job->writer,
				 .queue_ahead = item->ahead, .decision = { .uid = -1 } };
	int64_t t = stagetime_now_ns();
	daemon_job_write_result(env, &r);
	/* No worker sees the job yet: its fields are still the loop's. */
	job->queued_at_ns = stagetime_now_ns();
	job->queued_write_ns = job->queued_at_ns - t;
}

/* foo.rerun: foo.py runs again as it is, in a new job, whatever answer its
 * content has; the request is used up (removed), and the job's
 * job_accepted record names who asked (rerun_by). */
static void rerun(struct daemon *d, const char *rel, const char *script,
		  const struct drop_writer *said)
{
	_cleanup_free_ char *p = names_printable(rel);
	const char *base = rel;
	struct stat st;
	_cleanup_close_ int dfd = place_open_parent(drop_source_dir(d->source), rel, &base);
	if (dfd < 0 || fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return; /* used up already */
	if (unlinkat(dfd, base, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0) {
		log_warn("%s: cannot remove it, so the request is not used up; not run again", p);
		return;
	}
	drop_source_changed(d->source, rel);
	long uid = said && said->from != DROP_WRITER_UNKNOWN ? (long)said->uid : (long)st.st_uid;
	_cleanup_free_ char *who = account_user_label((uid_t)uid);
	log_info("%s: %s asks for a new run", p, who);
	take(d, script, true, NULL, NULL, uid);
}

/* Whose turn a reported script takes in intake (daemon_intake.h): its
 * writer when the source knows it, else the file's owner as it is now (who
 * renamed it into a watched directory). A look, not a read: the content's
 * writer is settled when the name's turn comes (resolve_writer). */
static uid_t intake_turn(const struct daemon *d, const struct drop_name *n)
{
	if (n->writer.from != DROP_WRITER_UNKNOWN)
		return n->writer.uid;
	if (n->taken && n->taken->status == INTAKE_OK)
		return n->taken->snap.uid;
	_cleanup_free_ char *path = xasprintf("%s/%s", drop_source_dir(d->source), n->rel);
	struct stat st;
	return lstat(path, &st) == 0 ? st.st_uid : 0;
}

/* Takes script in at once (an answer arrived for it), with what intake
 * held of it if it was still waiting for its turn. */
static void take_answered(struct daemon *d, const char *script)
{
	struct daemon_intake_item it;
	if (daemon_intake_take(d->intake, script, &it)) {
		take(d, it.rel, true, it.has_taken ? &it.taken : NULL, &it.writer, -1);
		daemon_intake_item_clear(&it);
		return;
	}
	take(d, script, true, NULL, NULL, -1);
}

/* How long the loop takes names in before it looks for new ones again. */
#define INTAKE_SLICE_NS (20 * 1000 * 1000)

/* Takes waiting names in, round-robin by writer, for at most one slice. */
static void run_intake(struct daemon *d)
{
	int64_t until = stagetime_now_ns() + INTAKE_SLICE_NS;
	struct daemon_intake_item it;
	while (stagetime_now_ns() < until && daemon_intake_next(d->intake, &it)) {
		take(d, it.rel, false, it.has_taken ? &it.taken : NULL, &it.writer, -1);
		daemon_intake_item_clear(&it);
	}
}

static void on_name(void *arg, struct drop_name *n)
{
	struct daemon *d = arg;
	const struct drop_writer *w = &n->writer;

	switch (n->kind) {
	case NAMES_SCRIPT:
		/* Taken in at its writer's turn, not in the order of arrival. */
		daemon_intake_put(d->intake, intake_turn(d, n), n->rel, n->taken, w);
		break;
	case NAMES_APPROVE:
	case NAMES_OVERRIDE: {
		/* The writer is the answer's: the script's comes from before. */
		_cleanup_free_ char *script = names_script_for_answer(n->rel);
		if (script)
			take_answered(d, script);
		break;
	}
	case NAMES_RERUN: {
		_cleanup_free_ char *script = names_script_for_answer(n->rel);
		if (script)
			rerun(d, n->rel, script, w);
		break;
	}
	case NAMES_BAD_NAME:
		reject(d, n->rel, "bad_name", "The file name is not valid UTF-8, so results cannot "
		       "name it: rename the file (mv) to a UTF-8 name.", NULL, w);
		break;
	case NAMES_IGNORED:
		break;
	}
}

/* Retakes the names whose retry is due; returns ms until the next one. */
static int run_retries(struct daemon *d)
{
	char *names[64];
	uint64_t now = (uint64_t)monoclock_ms(), next;
	size_t n = daemon_retries_take_due(d->env.retries, now, names, ARRAY_SIZE(names), &next);

	for (size_t i = 0; i < n; i++) {
		log_info("retrying %s", names[i]);
		/* Forced: the index may hold an earlier held state of this very
		 * content (awaiting_confirmation before the approval came). */
		take(d, names[i], true, NULL, NULL, -1);
		free(names[i]);
	}
	if (n == ARRAY_SIZE(names))
		return 0;
	return next == UINT64_MAX ? -1 : (int)(next - now);
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
	enum audit_health h = audit_state(d, &audit_why);
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
		int t = min_timeout(drop_source_timeout_ms(d->source), run_retries(d));
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
		run_intake(d);
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
		r = dropfs_new(&fo, on_name, d, &d->source, err);
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
		r = drop_source_watch_new(&wo, on_name, d, &d->source, err);
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
				   .accepted = on_accepted, .arg = &d->env,
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
