#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "policy.h"

#define NONE APPROVAL_NONE
#define OK APPROVAL_OK

static const struct {
	enum level level;
	bool rejected;
	enum approval_status approve, override;
	enum policy_action action;
	enum result_state state;
	enum trust trust; /* checked for POLICY_RUN only */
	const char *by;
} cases[] = {
	{ LEVEL_LOW, false, NONE, NONE, POLICY_RUN, RESULT_RUNNING, TRUST_TRUSTED, "policy" },
	{ LEVEL_MEDIUM, false, NONE, NONE, POLICY_RUN, RESULT_RUNNING, TRUST_STANDARD, "policy" },
	{ LEVEL_HIGH, false, NONE, NONE, POLICY_HOLD, RESULT_AWAITING_CONFIRMATION, 0, "policy" },
	{ LEVEL_HIGH, false, OK, NONE, POLICY_RUN, RESULT_RUNNING, TRUST_UNTRUSTED, "user" },
	{ LEVEL_HIGH, false, APPROVAL_STALE, NONE, POLICY_HOLD, RESULT_AWAITING_CONFIRMATION, 0, "policy" },
	{ LEVEL_HIGH, false, NONE, OK, POLICY_RUN, RESULT_RUNNING, TRUST_UNTRUSTED, "user" },
	{ LEVEL_BLOCKED, false, NONE, NONE, POLICY_BLOCK, RESULT_BLOCKED, 0, "policy" },
	/* A confirmation is not enough for BLOCKED. */
	{ LEVEL_BLOCKED, false, OK, NONE, POLICY_BLOCK, RESULT_BLOCKED, 0, "policy" },
	{ LEVEL_BLOCKED, false, NONE, APPROVAL_EMPTY, POLICY_BLOCK, RESULT_BLOCKED, 0, "policy" },
	{ LEVEL_BLOCKED, false, NONE, APPROVAL_STALE, POLICY_BLOCK, RESULT_BLOCKED, 0, "policy" },
	{ LEVEL_BLOCKED, false, NONE, OK, POLICY_RUN, RESULT_RUNNING, TRUST_UNTRUSTED, "user" },
	/* Not text: never runs, whatever the user says. */
	{ LEVEL_BLOCKED, true, OK, OK, POLICY_REJECT, RESULT_REJECTED, 0, "policy" },
};

static void test_decision_table(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct policy_decision d;
		policy_decide(cases[i].level, cases[i].rejected, cases[i].approve,
			      cases[i].override, &d);
		if (d.action != cases[i].action || d.state != cases[i].state ||
		    strcmp(d.by, cases[i].by) != 0 ||
		    (d.action == POLICY_RUN && d.trust != cases[i].trust))
			fail_msg("case %zu: got %s/%s/%d/%s", i, policy_action_to_string(d.action),
				 result_state_to_string(d.state), d.trust, d.by);
	}
	struct policy_decision d;
	policy_decide(LEVEL_BLOCKED, false, NONE, OK, &d);
	assert_int_equal(d.answer, APPROVAL_OVERRIDE);
	policy_decide(LEVEL_HIGH, false, OK, NONE, &d);
	assert_int_equal(d.answer, APPROVAL_APPROVE);
	assert_string_equal(policy_action_to_string(POLICY_HOLD), "hold");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
