/* A job's records (daemon_job_ctx.h): what both its steps (daemon_job.c)
 * and its answers (daemon_answer.c) append through. */
#include "daemon_job_ctx.h"

#include <string.h>

#include "log.h"
#include "macro.h"
#include "names.h"

/* The log refused (r): nothing may run, what runs stops, and the records
 * queued since the last durable one are forgotten. */
static void refused(struct job_ctx *c, int r)
{
	const struct daemon_stages *st = c->d->stages;

	atomic_store(&c->d->halt, true);
	c->audit_err = r;
	free(c->audit_why);
	c->audit_why = r == -EBADMSG
		? xstrdup("the audit log was changed after the agent wrote it, so the agent takes no "
			  "jobs until the log is replaced; 'mai-agent status' says how")
		: xasprintf("the audit log cannot be written: %s; nothing runs until it can "
			    "(check the disk of audit.log_dir)", strerror(-r));
	log_errorx("%s: %s", c->r.file, c->audit_why);
	if (st && st->audit_queue) {
		c->r.audit.n_seqs = c->durable_n;
		c->accepted = c->accepted_durable;
		c->last_valid = c->last_valid && c->durable_n > 0;
		if (c->last_valid)
			c->last_seq = c->seqs[c->durable_n - 1];
		c->queued = false;
	}
}

/* Everything the job appended is durable now: its queued records too, when
 * no failed write came between them (one epoch) and the last is durable. */
static int settle(struct job_ctx *c)
{
	const struct daemon_stages *st = c->d->stages;

	if (c->queued) {
		int r = c->first_epoch == c->last_epoch
			? st->audit_sync(st->ctx, c->last_seq_queued, c->last_epoch) : -EIO;
		if (r < 0)
			return r;
		c->queued = false;
	}
	c->durable_n = c->r.audit.n_seqs;
	c->accepted_durable = c->accepted;
	return 0;
}

static bool append(struct job_ctx *c, enum audit_event e, json_t *fields, bool queue)
{
	const struct daemon_stages *st = c->d->stages;
	uint64_t seq = 0, epoch = 0;
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
	queue = queue && st->audit_queue && st->audit_sync;
	stagetime_mark(STAGE_OTHER);
	r = queue ? st->audit_queue(st->ctx, e, fields, &seq, &epoch) : st->audit(st->ctx, e, fields, &seq);
	if (r == 0 && !queue)
		r = settle(c);
	stagetime_mark(STAGE_AUDIT);
	json_decref(fields);
	if (r < 0) {
		refused(c, r);
		return false;
	}
	if (!queue && !atomic_load(&c->d->stopping))
		atomic_store(&c->d->halt, false);
	if (queue) {
		if (!c->queued)
			c->first_epoch = epoch;
		c->queued = true;
		c->last_epoch = epoch;
		c->last_seq_queued = seq;
	}
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
	if (!queue) {
		c->durable_n = c->r.audit.n_seqs;
		c->accepted_durable = c->accepted;
	}
	return true;
}

bool daemon_job_audit(struct job_ctx *c, enum audit_event e, json_t *fields)
{
	return append(c, e, fields, false);
}

bool daemon_job_audit_queued(struct job_ctx *c, enum audit_event e, json_t *fields)
{
	return append(c, e, fields, true);
}

bool daemon_job_audit_sync(struct job_ctx *c)
{
	if (!c->queued)
		return true;
	stagetime_mark(STAGE_OTHER);
	int r = settle(c);
	stagetime_mark(STAGE_AUDIT);
	if (r < 0) {
		refused(c, r);
		return false;
	}
	if (!atomic_load(&c->d->stopping))
		atomic_store(&c->d->halt, false);
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
