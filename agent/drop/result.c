#include "result.h"

#include <string.h>

#include "names.h"

static const char *const state_names[] = {
	[RESULT_QUEUED] = "queued",
	[RESULT_RUNNING] = "running",
	[RESULT_COMPLETED] = "completed",
	[RESULT_AWAITING_CONFIRMATION] = "awaiting_confirmation",
	[RESULT_BLOCKED] = "blocked",
	[RESULT_REJECTED] = "rejected",
	[RESULT_ERROR] = "error",
};

static const char *const verdict_names[] = {
	[RESULT_VERDICT_NONE] = "none",
	[RESULT_VERDICT_EXITED] = "exited",
	[RESULT_VERDICT_TIMEOUT] = "timeout",
	[RESULT_VERDICT_OOM_KILLED] = "oom_killed",
	[RESULT_VERDICT_OUTPUT_LIMIT] = "output_limit",
	[RESULT_VERDICT_PIDS_LIMIT] = "pids_limit",
	[RESULT_VERDICT_SANDBOX_ERROR] = "sandbox_error",
};

const char *result_state_to_string(enum result_state s)
{
	return (size_t)s < ARRAY_SIZE(state_names) ? state_names[s] : "unknown";
}

int result_state_from_string(const char *s, enum result_state *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(state_names); i++)
		if (strcmp(s, state_names[i]) == 0) {
			*out = (enum result_state)i;
			return 0;
		}
	return -EINVAL;
}

bool result_state_is_final(enum result_state s)
{
	return s == RESULT_COMPLETED || s == RESULT_REJECTED || s == RESULT_BLOCKED ||
	       s == RESULT_AWAITING_CONFIRMATION;
}

bool result_json_answers(const json_t *res, const char *sha256, const char *unread_reason)
{
	const char *got = json_string_value(json_object_get(res, "sha256"));
	const char *state = json_string_value(json_object_get(res, "state"));
	const char *reason = json_string_value(json_object_get(res, "reason"));
	enum result_state s;

	if (!state || result_state_from_string(state, &s) < 0)
		return false;
	if (!sha256)
		return !got && s == RESULT_REJECTED && reason && unread_reason &&
		       strcmp(reason, unread_reason) == 0;
	if (!got || strcmp(got, sha256) != 0)
		return false;
	if (result_state_is_final(s))
		return true;
	return s == RESULT_ERROR && reason &&
	       (strcmp(reason, "no_assessor") == 0 || strcmp(reason, "no_sandbox") == 0);
}

const char *result_verdict_to_string(enum result_verdict v)
{
	return (size_t)v < ARRAY_SIZE(verdict_names) ? verdict_names[v] : "unknown";
}

int result_verdict_from_string(const char *s, enum result_verdict *out)
{
	for (size_t i = 1; i < ARRAY_SIZE(verdict_names); i++)
		if (strcmp(s, verdict_names[i]) == 0) {
			*out = (enum result_verdict)i;
			return 0;
		}
	return -EINVAL;
}

/* The name a user types: the last component, escaped when it must be. */
static char *user_name(const char *file)
{
	const char *slash = strrchr(file, '/');
	return names_printable(slash ? slash + 1 : file);
}

static char *completed_message(const struct result_info *r)
{
	const char *d = r->detail ? r->detail : "no detail";

	switch (r->verdict) {
	case RESULT_VERDICT_EXITED:
		if (r->signal > 0)
			return xasprintf("The script was killed by signal %d: read stderr under "
					 "execution, fix the script and save it again.", r->signal);
		if (r->exit_code == 0)
			return NULL;
		/* The run ended before the script did (its dependencies failed):
		 * the sandbox's own words say what to fix. */
		if (r->reason && r->detail)
			return xstrdup(r->detail);
		return xasprintf("The script exited with status %d: read stderr under execution, "
				 "fix the script and save it again.", r->exit_code);
	case RESULT_VERDICT_TIMEOUT:
		return xstrdup("The script ran past its time limit and was stopped: make it "
			       "finish sooner, or raise the timeout for its trust level in "
			       "sandbox.yaml.");
	case RESULT_VERDICT_OOM_KILLED:
		return xstrdup("The script went over its memory limit and was killed: use less "
			       "memory, or raise the memory limit for its trust level in "
			       "sandbox.yaml.");
	case RESULT_VERDICT_OUTPUT_LIMIT:
		return xstrdup("The script wrote more output than the cap and was stopped: print "
			       "less, or raise the output cap in sandbox.yaml.");
	case RESULT_VERDICT_PIDS_LIMIT:
		return xstrdup("The script started more processes or threads than allowed and was "
			       "stopped: start fewer, or raise the pids limit for its trust level "
			       "in sandbox.yaml.");
	case RESULT_VERDICT_SANDBOX_ERROR:
		return xasprintf("The sandbox could not run the script (%s): check 'mai-agent "
				 "status' and the agent log, then save the file again.", d);
	case RESULT_VERDICT_NONE:
		break;
	}
	return xstrdup("The script ran but its outcome is unknown: see the agent log.");
}

static char *error_message(const struct result_info *r)
{
	const char *d = r->detail ? r->detail : "see the agent log";

	switch (r->retry) {
	case RESULT_RETRY_NEXT_START:
		return xasprintf("The agent stopped before this job could finish (%s). Nothing to "
				 "do if it is restarting; otherwise start it ('mai-agent run', or "
				 "its service) and this file is answered then.", d);
	case RESULT_RETRY_NONE:
		return xasprintf("The agent cannot finish this job (%s) and does not retry it: "
				 "fix that, then save the file again; 'mai-agent status' and the "
				 "agent log say more.", d);
	case RESULT_RETRY_BACKOFF:
		break;
	}
	return xasprintf("The agent could not finish this job (%s); it retries on its own: "
			 "check 'mai-agent status' and the agent log if this stays.", d);
}

char *result_message(const struct result_info *r)
{
	_cleanup_free_ char *name = user_name(r->file);
	_cleanup_free_ char *stem = names_sidecar(name, "");
	_cleanup_free_ char *note = r->detail ? xasprintf("%s. ", r->detail) : xstrdup("");

	switch (r->state) {
	case RESULT_QUEUED:
		if (r->queue_ahead >= 0)
			return xasprintf("Accepted and queued at position %ld (%ld job%s ahead of it; "
					 "turns are shared round-robin by writer): this file is "
					 "rewritten with the outcome when it has run.",
					 r->queue_ahead + 1, r->queue_ahead,
					 r->queue_ahead == 1 ? "" : "s");
		return xstrdup("Accepted and waiting for a free worker: this file is rewritten "
			       "with the outcome when it has run.");
	case RESULT_RUNNING:
		return xstrdup("Running in the sandbox: this file is rewritten with the outcome "
			       "when it ends.");
	case RESULT_COMPLETED:
		return completed_message(r);
	case RESULT_AWAITING_CONFIRMATION:
		return xasprintf("%sAssessed HIGH risk, so it waits for a confirmation by an "
				 "approver (%s): they read the findings ('mai-agent pending') and "
				 "run 'mai-agent approve %s', which lets exactly the content they "
				 "saw run. A hand-written %s.approve without its sha256 counts only "
				 "for the content held before it was written.", note,
				 r->answerers ? r->answerers : "approvers in security.yaml", name,
				 stem);
	case RESULT_BLOCKED:
		return xasprintf("%sAssessed BLOCKED, so it does not run: fix the findings and "
				 "save it again, or an approver (%s) runs 'mai-agent override %s "
				 "--reason TEXT' to run exactly the content they saw anyway. A "
				 "hand-written %s.override without its sha256 counts only for the "
				 "content held before it was written.", note,
				 r->answerers ? r->answerers : "approvers in security.yaml", name,
				 stem);
	case RESULT_REJECTED:
		if (r->detail)
			return xasprintf("Rejected: %s", r->detail);
		return xstrdup("Rejected: the file cannot be taken in; see reason and the agent "
			       "log.");
	case RESULT_ERROR:
		return error_message(r);
	}
	return xstrdup("Unknown state: see the agent log.");
}

void result_format_time(const struct timespec *ts, char *buf, size_t size)
{
	struct tm tm;
	char base[24];
	time_t t = ts->tv_sec;

	gmtime_r(&t, &tm);
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", base, ts->tv_nsec / 1000000L);
}

static void set_time(json_t *times, const char *key, const struct timespec *ts)
{
	char buf[40];
	if (ts->tv_sec == 0)
		return;
	result_format_time(ts, buf, sizeof(buf));
	json_object_set_new(times, key, json_string(buf));
}

static json_t *decision_json(const struct result_decision *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "action", json_string(d->action));
	json_object_set_new(o, "by", json_string(d->by ? d->by : "policy"));
	if (d->uid >= 0)
		json_object_set_new(o, "uid", json_integer(d->uid));
	if (d->uid >= 0 && d->user)
		json_object_set_new(o, "user", json_string(d->user));
	if (d->reason) {
		/* A user's text may be anything: keep it valid in JSON. */
		_cleanup_free_ char *p = names_is_utf8(d->reason) ? NULL : names_printable(d->reason);
		json_object_set_new(o, "reason", json_string(p ? p : d->reason));
	}
	return o;
}

static json_t *audit_json(const struct result_audit *a)
{
	json_t *o = json_object();
	json_t *seqs = json_array();
	for (size_t i = 0; i < a->n_seqs; i++)
		json_array_append_new(seqs, json_integer((json_int_t)a->seqs[i]));
	json_object_set_new(o, "seqs", seqs);
	if (a->entry_hash)
		json_object_set_new(o, "entry_hash", json_string(a->entry_hash));
	if (a->checkpoint_size)
		json_object_set_new(o, "checkpoint_size",
				    json_integer((json_int_t)a->checkpoint_size));
	return o;
}

json_t *result_to_json(const struct result_info *r)
{
	json_t *o = json_object();
	json_t *times = json_object();
	_cleanup_free_ char *msg = result_message(r);

	json_object_set_new(o, "schema_version", json_integer(RESULT_SCHEMA_VERSION));
	json_object_set_new(o, "agent_version", json_string(MAI_VERSION));
	if (names_is_utf8(r->file)) {
		json_object_set_new(o, "file", json_string(r->file));
	} else {
		_cleanup_free_ char *p = names_printable(r->file);
		json_object_set_new(o, "file", json_string(p));
		json_object_set_new(o, "file_escaped", json_true());
	}
	if (r->sha256) {
		json_object_set_new(o, "sha256", json_string(r->sha256));
		json_object_set_new(o, "size", json_integer((json_int_t)r->size));
	}
	json_object_set_new(o, "state", json_string(result_state_to_string(r->state)));
	if (r->reason)
		json_object_set_new(o, "reason", json_string(r->reason));
	if (r->state == RESULT_COMPLETED && r->verdict != RESULT_VERDICT_NONE) {
		json_object_set_new(o, "verdict", json_string(result_verdict_to_string(r->verdict)));
		if (r->verdict == RESULT_VERDICT_EXITED) {
			if (r->signal > 0)
				json_object_set_new(o, "signal", json_integer(r->signal));
			else
				json_object_set_new(o, "exit_code", json_integer(r->exit_code));
		}
	}
	if (msg)
		json_object_set_new(o, "message", json_string(msg));
	set_time(times, "accepted", &r->accepted);
	set_time(times, "started", &r->started);
	set_time(times, "finished", &r->finished);
	json_object_set_new(o, "times", times);
	json_t *writer = r->writer ? drop_writer_to_json(r->writer) : NULL;
	if (writer) {
		if (r->writer_user)
			json_object_set_new(writer, "user", json_string(r->writer_user));
		json_object_set_new(o, "writer", writer);
	}
	if (r->state == RESULT_QUEUED && r->queue_ahead >= 0)
		json_object_set_new(o, "queue", json_pack("{s:I, s:I}", "position",
							  (json_int_t)r->queue_ahead + 1, "ahead",
							  (json_int_t)r->queue_ahead));
	if (r->assessment)
		json_object_set(o, "assessment", r->assessment);
	if (r->since_last_run)
		json_object_set(o, "since_last_run", r->since_last_run);
	if (r->decision.action)
		json_object_set_new(o, "decision", decision_json(&r->decision));
	if (r->execution)
		json_object_set(o, "execution", r->execution);
	if (r->audit.n_seqs > 0)
		json_object_set_new(o, "audit", audit_json(&r->audit));
	if (r->stages && r->state != RESULT_QUEUED && r->state != RESULT_RUNNING)
		json_object_set_new(o, "stages_ms", stagetime_to_json(r->stages));
	return o;
}

char *result_render(const struct result_info *r, size_t *len)
{
	json_t *o = result_to_json(r);
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);

	json_decref(o);
	if (!text)
		return NULL;
	size_t n = strlen(text);
	text = xrealloc(text, n + 2);
	text[n++] = '\n';
	text[n] = '\0';
	*len = n;
	return text;
}

enum place_sync result_place_sync(const struct result_info *r)
{
	/* queued and running are replaced within moments and say nothing a
	 * restart needs (it takes again every script without a final answer),
	 * so they are written atomically but not synced: each fsync of the file
	 * and of its directory costs a drop a millisecond or more. */
	return r->state == RESULT_QUEUED || r->state == RESULT_RUNNING ? PLACE_SYNC_NONE : PLACE_SYNC;
}

int result_write(const struct place_dirs *p, const struct result_info *r, char **err)
{
	_cleanup_free_ char *side = names_result_sidecar(r->file, RESULT_SUFFIX);
	size_t len = 0;
	_cleanup_free_ char *text = result_render(r, &len);

	if (!text) {
		_cleanup_free_ char *shown = names_printable(side);
		*err = xasprintf("cannot encode the result of %s as JSON", shown);
		return -EINVAL;
	}
	return place_sidecar(p, side, text, len, r->access, result_place_sync(r), err);
}
