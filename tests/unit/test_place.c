/* drop/place.c: a sidecar placed in the drop directory, or, refused there,
 * in the state directory's fallback, when the places themselves fail: a
 * subdirectory that is gone, a fallback that cannot be made or whose old
 * copy cannot be removed (for real), the drop directory's fsync failing
 * (fault.h: EIO, which a healthy disk does not give on demand). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "fileio.h"
#include "macro.h"
#include "place.h"
#include "testdir.h"

static void test_places_that_fail(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir), *fb = xasprintf("%s/state/fallback", dir);
	_cleanup_free_ char *under_file = xasprintf("%s/file/fallback", dir);
	struct place_dirs p = { .drop_dir = drop, .fallback_dir = fb };
	char *err = NULL;

	assert_int_equal(mkdir(drop, 0755), 0);
	/* A subdirectory gone (a recursive drop directory's). */
	assert_int_equal(place_sidecar(&p, "gone/x.result.json", "{}\n", 3, NULL, PLACE_SYNC, &err),
			 -ENOENT);
	assert_non_null(strstr(err, "/drop/gone/x.result.json: cannot open its directory: No such file"));
	free(err);

	/* Refused in the drop directory (a directory at the name) and the
	 * fallback under a file: neither place takes it, and both are said. */
	_cleanup_free_ char *taken = xasprintf("%s/y.result.json", drop);
	assert_int_equal(mkdir(taken, 0755), 0);
	testdir_put(dir, "file", "x");
	struct place_dirs q = { .drop_dir = drop, .fallback_dir = under_file };
	assert_int_equal(place_sidecar(&q, "y.result.json", "{}\n", 3, NULL, PLACE_SYNC, &err),
			 -ENOTDIR);
	assert_non_null(strstr(err, "nor its copy in "));
	assert_non_null(strstr(err, "/file/fallback: Not a directory"));
	free(err);

	/* Refused, the drop directory's fsync failing (only warned), and the
	 * fallback taking it. */
	fault_arm("fsync", "/drop$", 1, 1, EIO);
	assert_int_equal(place_sidecar(&p, "y.result.json", "{}\n", 3, NULL, PLACE_SYNC, &err),
			 PLACE_IN_FALLBACK);
	assert_int_equal(fault_hits("fsync"), 1);
	fault_clear();
	assert_non_null(strstr(err, "the answer is in "));
	free(err);
	_cleanup_free_ char *name = place_fallback_name("y.result.json");
	_cleanup_free_ char *copy = xasprintf("%s/%s", fb, name);
	struct stat st;
	assert_int_equal(stat(copy, &st), 0);

	/* Placed in the drop directory again, with a directory where the old
	 * copy was: the copy cannot go (warned), the sidecar is in place. */
	assert_int_equal(rmdir(taken), 0);
	assert_int_equal(unlink(copy), 0);
	assert_int_equal(mkdir(copy, 0700), 0);
	testdir_put(copy, "inside", "x");
	assert_int_equal(place_sidecar(&p, "y.result.json", "{\"n\":1}\n", 8, NULL, PLACE_SYNC, &err),
			 PLACE_IN_DROP_DIR);
	assert_null(err);
	char *text = NULL;
	size_t len;
	assert_int_equal(fileio_read_path(taken, 64, &text, &len), 0);
	assert_string_equal(text, "{\"n\":1}\n");
	free(text);
	assert_int_equal(stat(copy, &st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_places_that_fail, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
