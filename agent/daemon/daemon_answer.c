/* A job's answers: foo.approve and foo.override taken from the drop
 * directory (approval.h), checked against the approvers (approvers.h),
 * and recorded one by one before the decision that rests on them. */
#include <fcntl.h>
#include <string.h>

#include "account.h"
#include "daemon_grant.h"
#include "daemon_answer.h"
#include "daemon_job_ctx.h"
#include "names.h"
#include "place.h"

void daemon_answers_clear(struct daemon_answers *a)
{
	approval_clear(&a->used);
	approval_clear(&a->refused);
	memset(a, 0, sizeof(*a));
}

/* The approval or override record of an answer of kind that approval_take()
 * judged with status s (errno err), or, with reused, that an earlier
 * attempt at this content consumed. false when the log refuses. */
static bool audit_answer(struct job_ctx *c, enum approval_kind kind, const struct approval *a,
			 enum approval_status s, int err, const struct daemon_grant *reused)
{
	_cleanup_free_ char *user = a->has_uid ? account_user_name(a->uid) : NULL;
	json_t *f = json_pack("{s:o, s:o, s:o, s:b, s:s, s:s}", "uid",
			      a->has_uid ? json_integer(a->uid) : json_null(), "user",
			      user ? json_string(user) : json_null(), "explanation",
			      daemon_job_reason_json(a->reason), "accepted", s == APPROVAL_OK,
			      "status", approval_status_to_string(s), "consumed",
			      approval_consumed_to_string(s));
	if (a->moved_to)
		json_object_set_new(f, "moved_aside", json_string(a->moved_to));
	if (s == APPROVAL_HARD_LINK)
		json_object_set_new(f, "links", json_integer((json_int_t)a->links));
	if (s == APPROVAL_SELF || s == APPROVAL_NOT_APPROVER)
		json_object_set_new(f, "script_uid", json_integer(c->job->writer.uid));
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
	if (!daemon_job_audit(c, kind == APPROVAL_OVERRIDE ? AUDIT_EVENT_OVERRIDE
							   : AUDIT_EVENT_APPROVAL, f))
		return false;
	if (s == APPROVAL_OK) {
		c->answer_recorded = c->last_valid;
		c->answer_seq = c->last_seq;
		c->first_recorded = (reused && reused->recorded) || c->last_valid;
		c->first_seq = reused && reused->recorded ? reused->seq : c->last_seq;
	}
	return true;
}

/* Takes one answer file of kind and records it. Fills the used or the
 * refused answer of out. false when its record cannot be written. */
static bool take_one(struct job_ctx *c, int dfd, const char *base, enum approval_kind kind,
		     enum approval_status *status, struct daemon_answers *out)
{
	const char *sha = c->job->snap.sha256;
	struct approval a;
	struct approval_seen seen = { .uid = 0 };
	struct jobs_hold hold = { .uid = 0 };
	int err;

	/* What was held and shown last of this name: an answer without a pin
	 * covers that content only (approval.h). */
	bool was_held = jobs_find_hold(c->d->jobs, c->job->name, seen.sha256, &hold);
	seen.uid = hold.uid;
	seen.held = hold.at;
	*status = approval_take(dfd, base, kind, sha, c->who, c->job->writer.uid,
				was_held ? &seen : NULL, &a, &err);
	if (*status == APPROVAL_NONE)
		return true;
	/* Gone from the drop directory (consumed or moved aside): a mount drops
	 * what it cached. */
	_cleanup_free_ char *suffix = xasprintf(".%s", approval_kind_to_string(kind));
	_cleanup_free_ char *rel = names_sidecar(c->job->name, suffix);
	drop_source_changed(c->d->source, rel);
	if (!audit_answer(c, kind, &a, *status, err, NULL)) {
		if (*status == APPROVAL_OK)
			daemon_grants_keep(c->d->grants, c->job->name, sha, &a, false, 0);
		approval_clear(&a);
		return false;
	}
	if (*status == APPROVAL_OK) {
		out->used = a;
	} else if (out->refused_status == APPROVAL_NONE) {
		out->refused_status = *status;
		out->refused = a;
	} else {
		approval_clear(&a);
	}
	return true;
}

bool daemon_answers_take(struct job_ctx *c, enum level level, struct daemon_answers *out)
{
	const char *base = c->job->name;
	const char *sha = c->job->snap.sha256;
	struct daemon_grant g;

	memset(out, 0, sizeof(*out));
	out->approve = out->override = out->refused_status = APPROVAL_NONE;
	if (level < LEVEL_HIGH)
		return true;
	_cleanup_close_ int dfd = place_open_parent(c->d->place.drop_dir, c->job->name, &base);
	if (dfd < 0)
		return true;
	/* An answer consumed by an earlier attempt at this very content. */
	if (daemon_grants_find(c->d->grants, c->job->name, sha, &g)) {
		if (g.answer.kind == APPROVAL_APPROVE && level == LEVEL_HIGH)
			out->approve = APPROVAL_OK;
		else if (g.answer.kind == APPROVAL_OVERRIDE)
			out->override = APPROVAL_OK;
		if (out->approve == APPROVAL_OK || out->override == APPROVAL_OK) {
			out->used = g.answer;
			return audit_answer(c, g.answer.kind, &out->used, APPROVAL_OK, 0, &g);
		}
		approval_clear(&g.answer);
	}
	if (level == LEVEL_HIGH) {
		if (!take_one(c, dfd, base, APPROVAL_APPROVE, &out->approve, out))
			return false;
		if (out->approve == APPROVAL_OK)
			return true;
	}
	return take_one(c, dfd, base, APPROVAL_OVERRIDE, &out->override, out);
}

char *daemon_answers_note(const struct job_ctx *c, const struct daemon_answers *a)
{
	const char *slash = strrchr(c->job->name, '/');
	if (a->refused_status == APPROVAL_NONE || a->refused_status == APPROVAL_OK)
		return NULL;
	return approval_status_message(a->refused_status, a->refused.kind,
				       slash ? slash + 1 : c->job->name, &a->refused, c->who);
}
