/* The script history that produces the script_diff audit record. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit_event.h"
#include "hash.h"
#include "macro.h"
#include "testdir.h"

static void test_script_history(void **state)
{
	const char *dir = *state;
	json_t *f = NULL;
	_cleanup_free_ char *err = NULL;
	const char *v1 = "import os\nprint(1)\n", *v2 = "import os\nprint(2)\n";
	assert_int_equal(audit_script_history(dir, "drop/foo.py", v1, strlen(v1), 4096, &f, &err), 0);
	assert_null(f); /* first time: nothing to compare with */
	assert_int_equal(audit_script_history(dir, "drop/foo.py", v1, strlen(v1), 4096, &f, &err), 0);
	assert_null(f); /* same content */
	assert_int_equal(audit_script_history(dir, "drop/foo.py", v2, strlen(v2), 4096, &f, &err), 0);
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "diff")),
			    "--- a/drop/foo.py\n+++ b/drop/foo.py\n@@ -1,2 +1,2 @@\n import os\n-print(1)\n+print(2)\n");
	char sha1[65], sha2[65];
	hash_sha256_hex(v1, strlen(v1), sha1);
	hash_sha256_hex(v2, strlen(v2), sha2);
	assert_string_equal(json_string_value(json_object_get(f, "previous_sha256")), sha1);
	assert_string_equal(json_string_value(json_object_get(f, "sha256")), sha2);
	assert_false(json_is_true(json_object_get(f, "truncated")));
	assert_int_equal(json_integer_value(json_object_get(f, "lines_added")), 1);
	json_decref(f);

	/* The cap applies: a long rewrite is cut and flagged. */
	char big[4096];
	memset(big, 'x', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(audit_script_history(dir, "drop/foo.py", big, strlen(big), 200, &f, &err), 0);
	assert_non_null(f);
	assert_true(json_is_true(json_object_get(f, "truncated")));
	assert_true(strlen(json_string_value(json_object_get(f, "diff"))) <= 200);
	json_decref(f);

	/* Another name is another history. */
	assert_int_equal(audit_script_history(dir, "drop/bar.py", v2, strlen(v2), 4096, &f, &err), 0);
	assert_null(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_script_history, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
