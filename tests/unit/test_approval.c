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
#include "approvers.h"
#include "fault.h"
#include "quarantine.h"
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

/* The caller as the one approver; self-approval allowed unless said. */
static struct approvers *me(bool allow_self)
{
	_cleanup_free_ char *uid = xasprintf("%lu", (unsigned long)getuid());
	const char *users[] = { uid };
	return approvers_new(users, 1, NULL, 0, allow_self);
}

/* SHA_A of getuid(), held long before any answer of these tests. */
static struct approval_seen held_a(void)
{
	struct approval_seen s = { .sha256 = SHA_A, .uid = getuid(), .held = { 1, 0 } };
	return s;
}

/* approval_take() of foo.py's answer as written by getuid(), foo.py's
 * content SHA_A held long before. */
static enum approval_status take(int dfd, enum approval_kind kind, const char *sha,
				 struct approval *a, int *err)
{
	struct approvers *who = me(true);
	struct approval_seen seen = held_a();
	enum approval_status s = approval_take(dfd, "foo.py", kind, sha, who, getuid(), &seen, a,
					       err);
	approvers_unref(who);
	return s;
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
	{ APPROVAL_APPROVE, "sha256:\t" SHA_A " \t\nok\n", APPROVAL_OK, "ok", SHA_A },
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
		enum approval_status s = take(dfd, cases[i].kind, SHA_A, &a, &err);
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
	const char *users[] = { "4321", "0" };
	struct approvers *who = approvers_new(users, 2, NULL, 0, false);
	struct approval_seen seen = held_a();
	seen.uid = 1000;
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_OK);
	assert_int_equal(a.uid, want);
	assert_true(a.has_uid);
	approval_clear(&a);
	approvers_unref(who);
}

/* Answers refused for who wrote them: not read, moved aside into the
 * agent's quarantine (the name is free for a real approver), the owner
 * known for the record. As root: the files are given other owners. */
static void test_refused_for_who_wrote_it(void **state)
{
	/* Before anything is allocated: a skip leaves the function by longjmp,
	 * past the cleanups. */
	if (geteuid() != 0)
		test_skip("giving a file to another uid needs root");
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *ans = xasprintf("%s/foo.approve", dir);
	_cleanup_free_ char *other = xasprintf("%s/elsewhere", dir);
	const char *users[] = { "4321" };
	struct approvers *who = approvers_new(users, 1, NULL, 0, false);
	struct approval_seen seen = held_a();
	struct approval a;
	struct stat st;
	int err;

	seen.uid = 1000;
	/* Not an approver: uid 999. */
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 999, 999), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_NOT_APPROVER);
	assert_true(a.has_uid);
	assert_int_equal(a.uid, 999);
	assert_null(a.reason);            /* not read */
	assert_string_equal(a.pinned_sha256, "");
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE)); /* moved aside */
	assert_non_null(a.moved_to);
	assert_true(strncmp(a.moved_to, QUARANTINE_DIR "/foo.approve.", strlen(QUARANTINE_DIR) + 13) == 0);
	_cleanup_free_ char *kept = xasprintf("%s/%s", dir, a.moved_to);
	assert_int_equal(lstat(kept, &st), 0);
	assert_int_equal(st.st_uid, 999);  /* kept as it was, for evidence */
	_cleanup_free_ char *q = xasprintf("%s/" QUARANTINE_DIR, dir);
	assert_int_equal(lstat(q, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(st.st_uid, 0);
	approval_clear(&a);

	/* With a holder (the agent's state directory), it goes there: out of
	 * the directory, where no writer can rename it away. */
	_cleanup_free_ char *h = xasprintf("%s/state/quarantine", dir);
	assert_int_equal(quarantine_set_holder(h), 0);
	assert_true(quarantine_holder_reaches(dfd));
	assert_string_equal(quarantine_where(), h);
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 999, 999), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_NOT_APPROVER);
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
	assert_true(strncmp(a.moved_to, h, strlen(h)) == 0);
	assert_true(strncmp(a.moved_to + strlen(h), "/foo.approve.", 13) == 0);
	assert_int_equal(lstat(a.moved_to, &st), 0);
	assert_int_equal(st.st_uid, 999);
	assert_int_equal(lstat(h, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	approval_clear(&a);
	assert_int_equal(quarantine_set_holder(NULL), 0);
	assert_string_equal(quarantine_where(), QUARANTINE_DIR);
	assert_true(approval_set_aside(APPROVAL_NOT_APPROVER));
	assert_string_equal(approval_consumed_to_string(APPROVAL_NOT_APPROVER),
			    "refused: not an approver");

	/* An approver, but the script's writer too. */
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 4321, 4321), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 4321, &seen, &a,
				       &err), APPROVAL_SELF);
	assert_null(a.reason);
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
	approval_clear(&a);

	/* Writable by its group: anyone in it could have re-pinned it. */
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 4321, 4321), 0);
	assert_int_equal(chmod(ans, 0664), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_WRITABLE);
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
	approval_clear(&a);

	/* A hard link: two names, one file that may be anyone's. */
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 4321, 4321), 0);
	assert_int_equal(link(ans, other), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_HARD_LINK);
	assert_int_equal(a.links, 2);
	assert_null(a.reason);
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
	approval_clear(&a);

	/* One link, from an approver for another's script: used, removed. */
	assert_int_equal(unlink(other), 0);
	put(dir, "foo.approve", "sha256: " SHA_A "\nlooks fine\n");
	assert_int_equal(chown(ans, 4321, 4321), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_OK);
	assert_string_equal(a.reason, "looks fine");
	assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
	approval_clear(&a);

	/* A directory with something in it blocks the name: moved aside. */
	_cleanup_free_ char *sub = xasprintf("%s/foo.override", dir);
	_cleanup_free_ char *inner = xasprintf("%s/foo.override/x", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put(dir, "foo.override/x", "planted\n");
	assert_int_equal(chown(inner, 999, 999), 0);
	assert_int_equal(chown(sub, 999, 999), 0);
	assert_int_equal(approval_take(dfd, "foo.py", APPROVAL_OVERRIDE, SHA_A, who, 1000, &seen, &a,
				       &err), APPROVAL_NOT_REGULAR);
	assert_int_equal(lstat(sub, &st), -1);
	assert_non_null(a.moved_to);
	approval_clear(&a);
	approvers_unref(who);
}

/* An answer without a pin covers only what was held before it was
 * written, from the same writer: not content held after it, not another
 * writer's, not content never held. */
static void test_unpinned_covers_what_was_held_before(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	struct approvers *who = me(true);
	struct approval a;
	int err;
	struct {
		const char *sha;
		uid_t uid;
		int held_after; /* seconds after the answer was written */
		bool none;
		enum approval_status want;
	} rows[] = {
		{ SHA_A, 0, -5, false, APPROVAL_OK },
		{ SHA_A, 0, 5, false, APPROVAL_UNSEEN },   /* held after the answer */
		{ SHA_A, 0, 0, false, APPROVAL_UNSEEN },   /* not strictly before */
		{ SHA_B, 0, -5, false, APPROVAL_UNSEEN },  /* other content was held */
		{ SHA_A, 1, -5, false, APPROVAL_UNSEEN },  /* another writer's */
		{ SHA_A, 0, 0, true, APPROVAL_UNSEEN },    /* nothing held */
	};
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct stat st;
		put(dir, "foo.approve", "reviewed\n");
		_cleanup_free_ char *p = xasprintf("%s/foo.approve", dir);
		assert_int_equal(stat(p, &st), 0);
		struct timespec at = st.st_mtim;
		struct statx sx;
		if (statx(AT_FDCWD, p, 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME) &&
		    sx.stx_btime.tv_sec * 1000000000LL + sx.stx_btime.tv_nsec <
			    at.tv_sec * 1000000000LL + at.tv_nsec) {
			at.tv_sec = sx.stx_btime.tv_sec;
			at.tv_nsec = sx.stx_btime.tv_nsec;
		}
		struct approval_seen seen = { .uid = getuid() + rows[i].uid, .held = at };
		memcpy(seen.sha256, rows[i].sha, sizeof(seen.sha256));
		seen.held.tv_sec += rows[i].held_after;
		enum approval_status s = approval_take(dfd, "foo.py", APPROVAL_APPROVE, SHA_A, who,
						       getuid(), rows[i].none ? NULL : &seen, &a,
						       &err);
		if (s != rows[i].want)
			fail_msg("case %zu: got %s, want %s", i, approval_status_to_string(s),
				 approval_status_to_string(rows[i].want));
		/* Consumed either way: the approver reviews again. */
		assert_false(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
		approval_clear(&a);
	}
	char *m = approval_status_message(APPROVAL_UNSEEN, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_non_null(strstr(m, "was written before this content of foo.py was held"));
	assert_non_null(strstr(m, "'mai-agent approve foo.py'"));
	free(m);
	approvers_unref(who);
}

static void test_none_symlink_and_too_large(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *secret = xasprintf("%s/secret", dir);
	_cleanup_free_ char *link = xasprintf("%s/foo.override", dir);
	struct approval a;
	int err;

	assert_int_equal(take(dfd, APPROVAL_APPROVE, SHA_A, &a, &err), APPROVAL_NONE);

	put(dir, "secret", "the target stays\n");
	assert_int_equal(symlink(secret, link), 0);
	assert_int_equal(take(dfd, APPROVAL_OVERRIDE, SHA_A, &a, &err), APPROVAL_NOT_REGULAR);
	assert_null(a.reason);
	struct stat st;
	assert_int_equal(lstat(link, &st), -1); /* the link is gone ... */
	assert_int_equal(stat(secret, &st), 0); /* ... its target is not */

	char big[APPROVAL_MAX_SIZE + 2];
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(dir, "foo.approve", big);
	assert_int_equal(take(dfd, APPROVAL_APPROVE, SHA_A, &a, &err), APPROVAL_TOO_LARGE);
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
	struct approvers *who = me(true);
	assert_int_equal(approval_take(dfd, "x y.py", APPROVAL_OVERRIDE, SHA_B, who, getuid(), NULL,
				       &a, &e), APPROVAL_OK);
	assert_string_equal(a.reason, "reviewed by ops");
	approval_clear(&a);
	approvers_unref(who);

	/* What another user left at the name is replaced, never written
	 * through: here a FIFO, which an open for writing would block on. */
	_cleanup_free_ char *fifo = xasprintf("%s/f.approve", dir);
	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(approval_write(dir, "f.py", APPROVAL_APPROVE, SHA_A, "ok", &err), 0);
	struct stat st;
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(unlink(fifo), 0);

	assert_int_equal(approval_write("/nonexistent", "a.py", APPROVAL_APPROVE, NULL, NULL,
					&err), -ENOENT);
	assert_string_equal(err, "cannot write /nonexistent/a.approve: No such file or directory");
	free(err);
	/* An override's reason has the answer file's size limit. */
	char *reason = xmalloc(APPROVAL_MAX_SIZE + 1);
	memset(reason, 'r', APPROVAL_MAX_SIZE);
	reason[APPROVAL_MAX_SIZE] = '\0';
	assert_int_equal(approval_write(dir, "g.py", APPROVAL_OVERRIDE, NULL, reason, &err), -EFBIG);
	assert_non_null(strstr(err, "the reason is too long ("));
	free(err);
	free(reason);
	_cleanup_free_ char *g = xasprintf("%s/g.override", dir);
	assert_int_equal(access(g, F_OK), -1);
}

/* An answer that cannot be looked at or read: a directory descriptor that
 * is none, for real (ENOTDIR); the answer gone, or swapped for a link,
 * between the look and the open, and a disk's EIO on the open or the
 * read (fault.h: those races and errors are not made on demand). A
 * consumed answer that cannot be removed stays (warned) while its
 * approval counts. */
static void test_answers_that_cannot_be_read(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *file = xasprintf("%s/plain", dir);
	struct approval a;
	int err = 0;

	put(dir, "plain", "x");
	int ffd = open(file, O_RDONLY | O_CLOEXEC);
	assert_true(ffd >= 0);
	assert_int_equal(take(ffd, APPROVAL_APPROVE, SHA_A, &a, &err), APPROVAL_IO_ERROR);
	assert_int_equal(err, ENOTDIR);
	close(ffd);

	const struct {
		const char *call;
		int err;
		enum approval_status want;
	} races[] = {
		{ "openat64", ENOENT, APPROVAL_NONE },
		{ "openat64", ELOOP, APPROVAL_NOT_REGULAR },
		{ "openat64", EIO, APPROVAL_IO_ERROR },
		{ "read", EIO, APPROVAL_IO_ERROR },
	};
	for (size_t i = 0; i < ARRAY_SIZE(races); i++) {
		put(dir, "foo.approve", "ok\n");
		fault_arm(races[i].call, "/foo.approve", 1, 1, races[i].err);
		enum approval_status s = take(dfd, APPROVAL_APPROVE, SHA_A, &a, &err);
		unsigned hits = fault_hits(races[i].call);
		fault_clear();
		if (s != races[i].want || hits != 1)
			fail_msg("case %zu: %s (%u hits)", i, approval_status_to_string(s), hits);
		if (s == APPROVAL_IO_ERROR)
			assert_int_equal(err, EIO);
		approval_clear(&a);
	}

	put(dir, "foo.approve", "ok\n");
	fault_arm("unlinkat", "/foo.approve", 1, 1, EIO);
	assert_int_equal(take(dfd, APPROVAL_APPROVE, SHA_A, &a, &err), APPROVAL_OK);
	assert_int_equal(fault_hits("unlinkat"), 1);
	fault_clear();
	approval_clear(&a);
	assert_true(approval_exists(dfd, "foo.py", APPROVAL_APPROVE));
}

static void test_messages(void **state)
{
	const char *users[] = { "root" }, *groups[] = { "mai-approvers" };
	struct approvers *who = approvers_new(users, 1, groups, 1, false);
	struct approval a = { .kind = APPROVAL_OVERRIDE, .has_uid = true, .uid = 0, .links = 2 };
	char *m = approval_status_message(APPROVAL_EMPTY, APPROVAL_OVERRIDE, "foo.py", &a, who);
	assert_string_equal(m, "foo.override was empty and has been consumed: an override must "
			       "explain why the script has to run");
	free(m);
	a.kind = APPROVAL_APPROVE;
	m = approval_status_message(APPROVAL_STALE, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_string_equal(m, "foo.approve was for other content of the script and has been "
			       "consumed: the script changed since, so review it again");
	free(m);
	m = approval_status_message(APPROVAL_NOT_APPROVER, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_string_equal(m, "foo.approve was written by root (uid 0), who is not an approver, "
			       "so it was moved aside unread (kept in .mai-quarantine): only user "
			       "root or a member of group mai-approvers may approve (approvers in "
			       "security.yaml); one of them runs 'mai-agent approve foo.py'");
	free(m);
	m = approval_status_message(APPROVAL_SELF, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_non_null(strstr(m, "who also wrote foo.py"));
	assert_non_null(strstr(m, "set allow_self_approval: true in security.yaml"));
	free(m);
	m = approval_status_message(APPROVAL_HARD_LINK, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_non_null(strstr(m, "foo.approve has 2 links (a hard link)"));
	free(m);
	m = approval_status_message(APPROVAL_WRITABLE, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_non_null(strstr(m, "foo.approve (owned by root (uid 0)) may be written by others"));
	free(m);
	static const struct {
		enum approval_status s;
		const char *text;
	} plain[] = {
		{ APPROVAL_OK, "foo.approve was used" },
		{ APPROVAL_NONE, "there is no foo.approve" },
		{ APPROVAL_NOT_REGULAR, "foo.approve was not a regular file and has been removed" },
		{ APPROVAL_IO_ERROR, "foo.approve could not be read (see the agent log)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++) {
		m = approval_status_message(plain[i].s, APPROVAL_APPROVE, "foo.py", &a, who);
		assert_string_equal(m, plain[i].text);
		free(m);
	}
	m = approval_status_message(APPROVAL_TOO_LARGE, APPROVAL_APPROVE, "foo.py", &a, who);
	assert_non_null(strstr(m, "foo.approve was larger than "));
	free(m);
	approvers_unref(who);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_take_table),
		T(test_uid_of_writer_is_recorded),
		T(test_refused_for_who_wrote_it),
		T(test_unpinned_covers_what_was_held_before),
		T(test_none_symlink_and_too_large),
		T(test_write_then_take_round_trip),
		cmocka_unit_test(test_messages),
		T(test_answers_that_cannot_be_read),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
