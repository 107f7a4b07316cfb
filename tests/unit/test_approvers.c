/* approvers: who may approve, checked by uid against users and groups of
 * the real user database (root and its group always exist; other entries
 * are numeric ids or names that exist nowhere). The tests with real
 * accounts made for them are in tests/integration/agent_trust.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "account.h"
#include "approvers.h"
#include "testdir.h"

#define NOBODY_HERE "mai-no-such-account-4711"

static void test_users_by_name_and_number(void **state)
{
	const char *users[] = { "root", "1234" };
	struct approvers *a = approvers_new(users, 2, NULL, 0, false);

	assert_true(approvers_is_approver(a, 0));
	assert_true(approvers_is_approver(a, 1234)); /* no account needed for a number */
	assert_false(approvers_is_approver(a, 1235));
	assert_int_equal(approvers_check(a, 1234, 1000), APPROVERS_OK);
	assert_int_equal(approvers_check(a, 1235, 1000), APPROVERS_NOT_APPROVER);
	assert_int_equal(approvers_check(a, 1234, 1234), APPROVERS_SELF);
	assert_int_equal(approvers_check(a, 0, 0), APPROVERS_SELF);
	assert_false(approvers_allow_self(a));
	approvers_unref(a);

	a = approvers_new(users, 2, NULL, 0, true);
	assert_int_equal(approvers_check(a, 0, 0), APPROVERS_OK);
	/* allow_self never makes a non-approver one. */
	assert_int_equal(approvers_check(a, 1235, 1235), APPROVERS_NOT_APPROVER);
	approvers_unref(a);
}

/* root's primary group is 0 ("root"): membership through it counts. */
static void test_groups_by_name_and_number(void **state)
{
	const char *by_name[] = { "root" }, *by_number[] = { "0" }, *other[] = { "4242" };
	struct approvers *a = approvers_new(NULL, 0, by_name, 1, false);
	assert_true(approvers_is_approver(a, 0));
	/* A uid without an account belongs to no group. */
	assert_false(approvers_is_approver(a, 4000000000u - 7));
	approvers_unref(a);
	a = approvers_new(NULL, 0, by_number, 1, false);
	assert_true(approvers_is_approver(a, 0));
	approvers_unref(a);
	a = approvers_new(NULL, 0, other, 1, false);
	assert_false(approvers_is_approver(a, 0));
	approvers_unref(a);
}

static void test_unknown_entries_and_description(void **state)
{
	const char *users[] = { "root", NOBODY_HERE }, *groups[] = { APPROVERS_DEFAULT_GROUP "-x" };
	struct approvers *a = approvers_new(users, 2, groups, 1, false);
	char *s = approvers_unknown(a);
	assert_string_equal(s, "user " NOBODY_HERE "\ngroup " APPROVERS_DEFAULT_GROUP "-x\n");
	free(s);
	/* A name that does not exist approves nothing, not even by accident. */
	assert_false(approvers_is_approver(a, 1000));
	s = approvers_describe(a);
	assert_string_equal(s, "users root or " NOBODY_HERE " or a member of group "
			       APPROVERS_DEFAULT_GROUP "-x");
	free(s);
	approvers_unref(a);

	a = approvers_new(NULL, 0, NULL, 0, false);
	assert_false(approvers_is_approver(a, 0));
	s = approvers_describe(a);
	assert_string_equal(s, "nobody (approvers in security.yaml lists no user and no group)");
	free(s);
	/* Shared by reference: the last unref frees it (ASan says if not). */
	struct approvers *b = approvers_ref(a);
	approvers_unref(a);
	assert_false(approvers_is_approver(b, 0));
	approvers_unref(b);
	assert_string_equal(approvers_verdict_to_string(APPROVERS_SELF), "self_approval");
}

static void test_account_helpers(void **state)
{
	uid_t u;
	gid_t g;
	char *s;

	assert_int_equal(account_parse_user("root", &u), 0);
	assert_int_equal(u, 0);
	assert_int_equal(account_parse_user("65534", &u), 0);
	assert_int_equal(u, 65534);
	assert_int_equal(account_parse_user(NOBODY_HERE, &u), -ENOENT);
	assert_int_equal(account_parse_user("a b", &u), -EINVAL);
	assert_int_equal(account_parse_user("4294967295", &u), -EINVAL); /* (uid_t)-1 */
	assert_int_equal(account_parse_group("root", &g), 0);
	assert_int_equal(g, 0);
	assert_true(account_in_group(0, 0));
	assert_true(account_name_valid("mai-approvers"));
	assert_true(account_name_valid("host$"));
	assert_false(account_name_valid("-rf"));
	assert_false(account_name_valid("$"));
	assert_false(account_name_valid("a/b"));
	assert_false(account_name_valid(""));
	/* Each class of character a name may hold, at either end; no other. */
	assert_true(account_name_valid("Ann.Lee_2-b"));
	assert_true(account_name_valid("z9"));
	assert_true(account_name_valid("_Z.a-0"));
	assert_false(account_name_valid("ann lee"));
	assert_false(account_name_valid("ann:lee"));
	assert_false(account_name_valid("a$b"));
	assert_false(account_name_valid("caf\xc3\xa9"));
	assert_false(account_name_valid("0123456789abcdef0123456789abcdefX"));  /* 33 */
	assert_true(account_name_valid("0123456789abcdef0123456789abcdeX"));    /* 32 */
	/* security.yaml may name accounts by number: a number that is an id. */
	assert_true(account_name_valid("1000"));
	assert_false(account_name_valid("4294967295"));
	s = account_user_label(0);
	assert_string_equal(s, "root (uid 0)");
	free(s);
	s = account_user_label(4000000000u);
	assert_string_equal(s, "uid 4000000000");
	free(s);
	assert_null(account_user_name(4000000000u));
}

/* An account whose passwd entry is longer than the first buffer the
 * lookups take (a GECOS of 1,500 bytes, for real: useradd, removed after):
 * found by name and by uid all the same. */
static void test_long_passwd_entry(void **state)
{
	(void)state;
	if (geteuid() != 0)
		test_skip("an account made for the test needs root (useradd)");
	char name[32], cmd[2048], gecos[1501];
	snprintf(name, sizeof(name), "mai-gecos-%d", (int)getpid());
	memset(gecos, 'g', sizeof(gecos) - 1);
	gecos[sizeof(gecos) - 1] = '\0';
	snprintf(cmd, sizeof(cmd), "useradd -M -N -s /usr/sbin/nologin -c %s %s", gecos, name);
	assert_int_equal(system(cmd), 0);
	uid_t u = 0;
	int r = account_parse_user(name, &u);
	char *back = r == 0 ? account_user_name(u) : NULL;
	snprintf(cmd, sizeof(cmd), "userdel %s", name);
	int removed = system(cmd);
	assert_int_equal(r, 0);
	assert_int_not_equal(u, 0);
	assert_non_null(back);
	assert_string_equal(back, name);
	free(back);
	assert_int_equal(removed, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_users_by_name_and_number),
		cmocka_unit_test(test_groups_by_name_and_number),
		cmocka_unit_test(test_unknown_entries_and_description),
		cmocka_unit_test(test_account_helpers),
		cmocka_unit_test(test_long_passwd_entry),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
