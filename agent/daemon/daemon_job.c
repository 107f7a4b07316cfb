/* One job on a worker thread: audit, assess, policy (with the user's
 * answers, daemon_answer.c), execute, and the sidecars at each step. */
#include "daemon_job.h"

#include <string.h>

#include "account.h"
#include "daemon_answer.h"
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

void daemon_job_write_result(struct daemon_job_env *env, const struct result_info *r)
{
	char *err = NULL;

	pthread_mutex_lock(&env->result_lock);
	int rc = result_write(&env->place, r, &err);
	pthread_mutex_unlock(&env->result_lock);
	/* A refused name is said once per answer: at its last write. */
	if (rc == PLACE_IN_FALLBACK && (r->state == RESULT_QUEUED || r->state == RESULT_RUNNING))
		log_debug("%s", err);
	else if (rc == PLACE_IN_FALLBACK)
		log_warnx("%s", err);
	else if (rc < 0)
		log_errorx("%s", err);
	free(err);
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
		     const char *text, size_t len)
{
	_cleanup_free_ char *side = names_result_sidecar(script, suffix);
	_cleanup_free_ char *err = NULL;

	pthread_mutex_lock(&env->result_lock);
	int r = place_sidecar(&env->place, side, text, len, true, &err);
	pthread_mutex_unlock(&env->result_lock);
	if (r == PLACE_IN_FALLBACK)
		log_warnx("%s", err);
	else if (r < 0)
		log_errorx("%s", err);
	return r < 0 ? r : 0;
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
	json_t *f = json_pack("{s:I, s:i, s:s}", "size", (json_int_t)snap->len, "uid", (int)snap->uid,
			      "history", audit_script_history_to_string(h));
	if (c->writer)
		json_object_set_new(f, "user", json_string(c->writer));
	if (err)
		json_object_set_new(f, "history_error", json_string(err));
	bool ok = daemon_job_audit(c, AUDIT_EVENT_JOB_ACCEPTED, f);
	if (diff && ok)
		ok = daemon_job_audit(c, AUDIT_EVENT_SCRIPT_DIFF, diff);
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
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		int r = st->audit_sidecar(st->ctx, c->seqs, c->r.audit.n_seqs, &text, &len,
					  &c->position);
		if (r == 0 && daemon_job_place(c->d, c->job->name, ".audit", text, len) == 0) {
			c->r.audit.checkpoint_size = c->position.checkpoint_size;
			c->r.audit.entry_hash = c->position.entry_hash[0] ? c->position.entry_hash : NULL;
		} else if (r < 0) {
			_cleanup_free_ char *p = names_printable(c->job->name);
			log_warnx("%s: cannot build its .audit sidecar: %s", p, strerror(-r));
		}
	}
	now_ts(&c->r.finished);
	daemon_job_write_result(c->d, &c->r);
	jobs_record_final(c->d->jobs, c->job->name, c->job->snap.sha256,
			  result_state_to_string(c->r.state));
	daemon_retries_clear(c->d->retries, c->job->name);
	daemon_grants_drop(c->d->grants, c->job->name);
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
	if (audit_script_since_ran(c->d->cfg->agent.state_dir, c->job->name,
				   (const char *)snap->data, snap->len,
				   (size_t)atomic_load(&c->d->diff_max), &f, &err) < 0)
		log_warnx("%s: no diff against the version that ran last: %s", c->r.file, err);
	return f;
}

/* A run ended: this content is the version of its name that ran last. */
static void remember_ran(const struct job_ctx *c)
{
	_cleanup_free_ char *err = NULL;
	if (audit_script_mark_ran(c->d->cfg->agent.state_dir, c->job->name, c->job->snap.sha256,
				  &err) < 0)
		log_warnx("%s: not kept as the version that ran last: %s", c->r.file, err);
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
			(void)daemon_job_audit(c, AUDIT_EVENT_EXECUTION, f);
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
	if (!daemon_job_audit(c, AUDIT_EVENT_EXECUTION, f)) {
		finish_error(c, "audit_unwritable", c->detail, true);
		return;
	}
	remember_ran(c);
	finish_final(c);
}

void daemon_job_run(void *arg, const struct jobs_item *item)
{
	struct job_ctx c = { .d = arg, .job = item->payload };
	const struct daemon_stages *st = c.d->stages;
	struct daemon_assessment a = { 0 };
	struct daemon_answers ans = { 0 };
	struct policy_decision pd;
	json_t *since = NULL;
	char *decider = NULL;

	c.who = daemon_job_approvers(c.d);
	c.writer = account_user_name(c.job->snap.uid);
	c.r.file = c.job->name;
	c.r.sha256 = c.job->snap.sha256;
	c.r.size = c.job->snap.len;
	c.r.has_writer = true;
	c.r.writer_uid = c.job->snap.uid;
	c.r.writer_user = c.writer;
	c.r.accepted = c.job->accepted;
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
	if (!daemon_job_audit(&c, AUDIT_EVENT_ASSESSMENT, af)) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}
	ans.approve = ans.override = ans.refused_status = APPROVAL_NONE;
	if (!a.rejected && !daemon_answers_take(&c, a.level, &ans)) {
		finish_error(&c, "audit_unwritable", c.detail, true);
		goto out;
	}
	policy_decide(a.level, a.rejected, ans.approve, ans.override, &pd);
	c.r.decision.action = policy_action_to_string(pd.action);
	c.r.decision.by = pd.by;
	if (strcmp(pd.by, "user") == 0) {
		c.r.decision.uid = ans.used.uid;
		c.r.decision.reason = ans.used.reason;
	}
	if (strcmp(pd.by, "user") == 0)
		decider = account_user_name(ans.used.uid);
	c.r.decision.user = decider;
	if (!daemon_job_audit(&c, AUDIT_EVENT_DECISION, decision_fields(&c, &pd, &ans))) {
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
	case POLICY_BLOCK:
		c.r.state = pd.state;
		c.detail = daemon_answers_note(&c, &ans);
		c.r.detail = c.detail;
		since = since_last_run(&c);
		c.r.since_last_run = since;
		finish_final(&c);
		break;
	case POLICY_RUN:
		run_content(&c, &pd, &ans.used, &a);
		break;
	}
out:
	if (c.r.execution)
		json_decref(c.r.execution);
	json_decref(since);
	json_decref(a.json);
	free(a.detail);
	free(c.detail);
	free(c.writer);
	free(decider);
	daemon_answers_clear(&ans);
	approvers_unref(c.who);
}
