#include "policy.h"

const char *policy_action_to_string(enum policy_action a)
{
	switch (a) {
	case POLICY_RUN: return "run";
	case POLICY_HOLD: return "hold";
	case POLICY_BLOCK: return "block";
	case POLICY_REJECT: return "reject";
	}
	return "unknown";
}

static void set(struct policy_decision *d, enum policy_action a, enum result_state s,
		enum trust t, const char *by, enum approval_kind answer)
{
	d->action = a;
	d->state = s;
	d->trust = t;
	d->by = by;
	d->answer = answer;
}

/* The trust of a run is always level_trust(level) (level.h): the policy
 * only decides whether the content runs and on whose word. */
void policy_decide(enum level level, bool rejected, enum approval_status approve,
		   enum approval_status override, struct policy_decision *out)
{
	enum trust t = level_trust(level);

	if (rejected) {
		set(out, POLICY_REJECT, RESULT_REJECTED, TRUST_UNTRUSTED, "policy",
		    APPROVAL_APPROVE);
		return;
	}
	switch (level) {
	case LEVEL_LOW:
	case LEVEL_MEDIUM:
		set(out, POLICY_RUN, RESULT_RUNNING, t, "policy", APPROVAL_APPROVE);
		return;
	case LEVEL_HIGH:
		if (override == APPROVAL_OK)
			set(out, POLICY_RUN, RESULT_RUNNING, t, "user", APPROVAL_OVERRIDE);
		else if (approve == APPROVAL_OK)
			set(out, POLICY_RUN, RESULT_RUNNING, t, "user", APPROVAL_APPROVE);
		else
			set(out, POLICY_HOLD, RESULT_AWAITING_CONFIRMATION, t, "policy",
			    APPROVAL_APPROVE);
		return;
	case LEVEL_BLOCKED:
		break;
	}
	if (override == APPROVAL_OK)
		set(out, POLICY_RUN, RESULT_RUNNING, t, "user", APPROVAL_OVERRIDE);
	else
		set(out, POLICY_BLOCK, RESULT_BLOCKED, t, "policy", APPROVAL_OVERRIDE);
}
