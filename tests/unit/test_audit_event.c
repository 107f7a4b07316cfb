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
#include "config.h"
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

/* The shipped config/audit.yaml maps onto the writer's options. */
static void test_options_from_config(void **state)
{
	struct config_audit cfg = {
		.log_dir = "/var/lib/mai/audit", .signing_key = "/var/lib/mai/keys/audit.key", .public_key = "",
		.origin = "mai-agent/audit", .fsync = true, .group_commit_delay_ms = 2,
		.checkpoint_interval_ms = 10000, .rotate_size = 64u << 20, .rotate_age_ms = 86400000,
		.retention_age_ms = 0, .diff_max = 65536,
	};
	struct audit_options o;
	audit_options_from_config(&cfg, &o);
	assert_string_equal(o.log_dir, "/var/lib/mai/audit");
	assert_null(o.public_key);
	assert_int_equal(o.group_commit_delay_us, 2000);
	assert_int_equal(o.checkpoint_interval_s, 10);
	assert_int_equal(o.rotate_age_s, 86400);
	assert_int_equal(o.diff_max, 65536);
	assert_true(o.fsync);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_script_history, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_options_from_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
