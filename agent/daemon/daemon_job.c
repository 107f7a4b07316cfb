/* One job on a worker thread: audit, assess, policy (with the user's
 * answers, daemon_answer.c), execute, and the sidecars at each step. */
#include "daemon_job.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "account.h"
#include "daemon_answer.h"
#include "daemon_inflight.h"
#include "daemon_job_ctx.h"
#include "log.h"
#include "names.h"
#include "policy.h"

void daemon_job_free(void *payload)
{
	struct daemon_job *job = payload;
	if (!job)
		return;
	intake_snapshot_clear(&job->snap);
	free(job->name);
	free(job);
}

/* Places text as script's sidecar with suffix (owned and readable as acc
 * says, place.h), one writer at a time; the source hears of it when it is
 * in the drop directory. */
static int place_text(struct daemon_job_env *env, const char *script, const char *suffix,
		      const char *text, size_t len, const struct dirwrite_access *acc, enum place_sync sync,
		      char **err)
{
	_cleanup_free_ char *side = names_result_sidecar(script, suffix);
	pthread_mutex_lock(&env->result_lock);
	int r = place_sidecar(&env->place, side, text, len, acc, sync, err);
	pthread_mutex_unlock(&env->result_lock);
	if (r == PLACE_IN_DROP_DIR)
		drop_source_changed(env->source, side);
	return r;
}

int daemon_job_place_again(void *arg, const char *script, const char *suffix, const char *text,
			   size_t len)
{
	struct daemon_job_env *env = arg;
	_cleanup_free_ char *err = NULL;
	/* A kept copy is as private as the script is now (place.h). */
	struct dirwrite_access acc;
	const char *base = script;
	struct stat st;
	_cleanup_close_ int dfd = place_open_parent(env->place.drop_dir, script, &base);
	bool known = dfd >= 0 && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (known)
		place_script_access(st.st_uid, st.st_gid, st.st_mode, &acc);
	int r = place_text(env, script, suffix, text, len, known ? &acc : NULL, PLACE_SYNC,
			   &err);
	/* Said once when the answer came; a full disk would say it every
	 * second. */
	if (r < 0 || r == PLACE_IN_FALLBACK)
		log_debug("%s", err);
	return r;
}

void daemon_job_write_result(struct daemon_job_env *env, const struct result_info *r)
{
	char *err = NULL;
	size_t len = 0;
	_cleanup_free_ char *text = result_render(r, &len);
	int rc;

	stagetime_mark(STAGE_OTHER);
	if (text) {
		rc = place_text(env, r->file, RESULT_SUFFIX, text, len, r->access,
				result_place_sync(r), &err);
	} else {
		_cleanup_free_ char *p = names_printable(r->file);
		err = xasprintf("cannot encode the result of %s as JSON", p);
		rc = -EINVAL;
	}
	stagetime_mark(STAGE_RESULT);
	/* A refused name is said once per answer: at its last write. */
	if (rc == PLACE_IN_FALLBACK && (r->state == RESULT_QUEUED || r->state == RESULT_RUNNING))
		log_debug("%s", err);
	else if (rc == PLACE_IN_FALLBACK)
		log_warnx("%s", err);
	else if (rc < 0)
		log_errorx("%s%s", err, result_state_is_final(r->state) && text && env->sidecars ?
			   "; it is written as soon as the drop directory takes it" : "");
	free(err);
	if (text && env->sidecars)
		daemon_sidecars_keep(env->sidecars, r->file, RESULT_SUFFIX, text, len,
				     result_state_is_final(r->state), rc);
	daemon_status_count_state(env->status, r->state);
	daemon_status_observe_result(env->status, r);
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

int daemon_job_place(struct daemon_job_env *env, const char *script, const char *suffix,
		     const char *text, size_t len, const struct dirwrite_access *acc)
{
	_cleanup_free_ char *err = NULL;
	/* Its directory is synced with the result.json that follows it
	 * (finish_final): one fsync of the directory for both. */
	int r = place_text(env, script, suffix, text, len, acc, PLACE_SYNC_DATA, &err);
	if (r == PLACE_IN_FALLBACK)
		log_warnx("%s", err);
	else if (r < 0)
		log_errorx("%s", err);
	if (env->sidecars)
		daemon_sidecars_keep(env->sidecars, script, suffix, text, len, true, r);
	return r < 0 ? r : 0;
}

bool daemon_job_answer_again(struct daemon_job_env *env, const char *name, const char *sha256)
{
	_cleanup_free_ char *what = NULL, *p = names_printable(name);
	int placed;
	enum daemon_sidecars_restored r = daemon_sidecars_restore(
		env->sidecars, drop_source_dir(env->source), name, sha256, &what, &placed);

	if (r == DAEMON_SIDECARS_IN_PLACE)
		return true;
	if (r == DAEMON_SIDECARS_NO_COPY) {
		log_info("%s: this content has a final answer, but the agent keeps no copy of it: "
			 "it runs again", p);
		return false;
	}
	const char *where = placed == PLACE_IN_DROP_DIR ? "drop_dir" :
			    placed == PLACE_IN_FALLBACK ? "fallback" : "nowhere";
	if (placed == PLACE_IN_DROP_DIR)
		log_info("%s: its answer was written again from the agent's copy (%s)", p, what);
	else
		log_warnx("%s: its answer could not be written again in the drop directory (%s): "
			  "it is %s", p, what, placed == PLACE_IN_FALLBACK ?
			  "in the state directory's unplaced/ and the audit view's runs/" :
			  "written as soon as the disk takes it");
	if (env->stages && env->stages->audit) {
		uint64_t seq;
		json_t *f = json_pack("{s:s, s:s, s:s, s:s}", "file", name, "sha256", sha256,
				      "sidecars", what, "placed", where);
		if (env->stages->audit(env->stages->ctx, AUDIT_EVENT_ANSWER_RESTORED, f, &seq) < 0)
			log_errorx("%s: the answer placed again cannot be recorded in the audit log",
				   p);
		json_decref(f);
	}
	return true;
}

struct approvers *daemon_job_approvers(struct daemon_job_env *env)
{
	pthread_mutex_lock(&env->approvers_lock);
	struct approvers *a = approvers_ref(env->approvers);
	pthread_mutex_unlock(&env->approvers_lock);
	return a;
}

void daemon_job_set_approvers(struct daemon_job_env *env, struct approvers *a)
{
	pthread_mutex_lock(&env->approvers_lock);
	struct approvers *old = env->approvers;
	env->approvers = a;
	pthread_mutex_unlock(&env->approvers_lock);
	approvers_unref(old);
}

/* Asks the loop to take name again after a growing delay. */
static void schedule_retry(struct daemon_job_env *env, const char *name)
{
	daemon_retries_schedule(env->retries, name);
	daemon_status_count_retry(env->status);
	if (env->wake)
		env->wake(env->wake_arg);
}

static void now_ts(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* Keeps the job's progress up to stage for its retry, after a small
 * "retry" record of this attempt (reason, detail) when the log takes one:
 * the retry goes on from there (daemon_resume.h). a, pd and answer are
 * copied (NULL before the stage that has them). */
static void park(struct job_ctx *c, enum daemon_stage stage, const char *reason, const char *detail,
		 const struct daemon_assessment *a, const struct policy_decision *pd, const struct approval *answer)
{
	struct daemon_progress p = { .stage = stage, .job = c->job_seq, .attempts = c->attempt };
	if (!c->accepted)
		return; /* nothing recorded (or no log in this build): the retry starts afresh */
	json_t *f = json_pack("{s:i, s:s, s:s}", "attempt", (int)c->attempt, "reason", reason, "detail",
			      detail ? detail : "");
	(void)daemon_job_audit(c, AUDIT_EVENT_RETRY, f);
	if (!c->accepted)
		return; /* its job_accepted was queued and a failed write dropped it */
	snprintf(p.sha256, sizeof(p.sha256), "%s", c->job->snap.sha256);
	p.n_seqs = c->r.audit.n_seqs;
	p.seqs = xmalloc((p.n_seqs ? p.n_seqs : 1) * sizeof(uint64_t));
	memcpy(p.seqs, c->seqs, p.n_seqs * sizeof(uint64_t));
	if (a && stage >= DAEMON_STAGE_ASSESSED) {
		p.a = *a;
		p.a.json = json_incref(a->json);
		p.a.detail = a->detail ? xstrdup(a->detail) : NULL;
	}
	if (pd && stage == DAEMON_STAGE_DECIDED) {
		p.pd = *pd;
		if (answer) {
			p.answer = *answer;
			p.answer.reason = answer->reason ? xstrdup(answer->reason) : NULL;
		}
	}
	daemon_resumes_keep(c->d->resumes, c->job->name, &p);
}

/* job_accepted, with what the content is to the history of its name, and
 * for a known name with new content the script_diff record (capped at
 * audit.diff_max). The content becomes the latest version of its name only
 * once these records are durable, so that a retry diffs against the same
 * previous version; that is done when the job has answered (keep_history):
 * the next job of the same name starts only after this one. false when the
 * log refuses. */
static bool audit_accept(struct job_ctx *c)
{
	const struct mai_config *cfg = c->d->cfg;
	const struct intake_snapshot *snap = &c->job->snap;
	enum audit_script_history h;
	json_t *diff = NULL;
	_cleanup_free_ char *err = NULL;

	stagetime_mark(STAGE_OTHER);
	if (audit_script_compare(cfg->agent.state_dir, c->job->name, (const char *)snap->data, snap->len,
				 (size_t)atomic_load(&c->d->diff_max), &h, &diff, &err) < 0)
		log_warnx("%s: no diff against the previous version: %s", c->r.file, err);
	stagetime_mark(STAGE_HISTORY);
	const struct drop_writer *w = &c->job->writer;
	json_t *f = json_pack("{s:I, s:I, s:s, s:o}", "size", (json_int_t)snap->len, "uid",
			      (json_int_t)w->uid, "history", audit_script_history_to_string(h),
			      "writer", drop_writer_to_json(w));
	if (c->writer)
		json_object_set_new(f, "user", json_string(c->writer));
	if (c->job->rerun_uid >= 0)
		json_object_set_new(f, "rerun_by", json_integer(c->job->rerun_uid));
	if (err)
		json_object_set_new(f, "history_error", json_string(err));
	/* Queued: durable with the decision (or whatever the job appends
	 * next), one fsync for the job's records before it runs. */
	bool ok = daemon_job_audit_queued(c, AUDIT_EVENT_JOB_ACCEPTED, f);
	if (diff && ok)
		ok = daemon_job_audit_queued(c, AUDIT_EVENT_SCRIPT_DIFF, diff);
	else
		json_decref(diff);
	if (!ok)
		return false;
	c->remember = h == AUDIT_SCRIPT_NEW || h == AUDIT_SCRIPT_CHANGED;
	return true;
}

/* After the answer: the content as its name's latest version (once its
 * job_accepted is durable), and as the version that ran last (once its run
 * is recorded), each synced to disk, and the removal of the run's note
 * synced; the drop's answer does not wait for them, and the next job of the
 * same name runs after them. */
static void keep_history(const struct job_ctx *c)
{
	const char *state_dir = c->d->cfg->agent.state_dir;
	const struct intake_snapshot *snap = &c->job->snap;
	_cleanup_free_ char *err = NULL;

	/* accepted_durable: its job_accepted was not dropped by a failed write. */
	if (c->remember && c->accepted_durable &&
	    audit_script_remember(state_dir, c->job->name, (const char *)snap->data, snap->len, &err) < 0)
		log_warnx("%s: this version is not kept for the next diff: %s", c->r.file, err);
	free(err);
	err = NULL;
	if (c->ran && audit_script_mark_ran(state_dir, c->job->name, snap->sha256, &err) < 0)
		log_warnx("%s: not kept as the version that ran last: %s", c->r.file, err);
	if (c->note_ended)
		daemon_inflight_sync(state_dir);
}

static void finish_error(struct job_ctx *c, const char *reason, const char *detail, bool retry)
{
	/* The records the result cites are durable first (or forgotten). */
	(void)daemon_job_audit_sync(c);
	c->r.state = RESULT_ERROR;
	c->r.reason = reason;
	/* A stopping agent's job said so before (run_content). */
	if (c->r.retry != RESULT_RETRY_NEXT_START)
		c->r.retry = retry ? RESULT_RETRY_BACKOFF : RESULT_RETRY_NONE;
	if (detail != c->detail) {
		free(c->detail);
		c->detail = xstrdup(detail);
	}
	c->r.detail = c->detail;
	now_ts(&c->r.finished);
	daemon_job_write_result(c->d, &c->r);
	if (retry)
		schedule_retry(c->d, c->job->name);
}

static void finish_final(struct job_ctx *c)
{
	const struct daemon_stages *st = c->d->stages;

	/* The records it cites are durable already (a last sync when the job
	 * only queued some); the final result.json comes last, so that
	 * whoever waits for it finds foo.audit in place. */
	if (!daemon_job_audit_sync(c)) {
		finish_error(c, "audit_unwritable", c->audit_why, true);
		return;
	}
	stagetime_mark(STAGE_OTHER);
	if (st && st->audit_sidecar && c->r.audit.n_seqs > 0) {
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		int r = st->audit_sidecar(st->ctx, c->seqs, c->r.audit.n_seqs, &text, &len,
					  &c->position);
		if (r == 0 && daemon_job_place(c->d, c->job->name, ".audit", text, len, c->r.access) == 0) {
			c->r.audit.checkpoint_size = c->position.checkpoint_size;
			c->r.audit.entry_hash = c->position.entry_hash[0] ? c->position.entry_hash : NULL;
		} else if (r < 0) {
			_cleanup_free_ char *p = names_printable(c->job->name);
			log_warnx("%s: cannot build its .audit sidecar: %s", p, strerror(-r));
		}
	}
	stagetime_mark(STAGE_SIDECAR);
	now_ts(&c->r.finished);
	/* Held content: when it was held is taken before its result shows it,
	 * so an answer without a pin written after seeing it comes later
	 * (approval.h). */
	bool held = c->r.state == RESULT_AWAITING_CONFIRMATION || c->r.state == RESULT_BLOCKED;
	struct jobs_hold hold = { .uid = c->job->writer.uid };
	clock_gettime(CLOCK_REALTIME, &hold.at);
	daemon_job_write_result(c->d, &c->r);
	jobs_record_held(c->d->jobs, c->job->name, c->job->snap.sha256,
			 result_state_to_string(c->r.state), held ? &hold : NULL);
	daemon_retries_clear(c->d->retries, c->job->name);
	daemon_grants_drop(c->d->grants, c->job->name);
}

static void sleep_unless_stopping(struct daemon_job_env *env, unsigned ms)
{
	for (unsigned slept = 0; slept < ms && !atomic_load(&env->stopping); slept += 50) {
		struct timespec ts = { 0, 50 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* Appends the execution record of a run that happened (takes f), waiting
 * for the audit log to take it: the script does not run again for want of
 * its record, and nothing else of this job comes first. Meanwhile the
 * result says so and the note of the run keeps the record. false when the
 * agent stops first (the next start writes it from the note) or the record
 * itself is refused. */
static bool record_execution(struct job_ctx *c, json_t *f)
{
	unsigned wait_ms = 100;
	bool said = false;
	for (;;) {
		if (daemon_job_audit(c, AUDIT_EVENT_EXECUTION, json_incref(f))) {
			json_decref(f);
			return true;
		}
		if (!said && c->accepted) {
			daemon_inflight_pending(c->d->cfg->agent.state_dir, c->job_seq, f);
			_cleanup_free_ char *msg = xasprintf("the run ended but %s; its record is written as "
							     "soon as the log takes it, and this file is "
							     "answered then", c->audit_why);
			struct result_info w = c->r;
			w.state = RESULT_ERROR;
			w.reason = "audit_unwritable";
			w.retry = RESULT_RETRY_BACKOFF;
			w.verdict = RESULT_VERDICT_NONE;
			w.execution = NULL;
			w.detail = msg;
			daemon_job_write_result(c->d, &w);
			said = true;
		}
		if (c->audit_err == -EINVAL || c->audit_err == -EMSGSIZE || atomic_load(&c->d->stopping)) {
			json_decref(f);
			return false;
		}
		sleep_unless_stopping(c->d, wait_ms);
		wait_ms = wait_ms < 1000 ? wait_ms * 2 : 2000;
	}
}

/* The run's note goes (its removal synced after the answer, keep_history). */
static void note_end(struct job_ctx *c)
{
	daemon_inflight_end(c->d->cfg->agent.state_dir, c->job_seq);
	c->note_ended = true;
}

static json_t *decision_fields(const struct job_ctx *c, const struct policy_decision *pd,
			       const struct daemon_answers *ans)
{
	const struct approval *a = &ans->used;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "action", policy_action_to_string(pd->action),
			      "by", pd->by, "approve", approval_status_to_string(ans->approve),
			      "override", approval_status_to_string(ans->override));
	if (strcmp(pd->by, "user") == 0) {
		_cleanup_free_ char *user = account_user_name(a->uid);
		json_object_set_new(o, "uid", json_integer(a->uid));
		if (user)
			json_object_set_new(o, "user", json_string(user));
		json_object_set_new(o, "answer", json_string(approval_kind_to_string(a->kind)));
		if (a->reason)
			json_object_set_new(o, "reason", daemon_job_reason_json(a->reason));
		/* The approval or override record this decision rests on. */
		if (c->answer_recorded)
			json_object_set_new(o, "answer_seq", json_integer((json_int_t)c->answer_seq));
	}
	return o;
}

/* What a held script changed since the last version of its name that ran,
 * for whoever is asked to approve it (the result's since_last_run). */
static json_t *since_last_run(const struct job_ctx *c)
{
	const struct intake_snapshot *snap = &c->job->snap;
	_cleanup_free_ char *err = NULL;
	json_t *f = NULL;
	stagetime_mark(STAGE_OTHER);
	if (audit_script_since_ran(c->d->cfg->agent.state_dir, c->job->name,
				   (const char *)snap->data, snap->len,
				   (size_t)atomic_load(&c->d->diff_max), &f, &err) < 0)
		log_warnx("%s: no diff against the version that ran last: %s", c->r.file, err);
	stagetime_mark(STAGE_HISTORY);
	return f;
}

/* Who may answer the held content of c, for its result's message. */
static char *who_may_answer(const struct job_ctx *c)
{
	_cleanup_free_ char *may = approvers_describe(c->who);
	if (approvers_allow_self(c->who) || !c->writer)
		return steal_pointer(&may);
	return xasprintf("%s, other than %s, who wrote it", may, c->writer);
}

/* The run's record and what follows it; f is the record's fields (taken).
 * again: the run was cut short and the script runs again (its progress is
 * kept), else the job ends here. */
static void end_run(struct job_ctx *c, json_t *f, bool again, const char *reason, const struct policy_decision *pd,
		    const struct approval *answer, const struct daemon_assessment *a)
{
	if (!record_execution(c, f)) {
		/* The agent stops, its record in the note of the run: the next
		 * start writes it, then runs the script again if it must. */
		json_decref(c->r.execution);
		c->r.execution = NULL;
		c->r.verdict = RESULT_VERDICT_NONE;
		c->r.retry = RESULT_RETRY_NEXT_START;
		finish_error(c, "agent_stopped", "the agent stopped while the run's record waited for the audit "
			     "log; its next start writes the record", false);
		return;
	}
	if (c->accepted) {
		stagetime_mark(STAGE_OTHER);
		note_end(c);
		stagetime_mark(STAGE_RUN_NOTE);
	}
	if (!again) {
		c->r.state = RESULT_COMPLETED;
		c->ran = true; /* this content is the version of its name that ran last */
		finish_final(c);
		return;
	}
	c->r.state = RESULT_ERROR;
	c->r.execution = NULL;
	park(c, DAEMON_STAGE_DECIDED, reason, c->detail, a, pd, answer);
	finish_error(c, reason, c->detail, true);
}

static void run_content(struct job_ctx *c, const struct policy_decision *pd,
			const struct approval *answer, const struct daemon_assessment *a)
{
	const struct daemon_stages *st = c->d->stages;
	const char *state_dir = c->d->cfg->agent.state_dir;
	struct daemon_execution ex = { 0 };
	char *why = NULL;

	if (!st || !st->execute) {
		finish_error(c, "no_sandbox", "the sandbox is not part of this build of the agent",
			     false);
		return;
	}
	c->r.state = RESULT_RUNNING;
	now_ts(&c->r.started);
	daemon_job_write_result(c->d, &c->r);
	/* A note of the run before it starts: if the agent is killed while it
	 * runs, the next start records that (daemon_inflight.h). */
	stagetime_mark(STAGE_OTHER);
	int nr = c->accepted ? daemon_inflight_begin(state_dir, c->job_seq, c->job->name, c->job->snap.sha256, &why) : 0;
	stagetime_mark(STAGE_RUN_NOTE);
	if (nr < 0) {
		log_errorx("%s: %s", c->r.file, why);
		park(c, DAEMON_STAGE_DECIDED, "state_unwritable", why, a, pd, answer);
		finish_error(c, "state_unwritable", why, true);
		free(why);
		return;
	}
	int rc = st->execute(st->ctx, c->job->name, &c->job->snap, a, pd->trust, &c->d->halt, &ex, &why);
	stagetime_mark(STAGE_OTHER); /* what the sandbox did not mark: the result's JSON */
	if (rc < 0) {
		_cleanup_free_ char *msg = xasprintf("%s", why ? why : strerror(-rc));
		free(why);
		json_decref(ex.json);
		free(ex.detail);
		if (strcmp(pd->by, "user") == 0)
			daemon_grants_keep(c->d->grants, c->job->name, c->job->snap.sha256, answer, c->first_recorded,
				   c->first_seq);
		if (rc == -ECANCELED && atomic_load(&c->d->stopping)) {
			/* The agent stops: the run is recorded as killed by it, and
			 * the state stays non-final so the next start runs it again. */
			json_t *f = json_pack("{s:s, s:s, s:s}", "state", "error", "reason",
					      "agent_stopped", "detail", msg);
			json_object_set_new(f, "verdict", json_string("agent_stopped"));
			/* Refused, the record waits in the note for the next start. */
			if (!daemon_job_audit(c, AUDIT_EVENT_EXECUTION, json_incref(f)) && c->accepted)
				daemon_inflight_pending(state_dir, c->job_seq, f);
			else if (c->accepted)
				note_end(c);
			json_decref(f);
			c->r.retry = RESULT_RETRY_NEXT_START;
			finish_error(c, "agent_stopped", msg, false);
			return;
		}
		if (rc == -ECANCELED) {
			/* Stopped because the audit log took no records: its record
			 * waits for room, then the script runs again. */
			free(c->detail);
			c->detail = xstrdup("the audit log could not take records while the script ran, so "
					    "the run was stopped; it runs again once the log can");
			json_t *f = json_pack("{s:s, s:s, s:s}", "verdict", "interrupted", "reason",
					      "audit_unwritable", "detail", c->detail);
			end_run(c, f, true, "audit_unwritable", pd, answer, a);
			return;
		}
		/* Docker could not run it, or went away during the run: the
		 * attempt is a retry record and the script runs again. */
		if (c->accepted)
			note_end(c);
		park(c, DAEMON_STAGE_DECIDED, "sandbox_unavailable", msg, a, pd, answer);
		finish_error(c, "sandbox_unavailable", msg, true);
		return;
	}
	free(why);
	c->r.verdict = ex.verdict;
	c->r.exit_code = ex.exit_code;
	c->r.signal = ex.signal;
	c->r.reason = ex.reason;
	c->r.execution = ex.json;
	free(c->detail);
	c->detail = ex.detail;
	c->r.detail = c->detail;
	json_t *f = json_pack("{s:s}", "verdict", result_verdict_to_string(ex.verdict));
	if (ex.json)
		json_object_set(f, "execution", ex.json);
	end_run(c, f, false, NULL, pd, answer, a);
}

/* The decision of an earlier attempt at this content, taken over from p:
 * *answer becomes the answer it rests on. */
static void resume_decision(struct job_ctx *c, struct daemon_progress *p, struct policy_decision *pd,
			    struct approval *answer, char **decider)
{
	*pd = p->pd;
	*answer = p->answer;
	memset(&p->answer, 0, sizeof(p->answer));
	c->r.decision.action = policy_action_to_string(pd->action);
	c->r.decision.by = pd->by;
	if (strcmp(pd->by, "user") == 0) {
		c->r.decision.uid = answer->uid;
		c->r.decision.reason = answer->reason;
		*decider = account_user_name(answer->uid);
		c->r.decision.user = *decider;
	}
}

/* A held script's detail: the one reason a person should look (the
 * assessment's "reason"), then what became of an answer that was refused.
 * NULL when there is neither. */
static char *hold_detail(const struct job_ctx *c, const struct daemon_assessment *a,
			 const struct daemon_answers *ans)
{
	const char *why = json_string_value(json_object_get(a->json, "reason"));
	char *note = daemon_answers_note(c, ans);

	if (!why)
		return note;
	char *d = xasprintf("Look at %s%s%s", why, note ? ". " : "", note ? note : "");
	free(note);
	return d;
}

void daemon_job_run(void *arg, const struct jobs_item *item)
{
	struct job_ctx c = { .d = arg, .job = item->payload, .attempt = 1 };
	const struct daemon_stages *st = c.d->stages;
	struct daemon_assessment a = { 0 };
	struct daemon_answers ans = { 0 };
	struct policy_decision pd;
	struct daemon_progress p = { 0 };
	json_t *since = NULL;
	char *decider = NULL, *answerers = NULL;
	struct stagetime stages = { 0 };

	/* The stages before this thread took the job: the loop's. */
	stages.ns[STAGE_INTAKE] = c.job->intake_ns;
	stages.ns[STAGE_RESULT] = c.job->queued_write_ns;
	if (c.job->queued_at_ns)
		stages.ns[STAGE_QUEUE] = stagetime_now_ns() - c.job->queued_at_ns;
	stagetime_bind(&stages);
	c.r.stages = &stages;

	c.who = daemon_job_approvers(c.d);
	c.writer = account_user_name(c.job->writer.uid);
	c.r.file = c.job->name;
	c.r.sha256 = c.job->snap.sha256;
	c.r.size = c.job->snap.len;
	c.r.writer = &c.job->writer;
	c.r.writer_user = c.writer;
	c.r.accepted = c.job->accepted;
	c.r.decision.uid = -1;
	/* Its answers are for who may read it (its diffs and outputs are its
	 * content). */
	struct dirwrite_access access;
	place_script_access(c.job->snap.uid, c.job->snap.gid, c.job->snap.mode, &access);
	c.r.access = &access;

	/* A retry of the same content goes on where the last attempt stopped. */
	bool resumed = daemon_resumes_take(c.d->resumes, c.job->name, c.job->snap.sha256, &p);
	if (resumed) {
		c.job_seq = p.job;
		c.accepted = c.accepted_durable = true;
		c.attempt = p.attempts + 1;
		c.seqs = steal_pointer(&p.seqs);
		c.seqs_cap = c.r.audit.n_seqs = c.durable_n = p.n_seqs;
		c.r.audit.seqs = c.seqs;
	} else if (!audit_accept(&c)) {
		park(&c, DAEMON_STAGE_ACCEPTED, "audit_unwritable", c.audit_why, NULL, NULL, NULL);
		finish_error(&c, "audit_unwritable", c.audit_why, true);
		goto out;
	}
	if (resumed && p.stage >= DAEMON_STAGE_ASSESSED) {
		a = p.a;
		memset(&p.a, 0, sizeof(p.a));
	} else {
		if (!st || !st->assess) {
			finish_error(&c, "no_assessor", "the assessor is not part of this build of the agent",
				     false);
			goto out;
		}
		stagetime_mark(STAGE_OTHER);
		int ar = st->assess(st->ctx, c.job->name, &c.job->snap, &a);
		stagetime_mark(STAGE_OTHER); /* what the assessor did not mark */
		if (ar < 0) {
			/* The retry record says what the answer says. */
			const char *reason = a.fail_reason ? a.fail_reason : "assessor_failed";
			const char *why = a.detail ? a.detail : "the assessment failed (see the agent log)";
			park(&c, DAEMON_STAGE_ACCEPTED, reason, why, NULL, NULL, NULL);
			finish_error(&c, reason, why, true);
			goto out;
		}
		daemon_status_count_level(c.d->status, a.level);
		/* The assessment comes first: the answers' records follow it, and
		 * the decision that rests on them. */
		json_t *af = json_pack("{s:i, s:b}", "level", (int)a.level, "rejected", a.rejected);
		if (a.json)
			json_object_set(af, "assessment", a.json);
		if (!daemon_job_audit_queued(&c, AUDIT_EVENT_ASSESSMENT, af)) {
			park(&c, DAEMON_STAGE_ACCEPTED, "audit_unwritable", c.audit_why, NULL, NULL, NULL);
			finish_error(&c, "audit_unwritable", c.audit_why, true);
			goto out;
		}
	}
	c.r.assessment = a.json;

	ans.approve = ans.override = ans.refused_status = APPROVAL_NONE;
	if (resumed && p.stage == DAEMON_STAGE_DECIDED) {
		resume_decision(&c, &p, &pd, &ans.used, &decider);
	} else {
		if (!a.rejected && !daemon_answers_take(&c, a.level, &ans)) {
			park(&c, DAEMON_STAGE_ASSESSED, "audit_unwritable", c.audit_why, &a, NULL, NULL);
			finish_error(&c, "audit_unwritable", c.audit_why, true);
			goto out;
		}
		policy_decide(a.level, a.rejected, ans.approve, ans.override, &pd);
		c.r.decision.action = policy_action_to_string(pd.action);
		c.r.decision.by = pd.by;
		if (strcmp(pd.by, "user") == 0) {
			c.r.decision.uid = ans.used.uid;
			c.r.decision.reason = ans.used.reason;
			decider = account_user_name(ans.used.uid);
		}
		c.r.decision.user = decider;
		if (!daemon_job_audit(&c, AUDIT_EVENT_DECISION, decision_fields(&c, &pd, &ans))) {
			park(&c, DAEMON_STAGE_ASSESSED, "audit_unwritable", c.audit_why, &a, NULL, NULL);
			finish_error(&c, "audit_unwritable", c.audit_why, true);
			goto out;
		}
	}

	switch (pd.action) {
	case POLICY_REJECT:
		c.r.state = RESULT_REJECTED;
		c.r.reason = a.reject_reason ? a.reject_reason : "not_text";
		c.r.detail = a.detail;
		finish_final(&c);
		break;
	case POLICY_HOLD:
	case POLICY_BLOCK:
		c.r.state = pd.state;
		c.detail = hold_detail(&c, &a, &ans);
		c.r.detail = c.detail;
		answerers = who_may_answer(&c);
		c.r.answerers = answerers;
		since = since_last_run(&c);
		c.r.since_last_run = since;
		finish_final(&c);
		break;
	case POLICY_RUN:
		run_content(&c, &pd, &ans.used, &a);
		break;
	}
out:
	stagetime_bind(NULL);
	if (st && st->answered)
		st->answered(st->ctx);
	keep_history(&c);
	if (c.r.execution)
		json_decref(c.r.execution);
	json_decref(since);
	json_decref(a.json);
	free(a.detail);
	free(c.detail);
	free(c.audit_why);
	free(c.seqs);
	free(c.writer);
	free(decider);
	free(answerers);
	daemon_answers_clear(&ans);
	daemon_progress_clear(&p);
	approvers_unref(c.who);
}
