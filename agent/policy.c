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
		enum policy_trust t, const char *by, enum approval_kind answer)
{
	d->action = a;
	d->state = s;
	d->trust = t;
	d->by = by;
	d->answer = answer;
}

void policy_decide(enum policy_level level, bool rejected, enum approval_status approve,
		   enum approval_status override, struct policy_decision *out)
{
	if (rejected) {
		set(out, POLICY_REJECT, RESULT_REJECTED, POLICY_TRUST_UNTRUSTED, "policy",
		    APPROVAL_APPROVE);
		return;
	}
	switch (level) {
	case POLICY_LEVEL_LOW:
		set(out, POLICY_RUN, RESULT_RUNNING, POLICY_TRUST_TRUSTED, "policy",
		    APPROVAL_APPROVE);
		return;
	case POLICY_LEVEL_MEDIUM:
		set(out, POLICY_RUN, RESULT_RUNNING, POLICY_TRUST_STANDARD, "policy",
		    APPROVAL_APPROVE);
		return;
	case POLICY_LEVEL_HIGH:
		if (override == APPROVAL_OK)
			set(out, POLICY_RUN, RESULT_RUNNING, POLICY_TRUST_UNTRUSTED, "user",
			    APPROVAL_OVERRIDE);
		else if (approve == APPROVAL_OK)
			set(out, POLICY_RUN, RESULT_RUNNING, POLICY_TRUST_UNTRUSTED, "user",
			    APPROVAL_APPROVE);
		else
			set(out, POLICY_HOLD, RESULT_AWAITING_CONFIRMATION,
			    POLICY_TRUST_UNTRUSTED, "policy", APPROVAL_APPROVE);
		return;
	case POLICY_LEVEL_BLOCKED:
		break;
	}
	if (override == APPROVAL_OK)
		set(out, POLICY_RUN, RESULT_RUNNING, POLICY_TRUST_UNTRUSTED, "user",
		    APPROVAL_OVERRIDE);
	else
		set(out, POLICY_BLOCK, RESULT_BLOCKED, POLICY_TRUST_UNTRUSTED, "policy",
		    APPROVAL_OVERRIDE);
}
