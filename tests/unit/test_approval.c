#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "approval.h"
#include "fileio.h"
#include "hash.h"
#include "testdir.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void put(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(p, text, strlen(text), 0644), 0);
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* Nothing but the listed names is left in dir (no hidden leftovers). */
static unsigned count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static const struct {
	enum approval_kind kind;
	const char *text;
	enum approval_status want;
	const char *reason; /* NULL: none */
	const char *pin;    /* "" when not pinned */
} cases[] = {
	{ APPROVAL_APPROVE, "", APPROVAL_OK, NULL, "" },
	{ APPROVAL_APPROVE, "  looked at it\n\n", APPROVAL_OK, "looked at it", "" },
	{ APPROVAL_APPROVE, "sha256: " SHA_A "\nok\n", APPROVAL_OK, "ok", SHA_A },
	{ APPROVAL_APPROVE, "sha256: " SHA_B "\nok\n", APPROVAL_STALE, "ok", SHA_B },
	{ APPROVAL_APPROVE, "sha256: AAAA\nshort pin is text\n", APPROVAL_OK,
	  "sha256: AAAA\nshort pin is text", "" },
	{ APPROVAL_OVERRIDE, "", APPROVAL_EMPTY, NULL, "" },
	{ APPROVAL_OVERRIDE, " \n\t\n", APPROVAL_EMPTY, NULL, "" },
	{ APPROVAL_OVERRIDE, "sha256: " SHA_A "\n", APPROVAL_EMPTY, NULL, SHA_A },
	{ APPROVAL_OVERRIDE, "it only reads /proc, needed for the demo\n", APPROVAL_OK,
	  "it only reads /proc, needed for the demo", "" },
	{ APPROVAL_OVERRIDE, "sha256: " SHA_A "\nline one\nline two\n", APPROVAL_OK,
	  "line one\nline two", SHA_A },
};

static void test_take_table(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *file = cases[i].kind == APPROVAL_APPROVE ? "foo.approve" : "foo.override";
		struct approval a;
		int err;

		put(dir, file, cases[i].text);
		assert_true(approval_exists(dfd, "foo.py", cases[i].kind));
		enum approval_status s = approval_take(dfd, "foo.py", cases[i].kind, SHA_A, &a, &err);
		if (s != cases[i].want)
			fail_msg("case %zu: got %s, want %s", i, approval_status_to_string(s),
				 approval_status_to_string(cases[i].want));
		if (cases[i].reason)
			assert_string_equal(a.reason, cases[i].reason);
		else
			assert_null(a.reason);
		assert_string_equal(a.pinned_sha256, cases[i].pin);
		assert_int_equal(a.uid, getuid());
		assert_int_equal(a.kind, cases[i].kind);
		approval_clear(&a);
		/* Consumed in every case, nothing hidden left behind. */
		assert_false(approval_exists(dfd, "foo.py", cases[i].kind));
		assert_int_equal(count_entries(dir), 0);
	}
}

static void test_uid_of_writer_is_recorded(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	struct approval a;
	int err;

	put(dir, "foo.approve", "yes\n");
	/* Changing the owner needs CAP_CHOWN; without it the uid is ours. */
	uid_t want = fchownat(dfd, "foo.approve", 4321, 4321, AT_SYMLINK_NOFOLLOW) == 0 ?
		4321 : getuid();
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, &a, &err),
			 APPROVAL_OK);
	assert_int_equal(a.uid, want);
	approval_clear(&a);
}

static void test_none_symlink_and_too_large(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *secret = xasprintf("%s/secret", dir);
	_cleanup_free_ char *link = xasprintf("%s/foo.override", dir);
	struct approval a;
	int err;

	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, &a, &err),
			 APPROVAL_NONE);

	put(dir, "secret", "the target stays\n");
	assert_int_equal(symlink(secret, link), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_OVERRIDE, SHA_A, &a, &err),
			 APPROVAL_NOT_REGULAR);
	assert_null(a.reason);
	struct stat st;
	assert_int_equal(lstat(link, &st), -1); /* the link is gone ... */
	assert_int_equal(stat(secret, &st), 0); /* ... its target is not */

	char big[APPROVAL_MAX_SIZE + 2];
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(dir, "foo.approve", big);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, &a, &err),
			 APPROVAL_TOO_LARGE);
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
}

static void test_write_then_take_round_trip(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	struct approval a;
	char *err = NULL;
	int e;

	assert_int_equal(approval_write(dir, "x y.py", APPROVAL_OVERRIDE, SHA_B,
					"reviewed by ops", &err), 0);
	char *text = NULL;
	size_t len;
	_cleanup_free_ char *path = xasprintf("%s/x y.override", dir);
	assert_int_equal(fileio_read_path(path, 1024, &text, &len), 0);
	assert_string_equal(text, "sha256: " SHA_B "\nreviewed by ops\n");
	free(text);
	assert_int_equal(approval_take(dfd, "x y.py", APPROVAL_OVERRIDE, SHA_B, &a, &e),
			 APPROVAL_OK);
	assert_string_equal(a.reason, "reviewed by ops");
	approval_clear(&a);

	assert_int_equal(approval_write("/nonexistent", "a.py", APPROVAL_APPROVE, NULL, NULL,
					&err), -ENOENT);
	assert_string_equal(err, "cannot write /nonexistent/a.approve: No such file or directory");
	free(err);
}

static void test_messages(void **state)
{
	char *m = approval_status_message(APPROVAL_EMPTY, APPROVAL_OVERRIDE, "foo.py");
	assert_string_equal(m, "foo.override was empty and has been consumed: an override must "
			       "explain why the script has to run");
	free(m);
	m = approval_status_message(APPROVAL_STALE, APPROVAL_APPROVE, "foo.py");
	assert_string_equal(m, "foo.approve was for other content of the script and has been "
			       "consumed: the script changed since, so review it again");
	free(m);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_take_table),
		T(test_uid_of_writer_is_recorded),
		T(test_none_symlink_and_too_large),
		T(test_write_then_take_round_trip),
		cmocka_unit_test(test_messages),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
