/* Policy: what happens to assessed content (docs/ARCHITECTURE.md "Policy").
 *
 * LOW and MEDIUM run (trust "trusted" and "standard"); HIGH waits for a
 * confirmation (foo.approve) and then runs untrusted; BLOCKED does not run
 * unless a user overrides it with an explanation (foo.override), and then
 * runs untrusted. A rejected file (not valid source text) never runs. */
#ifndef MAI_POLICY_H
#define MAI_POLICY_H

#include "approval.h"
#include "level.h"
#include "result.h"

enum policy_action {
	POLICY_RUN,
	POLICY_HOLD,   /* HIGH without a confirmation */
	POLICY_BLOCK,  /* BLOCKED without a usable override */
	POLICY_REJECT, /* not valid source text: never runs */
};
const char *policy_action_to_string(enum policy_action a);

struct policy_decision {
	enum policy_action action;
	enum result_state state; /* running, awaiting_confirmation, blocked or rejected */
	enum trust trust; /* for POLICY_RUN */
	const char *by;          /* "policy" or "user" */
	/* Which answer was used (APPROVAL_APPROVE / _OVERRIDE), when by "user". */
	enum approval_kind answer;
};

/* Decides for one content. rejected: the assessor refused it as text.
 * approve and override: what approval_take() said for each answer file
 * (APPROVAL_NONE when it was not looked at). A confirmation only lifts
 * HIGH; an override (non-empty, APPROVAL_OK) lifts HIGH or BLOCKED. */
void policy_decide(enum level level, bool rejected, enum approval_status approve,
		   enum approval_status override, struct policy_decision *out);

#endif
