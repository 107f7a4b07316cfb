/* A job's records (daemon_job_ctx.h): what both its steps (daemon_job.c)
 * and its answers (daemon_answer.c) append through. */
#include "daemon_job_ctx.h"

#include <string.h>

#include "log.h"
#include "macro.h"
#include "names.h"

bool daemon_job_audit(struct job_ctx *c, enum audit_event e, json_t *fields)
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
	stagetime_mark(STAGE_OTHER);
	r = st->audit(st->ctx, e, fields, &seq);
	stagetime_mark(STAGE_AUDIT);
	json_decref(fields);
	if (r < 0) {
		/* Nothing may run while the log takes no records: what runs stops. */
		atomic_store(&c->d->halt, true);
		c->audit_err = r;
		free(c->audit_why);
		c->audit_why = r == -EBADMSG
			? xstrdup("the audit log was changed after the agent wrote it, so the agent takes no "
				  "jobs until the log is replaced; 'mai-agent status' says how")
			: xasprintf("the audit log cannot be written: %s; nothing runs until it can "
				    "(check the disk of audit.log_dir)", strerror(-r));
		log_errorx("%s: %s", c->r.file, c->audit_why);
		return false;
	}
	if (!atomic_load(&c->d->stopping))
		atomic_store(&c->d->halt, false);
	if (e == AUDIT_EVENT_JOB_ACCEPTED) {
		c->job_seq = seq;
		c->accepted = true;
	}
	c->last_seq = seq;
	c->last_valid = true;
	if (c->r.audit.n_seqs == c->seqs_cap) {
		c->seqs_cap = c->seqs_cap ? c->seqs_cap * 2 : 8;
		c->seqs = xrealloc(c->seqs, c->seqs_cap * sizeof(*c->seqs));
		c->r.audit.seqs = c->seqs;
	}
	c->seqs[c->r.audit.n_seqs++] = seq;
	return true;
}

json_t *daemon_job_reason_json(const char *reason)
{
	if (!reason)
		return json_string("");
	if (names_is_utf8(reason))
		return json_string(reason);
	_cleanup_free_ char *p = names_printable(reason);
	return json_string(p);
}
