/* base/level.c: the one risk scale and the one trust scale. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "level.h"

static void test_level_trust(void **state)
{
	assert_int_equal(level_trust(LEVEL_LOW), TRUST_TRUSTED);
	assert_int_equal(level_trust(LEVEL_MEDIUM), TRUST_STANDARD);
	assert_int_equal(level_trust(LEVEL_HIGH), TRUST_UNTRUSTED);
	assert_int_equal(level_trust(LEVEL_BLOCKED), TRUST_UNTRUSTED);
	assert_int_equal(level_trust((enum level)42), TRUST_UNTRUSTED);
}

static void test_names(void **state)
{
	enum level l = LEVEL_LOW;

	assert_string_equal(trust_to_string(TRUST_STANDARD), "standard");
	assert_string_equal(trust_to_string(TRUST_COUNT), "?");
	assert_string_equal(level_to_string(LEVEL_BLOCKED), "BLOCKED");
	assert_string_equal(level_to_string((enum level)9), "?");
	assert_int_equal(level_from_string("high", &l), 0);
	assert_int_equal(l, LEVEL_HIGH);
	assert_int_equal(level_from_string("severe", &l), -EINVAL);
	assert_int_equal(l, LEVEL_HIGH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_trust),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
