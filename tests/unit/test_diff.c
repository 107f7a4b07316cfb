/* Unified diffs of script versions, and the content-addressed history that
 * produces the script_diff audit record. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "audit_event.h"
#include "diff.h"
#include "hash.h"
#include <unistd.h>
#include "macro.h"
#include "testdir.h"

static char *diff(const char *a, const char *b, size_t max, int *trunc)
{
	return diff_unified("foo.py", a, strlen(a), b, strlen(b), max, trunc);
}

static void test_known_diffs(void **state)
{
	int t;
	/* One hunk: changes closer than 2*3 context lines merge; the same
	 * output as GNU `diff -u` gives for these files. */
	_cleanup_free_ char *d1 = diff("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "a\nb\nC\nd\ne\nf\ng\ni\nj\nk\n", 1 << 20, &t);
	assert_string_equal(d1, "--- a/foo.py\n+++ b/foo.py\n@@ -1,10 +1,10 @@\n a\n b\n-c\n+C\n d\n e\n f\n g\n-h\n i\n j\n+k\n");
	assert_false(t);

	/* Two hunks when the changes are far apart. */
	_cleanup_free_ char *d2 = diff("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n",
				       "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n", 1 << 20, &t);
	assert_string_equal(d2, "--- a/foo.py\n+++ b/foo.py\n"
				"@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n"
				"@@ -12,4 +12,3 @@\n 12\n 13\n 14\n-15\n");

	/* Identical: nothing. From empty: one insertion hunk. */
	_cleanup_free_ char *d3 = diff("x\n", "x\n", 1 << 20, &t);
	assert_string_equal(d3, "");
	_cleanup_free_ char *d4 = diff("", "print(1)\n", 1 << 20, &t);
	assert_string_equal(d4, "--- a/foo.py\n+++ b/foo.py\n@@ -0,0 +1 @@\n+print(1)\n");

	/* A last line without a newline says so, as diff does. */
	_cleanup_free_ char *d5 = diff("a\nb", "a\nc", 1 << 20, &t);
	assert_string_equal(d5, "--- a/foo.py\n+++ b/foo.py\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
				"+c\n\\ No newline at end of file\n");

	/* The cap cuts at a line end and says so. */
	_cleanup_free_ char *d6 = diff("a\nb\nc\n", "x\ny\nz\n", 40, &t);
	assert_true(t);
	assert_true(strlen(d6) <= 40);
	assert_string_equal(d6, "--- a/foo.py\n+++ b/foo.py\n");
}

/* Large rewrites are bounded: past DIFF_MAX_EDITS the diff is a whole-file
 * replacement, still correct. */
static void test_large_rewrite_is_bounded(void **state)
{
	size_t n = 3000;
	char *a = xmalloc(n * 8 + 1), *b = xmalloc(n * 8 + 1);
	a[0] = b[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		sprintf(a + strlen(a), "a%05zu\n", i);
		sprintf(b + strlen(b), "b%05zu\n", i);
	}
	int t;
	_cleanup_free_ char *d = diff(a, b, (size_t)1 << 24, &t);
	assert_false(t);
	assert_true(strncmp(d, "--- a/foo.py\n+++ b/foo.py\n@@ -1,3000 +1,3000 @@\n-a00000\n", 56) == 0);
	free(a);
	free(b);
}

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
	/* Both versions are kept by content. */
	_cleanup_free_ char *obj = xasprintf("%s/scripts/objects/%s", dir, sha1);
	assert_int_equal(access(obj, R_OK), 0);
	json_decref(f);
	/* Another name is another history. */
	assert_int_equal(audit_script_history(dir, "drop/bar.py", v2, strlen(v2), 4096, &f, &err), 0);
	assert_null(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_diffs),
		cmocka_unit_test(test_large_rewrite_is_bounded),
		cmocka_unit_test_setup_teardown(test_script_history, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
