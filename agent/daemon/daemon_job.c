/* One job on a worker thread: audit, assess, policy (with the user's
 * answers), execute, and the sidecar at each step. */
#include "daemon_job.h"

#include <fcntl.h>
#include <string.h>

#include "approval.h"
#include "log.h"
#include "names.h"
#include "policy.h"

#define MAX_SEQS 8

struct job_ctx {
	struct daemon_job_env *d;
	const struct daemon_job *job;
	struct result_info r;
	uint64_t seqs[MAX_SEQS];
	struct audit_sidecar_info position; /* behind r.audit's entry hash */
	uint64_t job_seq; /* of job_accepted: the "job" field of the later records */
	bool accepted;    /* job_seq is set */
	uint64_t last_seq; /* of the record audit() appended last, when last_valid */
	bool last_valid;
	uint64_t answer_seq; /* of the approval/override record of the answer used */
	bool answer_recorded; /* answer_seq is set */
	uint64_t first_seq;   /* of that answer's first record (an earlier attempt's) */
	bool first_recorded;
	char *detail; /* owned text behind r.detail */
};

void daemon_job_free(void *payload)
{
	struct daemon_job *job = payload;
	if (!job)
		return;
	intake_snapshot_clear(&job->snap);
	free(job->name);
	free(job);
}

void daemon_job_write_result(struct daemon_job_env *env, const struct result_info *r)
{
	char *err = NULL;

	pthread_mutex_lock(&env->result_lock);
	int rc = result_write(drop_source_dir(env->source), r, &err);
	pthread_mutex_unlock(&env->result_lock);
	if (rc < 0) {
		log_errorx("%s", err);
		free(err);
	} else {
		_cleanup_free_ char *side = names_sidecar(r->file, RESULT_SUFFIX);
		drop_source_changed(env->source, side);
	}
	daemon_status_count_state(env->status, r->state);
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

/* Asks the loop to take name again after a growing delay. */
static void schedule_retry(struct daemon_job_env *env, const char *name)
{
	daemon_retries_schedule(env->retries, name);
	if (env->wake)
		env->wake(env->wake_arg);
}

static void now_ts(struct timespec *ts)
{
	clock_gettime(CLOCK_REALTIME, ts);
}

/* Appends one record (takes fields); false (and an error result) when the
 * log refuses: then nothing may run. */
static bool audit(struct job_ctx *c, enum audit_event e, json_t *fields)
{
	const struct daemon_stages *st = c->d->stages;
	uint64_t seq = 0;
	int r;

	json_object_set_new(fields, "file", json_string(c->r.file));
	if (c->r.sha256)
		json_object_set_new(fields, "sha256", json_string(c->r.sha256));
	if (c->accepted)
		json_object_set_new(fields, "job", json_integer((json_int_t)c->job_seq));
	if (!st || !st->audit) {
		json_decref(fields);
		return true; /* the audit log is not part of this build: nothing to cite */
	}
	r = st->audit(st->ctx, e, fields, &seq);
	json_decref(fields);
	if (r < 0) {
		free(c->detail);
		c->detail = xasprintf("the audit log cannot be written: %s; nothing runs until "
				      "it can (check the disk of audit.log_dir)", strerror(-r));
		log_errorx("%s: %s", c->r.file, c->detail);
		return false;
	}
	if (e == AUDIT_EVENT_JOB_ACCEPTED) {
		c->job_seq = seq;
		c->accepted = true;
	}
	c->last_seq = seq;
	c->last_valid = true;
	if (c->r.audit.n_seqs < MAX_SEQS)
		c->seqs[c->r.audit.n_seqs++] = seq;
	return true;
}

/* job_accepted, with what the content is to the history of its name, and
 * for a known name with new content the script_diff record (capped at
 * audit.diff_max). The content becomes the latest version of its name only
 * once these records are durable, so that a retry diffs against the same
 * previous version. false when the log refuses. */
static bool audit_accept(struct job_ctx *c)
{
	const struct mai_config *cfg = c->d->cfg;
	const struct intake_snapshot *snap = &c->job->snap;
	enum audit_script_history h;
	json_t *diff = NULL;
	_cleanup_free_ char *err = NULL;

	if (audit_script_compare(cfg->agent.state_dir, c->job->name, (const char *)snap->data, snap->len,
				 (size_t)atomic_load(&c->d->diff_max), &h, &diff, &err) < 0)
		log_warnx("%s: no diff against the previous version: %s", c->r.file, err);
	const struct drop_writer *w = &c->job->writer;
	json_t *f = json_pack("{s:I, s:I, s:s, s:o}", "size", (json_int_t)snap->len, "uid",
			      (json_int_t)w->uid, "history", audit_script_history_to_string(h),
			      "writer", drop_writer_to_json(w));
	if (err)
		json_object_set_new(f, "history_error", json_string(err));
	bool ok = audit(c, AUDIT_EVENT_JOB_ACCEPTED, f);
	if (diff && ok)
		ok = audit(c, AUDIT_EVENT_SCRIPT_DIFF, diff);
	else
		json_decref(diff);
	if (!ok)
		return false;
	if (h == AUDIT_SCRIPT_NEW || h == AUDIT_SCRIPT_CHANGED) {
		free(err);
		err = NULL;
		if (audit_script_remember(cfg->agent.state_dir, c->job->name, (const char *)snap->data, snap->len, &err) < 0)
			log_warnx("%s: this version is not kept for the next diff: %s", c->r.file, err);
	}
	return true;
}

static void finish_error(struct job_ctx *c, const char *reason, const char *detail, bool retry)
{
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

	/* The records it cites are durable already; the final result.json comes
	 * last, so that whoever waits for it finds foo.audit in place. */
	if (st && st->audit_sidecar && c->r.audit.n_seqs > 0) {
		_cleanup_free_ char *side = names_sidecar(c->job->name, ".audit");
		_cleanup_free_ char *path = xasprintf("%s/%s", drop_source_dir(c->d->source), side);
		int r = st->audit_sidecar(st->ctx, c->seqs, c->r.audit.n_seqs, path, &c->position);
		if (r == 0) {
			drop_source_changed(c->d->source, side);
			c->r.audit.checkpoint_size = c->position.checkpoint_size;
			c->r.audit.entry_hash = c->position.entry_hash[0] ? c->position.entry_hash : NULL;
		} else {
			_cleanup_free_ char *p = names_printable(path);
			log_warnx("cannot write %s: %s", p, strerror(-r));
		}
	}
	now_ts(&c->r.finished);
	daemon_job_write_result(c->d, &c->r);
	jobs_record_final(c->d->jobs, c->job->name, c->job->snap.sha256,
			  result_state_to_string(c->r.state));
	daemon_retries_clear(c->d->retries, c->job->name);
	daemon_grants_drop(c->d->grants, c->job->name);
}

/* The user's text as a JSON string: as written when it is UTF-8, else with
 * the bytes escaped ("" for none). */
static json_t *reason_json(const char *reason)
{
	if (!reason)
		return json_string("");
	if (names_is_utf8(reason))
		return json_string(reason);
	_cleanup_free_ char *p = names_printable(reason);
	return json_string(p);
}

/* The approval or override record of an answer of kind that approval_take()
 * consumed with status s (errno err), or, with reused, that an earlier
 * attempt at this content consumed. false when the log refuses. */
static bool audit_answer(struct job_ctx *c, enum approval_kind kind, const struct approval *a,
			 enum approval_status s, int err, const struct daemon_grant *reused)
{
	/* approval_take() knows the owner only of an answer it could read. */
	bool uid_known = s == APPROVAL_OK || s == APPROVAL_EMPTY || s == APPROVAL_STALE;
	json_t *f = json_pack("{s:o, s:o, s:b, s:s, s:s}", "uid",
			      uid_known ? json_integer(a->uid) : json_null(), "explanation",
			      reason_json(a->reason), "accepted", s == APPROVAL_OK, "status",
			      approval_status_to_string(s), "consumed", approval_consumed_to_string(s));
	if (a->pinned_sha256[0])
		json_object_set_new(f, "pinned_sha256", json_string(a->pinned_sha256));
	if (err)
		json_object_set_new(f, "error", json_string(strerror(err)));
	if (reused) {
		/* first_seq: the record the earlier attempt wrote (none when its
		 * append failed: then this one is the first). */
		json_object_set_new(f, "reused", json_true());
		if (reused->recorded)
			json_object_set_new(f, "first_seq", json_integer((json_int_t)reused->seq));
	}
	if (!audit(c, kind == APPROVAL_OVERRIDE ? AUDIT_EVENT_OVERRIDE : AUDIT_EVENT_APPROVAL, f))
		return false;
	if (s == APPROVAL_OK) {
		c->answer_recorded = c->last_valid;
		c->answer_seq = c->last_seq;
		c->first_recorded = (reused && reused->recorded) || c->last_valid;
		c->first_seq = reused && reused->recorded ? reused->seq : c->last_seq;
	}
	return true;
}

/* approval_take() consumed (renamed away) the job's answer of kind. */
static void answer_gone(struct job_ctx *c, enum approval_kind kind)
{
	_cleanup_free_ char *suffix = xasprintf(".%s", approval_kind_to_string(kind));
	_cleanup_free_ char *rel = names_sidecar(c->job->name, suffix);
	drop_source_changed(c->d->source, rel);
}

/* Consumes the answers the level calls for, each recorded before anything
 * rests on it. false when the log refuses a record: then a usable answer is
 * kept as a grant for the retry (nothing runs without its record). */
static bool take_answers(struct job_ctx *c, enum level level, enum approval_status *ap,
			 enum approval_status *ov, struct approval *answer)
{
	const char *slash = strrchr(c->job->name, '/');
	const char *drop = drop_source_dir(c->d->source);
	_cleanup_free_ char *dir = slash ? xasprintf("%s/%.*s", drop, (int)(slash - c->job->name),
						     c->job->name)
					 : xstrdup(drop);
	const char *base = slash ? slash + 1 : c->job->name;
	const char *sha = c->job->snap.sha256;
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct daemon_grant g;
	struct approval tmp;
	int err;

	*ap = *ov = APPROVAL_NONE;
	memset(answer, 0, sizeof(*answer));
	if (dfd < 0 || level < LEVEL_HIGH)
		return true;
	/* An answer consumed by an earlier attempt at this very content. */
	if (daemon_grants_find(c->d->grants, c->job->name, sha, &g)) {
		if (g.answer.kind == APPROVAL_APPROVE && level == LEVEL_HIGH)
			*ap = APPROVAL_OK;
		else if (g.answer.kind == APPROVAL_OVERRIDE)
			*ov = APPROVAL_OK;
		*answer = g.answer;
		if (*ap == APPROVAL_OK || *ov == APPROVAL_OK)
			return audit_answer(c, answer->kind, answer, APPROVAL_OK, 0, &g);
		approval_clear(answer);
	}
	if (level == LEVEL_HIGH) {
		*ap = approval_take(dfd, base, APPROVAL_APPROVE, sha, answer, &err);
		if (*ap != APPROVAL_NONE)
			answer_gone(c, APPROVAL_APPROVE);
		if (*ap != APPROVAL_NONE && !audit_answer(c, APPROVAL_APPROVE, answer, *ap, err, NULL)) {
			if (*ap == APPROVAL_OK)
				daemon_grants_keep(c->d->grants, c->job->name, sha, answer, false, 0);
			return false;
		}
		if (*ap == APPROVAL_OK)
			return true;
		approval_clear(answer);
	}
	*ov = approval_take(dfd, base, APPROVAL_OVERRIDE, sha, &tmp, &err);
	if (*ov != APPROVAL_NONE)
		answer_gone(c, APPROVAL_OVERRIDE);
	bool recorded = *ov == APPROVAL_NONE || audit_answer(c, APPROVAL_OVERRIDE, &tmp, *ov, err, NULL);
	if (!recorded && *ov == APPROVAL_OK)
		daemon_grants_keep(c->d->grants, c->job->name, sha, &tmp, false, 0);
	if (*ov == APPROVAL_OK || *ap == APPROVAL_NONE || *ap == APPROVAL_OK) {
		*answer = tmp;
	} else {
		approval_clear(&tmp);
	}
	return recorded;
}

static json_t *decision_fields(const struct job_ctx *c, const struct policy_decision *pd,
			       const struct approval *a, enum approval_status ap, enum approval_status ov)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "action", policy_action_to_string(pd->action),
			      "by", pd->by, "approve", approval_status_to_string(ap),
			      "override", approval_status_to_string(ov));
	if (strcmp(pd->by, "user") == 0) {
		json_object_set_new(o, "uid", json_integer(a->uid));
		json_object_set_new(o, "answer", json_string(approval_kind_to_string(a->kind)));
		if (a->reason)
			json_object_set_new(o, "reason", reason_json(a->reason));
		/* The approval or override record this decision rests on. */
		if (c->answer_recorded)
			json_object_set_new(o, "answer_seq", json_integer((json_int_t)c->answer_seq));
	}
	return o;
}

static void run_content(struct job_ctx *c, const struct policy_decision *pd,
			const struct approval *answer, const struct daemon_assessment *a)
{
	const struct daemon_stages *st = c->d->stages;
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
	int rc = st->execute(st->ctx, c->job->name, &c->job->snap, a, pd->trust, &ex, &why);
	if (rc < 0) {
		_cleanup_free_ char *msg = xasprintf("%s", why ? why : strerror(-rc));
		free(why);
		json_decref(ex.json);
		free(ex.detail);
		if (strcmp(pd->by, "user") == 0)
			daemon_grants_keep(c->d->grants, c->job->name, c->job->snap.sha256, answer, c->first_recorded,
				   c->first_seq);
		if (rc == -ECANCELED) {
			/* The agent stops: the run is recorded as killed by it, and
			 * the state stays non-final so the next start runs it again. */
			json_t *f = json_pack("{s:s, s:s, s:s}", "state", "error", "reason",
					      "agent_stopped", "detail", msg);
			json_object_set_new(f, "verdict", json_string("agent_stopped"));
			(void)audit(c, AUDIT_EVENT_EXECUTION, f);
			c->r.retry = RESULT_RETRY_NEXT_START;
			finish_error(c, "agent_stopped", msg, false);
			return;
		}
		finish_error(c, "sandbox_unavailable", msg, true);
		return;
	}
	free(why);
	c->r.state = RESULT_COMPLETED;
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
	if (!audit(c, AUDIT_EVENT_EXECUTION, f)) {
		finish_error(c, "audit_unwritable", c->detail, true);
		return;
	}
	finish_final(c);
}

void daemon_job_run(void *arg, const struct jobs_item *item)
{
	struct job_ctx c = { .d = arg, .job = item->payload };
	const struct daemon_stages *st = c.d->stages;
	struct daemon_assessment a = { 0 };
	struct approval answer = { 0 };
	enum approval_status ap, ov;
	struct policy_decision pd;

	c.r.file = c.job->name;
	c.r.sha256 = c.job->snap.sha256;
	c.r.size = c.job->snap.len;
	c.r.accepted = c.job->accepted;
	c.r.writer = &c.job->writer;
	c.r.decision.uid = -1;
	c.r.audit.seqs = c.seqs;

	if (!audit_accept(&c)) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}
	if (!st || !st->assess) {
		finish_error(&c, "no_assessor", "the assessor is not part of this build of the agent",
			     false);
		goto out;
	}
	if (st->assess(st->ctx, c.job->name, &c.job->snap, &a) < 0) {
		finish_error(&c, "assessor_failed", "the assessment failed (see the agent log)", true);
		goto out;
	}
	c.r.assessment = a.json;
	daemon_status_count_level(c.d->status, a.level);

	/* The assessment comes first: the answers' records follow it, and the
	 * decision that rests on them. */
	json_t *af = json_pack("{s:i, s:b}", "level", (int)a.level, "rejected", a.rejected);
	if (a.json)
		json_object_set(af, "assessment", a.json);
	if (!audit(&c, AUDIT_EVENT_ASSESSMENT, af)) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}
	ap = ov = APPROVAL_NONE;
	if (!a.rejected && !take_answers(&c, a.level, &ap, &ov, &answer)) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}
	policy_decide(a.level, a.rejected, ap, ov, &pd);
	c.r.decision.action = policy_action_to_string(pd.action);
	c.r.decision.by = pd.by;
	if (strcmp(pd.by, "user") == 0) {
		c.r.decision.uid = answer.uid;
		c.r.decision.reason = answer.reason;
	}
	if (!audit(&c, AUDIT_EVENT_DECISION, decision_fields(&c, &pd, &answer, ap, ov))) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}

	switch (pd.action) {
	case POLICY_REJECT:
		c.r.state = RESULT_REJECTED;
		c.r.reason = a.reject_reason ? a.reject_reason : "not_text";
		c.r.detail = a.detail;
		finish_final(&c);
		break;
	case POLICY_HOLD:
	case POLICY_BLOCK: {
		enum approval_status used = pd.action == POLICY_HOLD ? (ap != APPROVAL_NONE ? ap : ov)
								     : ov;
		enum approval_kind kind = pd.action == POLICY_HOLD && ap != APPROVAL_NONE ?
			APPROVAL_APPROVE : APPROVAL_OVERRIDE;
		const char *slash = strrchr(c.job->name, '/');
		c.r.state = pd.state;
		if (used != APPROVAL_NONE && used != APPROVAL_OK) {
			c.detail = approval_status_message(used, kind, slash ? slash + 1 : c.job->name);
			c.r.detail = c.detail;
		}
		finish_final(&c);
		break;
	}
	case POLICY_RUN:
		run_content(&c, &pd, &answer, &a);
		break;
	}
out:
	if (c.r.execution)
		json_decref(c.r.execution);
	json_decref(a.json);
	free(a.detail);
	free(c.detail);
	approval_clear(&answer);
}
