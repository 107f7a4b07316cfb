/* Taking names in: who wrote a name's content, the snapshot read, what is
 * refused (too long a name, a writer over the cap, unreadable or incomplete
 * content) and answered at once, and what goes to the jobs as a job; the
 * answer files (approve, override, rerun) that take their script again;
 * the intake's turns by writer and the retries that come due. */
#include "daemon_loop.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"
#include "log.h"
#include "monoclock.h"
#include "names.h"
#include "place.h"

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
enum audit_health daemon_audit_state(struct daemon *d, char **why)
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
	enum audit_health h = daemon_audit_state(d, &why);
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
	if (!force && jobs_is_final(d->jobs, name, job->snap.sha256, NULL)) {
		if (daemon_job_answer_again(&d->env, name, job->snap.sha256)) {
			/* Said as a submit would say it: the log shows what became
			 * of each file taken (a rescan's, a drop's). */
			log_debug("%s: %s (%.12s)", printable,
				  jobs_submit_result_to_string(JOBS_ALREADY_FINAL), job->snap.sha256);
			daemon_job_free(job);
			return;
		}
		/* Its answer is gone with the agent's copy of it: it runs again,
		 * as the log said (the pool would drop it as final). */
		force = true;
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
void daemon_take_accepted(void *arg, const struct jobs_item *item)
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
void daemon_take_due(struct daemon *d)
{
	int64_t until = stagetime_now_ns() + INTAKE_SLICE_NS;
	struct daemon_intake_item it;
	while (stagetime_now_ns() < until && daemon_intake_next(d->intake, &it)) {
		take(d, it.rel, false, it.has_taken ? &it.taken : NULL, &it.writer, -1);
		daemon_intake_item_clear(&it);
	}
}

void daemon_take_name(void *arg, struct drop_name *n)
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
int daemon_take_retries(struct daemon *d)
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
