#include "daemon_mount.h"

#include <errno.h>
#include <string.h>

#include "account.h"
#include "daemon_job.h"
#include "log.h"
#include "names.h"

/* Whether caller may write an answer file for script, whose writer is
 * script_uid (-1: no such script): the approvers of security.yaml, asked on
 * a mount thread (dropfs.h). */
int daemon_mount_answer_allowed(void *arg, const struct drop_writer *caller, const char *script,
				long script_uid, const char **status, char **why)
{
	struct daemon_job_env *env = arg;
	struct approvers *a = daemon_job_approvers(env);
	enum approvers_verdict v = script_uid >= 0 ?
		approvers_check(a, caller->uid, (uid_t)script_uid) :
		approvers_is_approver(a, caller->uid) ? APPROVERS_OK : APPROVERS_NOT_APPROVER;
	_cleanup_free_ char *who = approvers_describe(a);
	_cleanup_free_ char *user = account_user_label(caller->uid);
	approvers_unref(a);
	*status = approvers_verdict_to_string(v);
	if (v == APPROVERS_OK)
		return 0;
	if (v == APPROVERS_SELF)
		*why = xasprintf("%s wrote %s and may not approve or override it too: another "
				 "approver must (on a single-user machine set allow_self_approval: "
				 "true in security.yaml)", user, script);
	else
		*why = xasprintf("%s may not approve or override %s: only %s may (approvers in "
				 "security.yaml)", user, script, who);
	return -EPERM;
}

/* A refusal at the mount's call (dropfs.h), on a mount thread: a log line
 * for each, and for an answer file an approval or override record. */
void daemon_mount_refused(void *arg, const struct dropfs_refusal *rf)
{
	struct daemon_job_env *env = arg;
	_cleanup_free_ char *p = names_printable(rf->rel);
	const struct drop_writer *c = rf->caller;

	log_warnx("%s: %s refused (%s) for uid %u (pid %d, %s): %s%s%s", p, rf->op,
		  strerror(rf->err), (unsigned)c->uid, (int)c->pid,
		  c->process[0] ? c->process : "?", dropfs_refusal_why_to_string(rf->why),
		  rf->detail ? "; " : "", rf->detail ? rf->detail : "");
	if (rf->why != DROPFS_NOT_APPROVER || !env->stages || !env->stages->audit)
		return;
	const char *status = rf->status ? rf->status : "not_approver";
	_cleanup_free_ char *consumed = xasprintf(
		"refused at the call: %s",
		strcmp(status, "self_approval") == 0 ? "self-approval" : "not an approver");
	_cleanup_free_ char *user = account_user_name(c->uid);
	json_t *f = json_pack("{s:s, s:o, s:n, s:I, s:o, s:o, s:s, s:b, s:s, s:s, s:s, s:s}",
			      "file", rf->script, "sha256",
			      rf->script_sha256 ? json_string(rf->script_sha256) : json_null(),
			      "job", "uid", (json_int_t)c->uid, "user",
			      user ? json_string(user) : json_null(), "writer",
			      drop_writer_to_json(c), "explanation", "", "accepted", 0, "status",
			      status, "consumed", consumed, "refused_at", "call", "operation", rf->op);
	if (rf->script_uid >= 0)
		json_object_set_new(f, "script_uid", json_integer(rf->script_uid));
	if (rf->detail)
		json_object_set_new(f, "reason", json_string(rf->detail));
	uint64_t seq;
	enum audit_event e = rf->kind == NAMES_OVERRIDE ? AUDIT_EVENT_OVERRIDE : AUDIT_EVENT_APPROVAL;
	if (env->stages->audit(env->stages->ctx, e, f, &seq) < 0)
		log_errorx("%s: the refused %s could not be recorded in the audit log", p,
			   audit_event_to_string(e));
	json_decref(f);
}


/* A script renamed by someone other than the author of its bytes
 * (dropfs.h), on a mount thread: a log line and a renamed record, so that
 * the log says who moved what; the job that follows names the author as
 * its writer. */
void daemon_mount_renamed(void *arg, const struct dropfs_rename *rn)
{
	struct daemon_job_env *env = arg;
	const struct drop_writer *by = rn->by;
	_cleanup_free_ char *to = names_printable(rn->to), *from = names_printable(rn->from);

	log_info("%s: renamed from %s by uid %u (pid %d, %s); its writer is the owner of its "
		 "bytes, uid %u", to, from, (unsigned)by->uid, (int)by->pid,
		 by->process[0] ? by->process : "?", (unsigned)rn->author_uid);
	if (!env->stages || !env->stages->audit)
		return;
	_cleanup_free_ char *user = account_user_name(by->uid);
	_cleanup_free_ char *author = account_user_name(rn->author_uid);
	json_t *a = json_pack("{s:I, s:I}", "uid", (json_int_t)rn->author_uid, "gid",
			      (json_int_t)rn->author_gid);
	if (author)
		json_object_set_new(a, "user", json_string(author));
	json_t *f = json_pack("{s:s, s:s, s:I, s:o, s:o, s:o}", "file", to, "from", from, "uid",
			      (json_int_t)by->uid, "user", user ? json_string(user) : json_null(),
			      "renamed_by", drop_writer_to_json(by), "author", a);
	uint64_t seq;
	if (env->stages->audit(env->stages->ctx, AUDIT_EVENT_RENAMED, f, &seq) < 0)
		log_errorx("%s: its rename by uid %u could not be recorded in the audit log", to,
			   (unsigned)by->uid);
	json_decref(f);
}
