/* The user's answers to a held job (daemon_answer.c): approve and override
 * files taken, checked against the approvers and recorded. Internal to
 * daemon/. */
#ifndef MAI_DAEMON_ANSWER_H
#define MAI_DAEMON_ANSWER_H

#include <stdbool.h>

#include "approval.h"
#include "daemon_job_ctx.h"
#include "level.h"

/* What the answers to a job came to (daemon_answer.c). */
struct daemon_answers {
	enum approval_status approve, override; /* APPROVAL_NONE: not looked at */
	struct approval used;    /* the answer that lets it run (status OK), if any */
	/* The first answer that could not be used, for the held result's
	 * message: its status (APPROVAL_NONE: none) and what was known of it. */
	enum approval_status refused_status;
	struct approval refused;
};
void daemon_answers_clear(struct daemon_answers *a);

/* Takes the answers the level calls for, each recorded before anything
 * rests on it. false when the log refuses a record: then a usable answer is
 * kept as a grant for the retry (nothing runs without its record). */
bool daemon_answers_take(struct job_ctx *c, enum level level, struct daemon_answers *out);

/* For a held job with a refused answer: the note in front of its message
 * (what was wrong with the answer and who may approve). NULL when there is
 * nothing to say. Caller frees. */
char *daemon_answers_note(const struct job_ctx *c, const struct daemon_answers *a);

#endif
