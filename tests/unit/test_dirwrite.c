/* dirwrite: files written into a directory that others can write, against
 * what others can put there first (FIFOs, symlinks, hard links, their own
 * files, directories), in a temporary directory. The parts that need files
 * of another uid run as root (chown). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dirwrite.h"
#include "fault.h"
#include "fileio.h"
#include "testdir.h"

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	assert_int_equal(fileio_read_path(path, 1 << 16, &text, &len), 0);
	return text;
}

/* Names in dir that are temporaries of dirwrite. */
static unsigned temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(d)))
		n += dirwrite_is_temporary(de->d_name);
	closedir(d);
	return n;
}

static void test_writes_and_replaces_its_own_file(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *path = xasprintf("%s/a.result.json", dir);
	char *detail = NULL;

	mode_t old = umask(077);
	assert_int_equal(dirwrite_replace(dfd, "a.result.json", "one\n", 4, 0644, DIRWRITE_DURABLE,
					  &detail), 0);
	assert_null(detail);
	assert_int_equal(dirwrite_replace(dfd, "a.result.json", "two\n", 4, 0644, 0, &detail), 0);
	umask(old);
	_cleanup_free_ char *text = slurp(path);
	assert_string_equal(text, "two\n");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644); /* not masked by the umask */
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(temporaries(dir), 0);
}

/* Nothing another user prepares is opened: a FIFO would block an open for
 * writing forever (this test would hang), a symlink would be followed. */
static void test_fifo_symlink_and_directory_are_refused(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *target = xasprintf("%s/target", dir);
	_cleanup_free_ char *sym = xasprintf("%s/s.audit", dir);
	char *detail = NULL;

	assert_int_equal(mkfifoat(dfd, "f.result.json", 0666), 0);
	assert_int_equal(dirwrite_replace(dfd, "f.result.json", "x", 1, 0644, 0, &detail), -EEXIST);
	assert_non_null(strstr(detail, "a FIFO owned by"));
	assert_non_null(strstr(detail, "nothing is written through it"));
	free(detail);
	/* A socket, or a device node (made by root), is as foreign. */
	assert_int_equal(mknodat(dfd, "k.result.json", S_IFSOCK | 0666, 0), 0);
	assert_int_equal(dirwrite_replace(dfd, "k.result.json", "x", 1, 0644, 0, &detail), -EEXIST);
	assert_non_null(strstr(detail, "a socket owned by"));
	free(detail);
	if (geteuid() == 0) {
		assert_int_equal(mknodat(dfd, "n.result.json", S_IFCHR | 0666, makedev(1, 3)), 0);
		assert_int_equal(dirwrite_replace(dfd, "n.result.json", "x", 1, 0644, 0, &detail),
				 -EEXIST);
		assert_non_null(strstr(detail, "a device owned by"));
		free(detail);
	}

	assert_int_equal(fileio_write_atomic(target, "keep", 4, 0600), 0);
	assert_int_equal(symlink(target, sym), 0);
	assert_int_equal(dirwrite_replace(dfd, "s.audit", "x", 1, 0644, 0, &detail), -EEXIST);
	assert_non_null(strstr(detail, "a symbolic link owned by"));
	free(detail);
	_cleanup_free_ char *kept = slurp(target);
	assert_string_equal(kept, "keep");

	assert_int_equal(mkdirat(dfd, "d.result.json", 0755), 0);
	assert_int_equal(dirwrite_replace(dfd, "d.result.json", "x", 1, 0644, 0, &detail), -EISDIR);
	assert_non_null(strstr(detail, "a directory"));
	free(detail);
	/* Even when the caller may replace others' files: never a directory. */
	assert_int_equal(dirwrite_replace(dfd, "d.result.json", "x", 1, 0644,
					  DIRWRITE_REPLACE_FOREIGN, &detail), -EISDIR);
	free(detail);
	/* ... but a FIFO or a symlink is replaced then, by rename. */
	assert_int_equal(dirwrite_replace(dfd, "f.result.json", "y", 1, 0644,
					  DIRWRITE_REPLACE_FOREIGN, &detail), 0);
	struct stat st;
	assert_int_equal(fstatat(dfd, "f.result.json", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(temporaries(dir), 0);
}

/* A hard link of the writer's own file at the name: replaced by a new
 * file, the other name's content and mode untouched (an open would have
 * written through it and made it 0644). */
static void test_hard_link_is_replaced_not_written_through(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *secret = xasprintf("%s/secret", dir);
	_cleanup_free_ char *side = xasprintf("%s/h.result.json", dir);
	char *detail = NULL;

	assert_int_equal(fileio_write_atomic(secret, "private\n", 8, 0600), 0);
	assert_int_equal(link(secret, side), 0);
	assert_int_equal(dirwrite_replace(dfd, "h.result.json", "{}\n", 3, 0644, 0, &detail), 0);
	_cleanup_free_ char *text = slurp(secret);
	assert_string_equal(text, "private\n");
	struct stat st;
	assert_int_equal(stat(secret, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_nlink, 1);
	_cleanup_free_ char *now = slurp(side);
	assert_string_equal(now, "{}\n");
}

static void test_other_users_file_is_refused(void **state)
{
	/* Before anything is allocated: a skip leaves the function by longjmp,
	 * past the cleanups. */
	if (geteuid() != 0)
		test_skip("a file of another uid needs root");
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *theirs = xasprintf("%s/t.result.json", dir);
	char *detail = NULL;

	assert_int_equal(fileio_write_atomic(theirs, "theirs\n", 7, 0666), 0);
	assert_int_equal(chown(theirs, 999, 999), 0);
	assert_int_equal(dirwrite_replace(dfd, "t.result.json", "x", 1, 0644, 0, &detail), -EEXIST);
	assert_non_null(strstr(detail, "a regular file owned by"));
	assert_non_null(strstr(detail, "uid 999"));
	free(detail);
	_cleanup_free_ char *text = slurp(theirs);
	assert_string_equal(text, "theirs\n");
	/* An answer file may take another user's place (by rename). */
	assert_int_equal(dirwrite_replace(dfd, "t.result.json", "mine\n", 5, 0644,
					  DIRWRITE_REPLACE_FOREIGN, &detail), 0);
	struct stat st;
	assert_int_equal(stat(theirs, &st), 0);
	assert_int_equal(st.st_uid, 0);
}

/* The mark is an extended attribute: a file system that keeps one says
 * so (and the probe leaves nothing behind), ramfs, which keeps none, says
 * ENOTSUP (the agent's start refuses such a drop directory). */
static void test_marks_supported(void **state)
{
	if (geteuid() != 0)
		test_skip("security.* attributes and a ramfs mount need root");
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	assert_int_equal(dirwrite_marks_supported(dfd), 0);
	char names[256];
	ssize_t n = flistxattr(dfd, names, sizeof(names));
	assert_true(n >= 0);
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1)
		assert_null(strstr(names + i, "mai-agent"));

	_cleanup_free_ char *ram = xasprintf("%s/ram", dir);
	assert_int_equal(mkdir(ram, 0755), 0);
	assert_int_equal(mount("ramfs", ram, "ramfs", 0, "mode=0755"), 0);
	int rfd = open_dir(ram);
	int r = dirwrite_marks_supported(rfd);
	close(rfd);
	assert_int_equal(umount(ram), 0);
	assert_int_equal(r, -ENOTSUP);
}

static void test_name_too_long(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	char name[300];
	char *detail = NULL;
	memset(name, 'n', 256);
	name[256] = '\0';
	assert_int_equal(dirwrite_replace(dfd, name, "x", 1, 0644, 0, &detail), -ENAMETOOLONG);
	assert_non_null(strstr(detail, "256 bytes long"));
	free(detail);
	/* 255 bytes is a file name: the temporary's name is short, not longer. */
	name[255] = '\0';
	assert_int_equal(dirwrite_replace(dfd, name, "x", 1, 0644, 0, &detail), 0);
}

/* A disk that fills (a tmpfs of 8 KiB and 4 inodes, for real): the write
 * of the new content, and then the creation of the new file itself, are
 * refused with ENOSPC and said; the old answer stays whole and no
 * temporary is left. */
static void test_full_disk_keeps_the_old_file(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *small = testdir_small_fs(dir, "small", "size=8k,nr_inodes=4,mode=0755");
	if (!small)
		test_skip("a tmpfs of its own needs root (mount)");
	_cleanup_close_ int dfd = open_dir(small);
	_cleanup_free_ char *path = xasprintf("%s/a.result.json", small);
	static char big[64 << 10];
	char *detail = NULL;

	memset(big, 'x', sizeof(big));
	assert_int_equal(dirwrite_replace(dfd, "a.result.json", "old\n", 4, 0644, DIRWRITE_DURABLE,
					  &detail), 0);
	assert_int_equal(dirwrite_replace(dfd, "a.result.json", big, sizeof(big), 0644,
					  DIRWRITE_DURABLE, &detail), -ENOSPC);
	assert_non_null(strstr(detail, "cannot write a new file in its directory: No space left"));
	free(detail);
	/* The inodes used up (the root directory and a.result.json hold two;
	 * the test takes the rest): not even the new file can be made. */
	testdir_fill_inodes(small);
	assert_int_equal(dirwrite_replace(dfd, "a.result.json", "new\n", 4, 0644, 0, &detail),
			 -ENOSPC);
	assert_non_null(strstr(detail, "No space left"));
	free(detail);
	_cleanup_free_ char *text = slurp(path);
	assert_string_equal(text, "old\n");
	assert_int_equal(temporaries(small), 0);
	testdir_unmount(small);
}

/* The steps after the content is written failing (fault.h: a disk's EIO
 * on fsync, chown or chmod refused on a file the agent has just created,
 * the mark refused, a rename or a directory's fsync failing cannot be
 * arranged for real on demand): each is refused with its errno and says
 * which step, the file at the name is the old one, and no temporary is
 * left; both through an anonymous file and through a named temporary (a
 * file system without O_TMPFILE, as the fault's EOPNOTSUPP says). */
static void test_failing_steps_keep_the_old_file(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *path = xasprintf("%s/a.audit", dir);
	static const struct {
		const char *call, *match, *says;
		unsigned nth;
		int err;
		bool marked, chown;
		unsigned flags;
	} steps[] = {
		{ "fsync", NULL, "cannot write a new file", 1, EIO, false, false, DIRWRITE_DURABLE },
		{ "fsync", NULL, "cannot write a new file", 1, EIO, false, false, DIRWRITE_DURABLE_DATA },
		{ "fchmod", NULL, "cannot write a new file", 1, EROFS, false, false, 0 },
		{ "fchown", NULL, "cannot write a new file", 1, EPERM, false, true, 0 },
		{ "fsetxattr", NULL, "cannot write a new file", 1, EDQUOT, true, false, 0 },
		{ "renameat", NULL, "cannot rename the new file into place", 1, EIO, false, false, 0 },
		/* The file's own fsync passes, its directory's fails. */
		{ "fsync", NULL, "cannot flush its directory", 2, EIO, false, false, DIRWRITE_DURABLE },
	};
	char *detail = NULL;

	assert_int_equal(dirwrite_replace(dfd, "a.audit", "old\n", 4, 0644, 0, &detail), 0);
	for (int named = 0; named < 2; named++)
		for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
			struct dirwrite_access a = { .uid = geteuid(), .gid = (gid_t)-1, .mode = 0644,
						     .marked = steps[i].marked };
			if (steps[i].chown)
				a.gid = getegid();
			if (named)
				fault_arm("openat64", "/.", 1, 1, EOPNOTSUPP);
			fault_arm(steps[i].call, steps[i].match, steps[i].nth, 1, steps[i].err);
			int r = dirwrite_replace_as(dfd, "a.audit", "new\n", 4, &a, steps[i].flags,
						    &detail);
			unsigned hits = fault_hits(steps[i].call);
			fault_clear();
			print_message("%s (%s)\n", steps[i].call, named ? "named" : "anonymous");
			assert_int_equal(hits, 1);
			if (strcmp(steps[i].says, "cannot flush its directory") == 0) {
				/* The new content is in place: only its durability is
				 * in doubt, and the caller is told. */
				assert_int_equal(r, -steps[i].err);
				assert_non_null(strstr(detail, steps[i].says));
				free(detail);
				assert_int_equal(dirwrite_replace(dfd, "a.audit", "old\n", 4, 0644, 0,
								  &detail), 0);
				continue;
			}
			assert_int_equal(r, -steps[i].err);
			assert_non_null(strstr(detail, steps[i].says));
			assert_non_null(strstr(detail, strerror(steps[i].err)));
			free(detail);
			_cleanup_free_ char *text = slurp(path);
			assert_string_equal(text, "old\n");
			assert_int_equal(temporaries(dir), 0);
		}
}

/* Creating the temporary itself failing: with O_TMPFILE refused for a
 * reason other than the file system's (the directory's disk failing:
 * fault.h, EIO), and, on the named path, the new file not being what
 * O_EXCL promised (its fstat failing: EIO). Nothing is left, the old file
 * stays. */
static void test_failing_create_keeps_the_old_file(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *path = xasprintf("%s/b.audit", dir);
	char *detail = NULL;

	assert_int_equal(dirwrite_replace(dfd, "b.audit", "old\n", 4, 0644, 0, &detail), 0);
	fault_arm("openat64", "/.", 1, 1, EIO);
	assert_int_equal(dirwrite_replace(dfd, "b.audit", "new\n", 4, 0644, 0, &detail), -EIO);
	assert_int_equal(fault_hits("openat64"), 1);
	fault_clear();
	assert_non_null(strstr(detail, "cannot write a new file in its directory: Input/output error"));
	free(detail);

	fault_arm("openat64", "/.", 1, 1, EOPNOTSUPP);
	fault_arm("fstat64", NULL, 1, 1, EIO);
	assert_int_equal(dirwrite_replace(dfd, "b.audit", "new\n", 4, 0644, 0, &detail), -EIO);
	assert_int_equal(fault_hits("fstat64"), 1);
	fault_clear();
	free(detail);
	_cleanup_free_ char *text = slurp(path);
	assert_string_equal(text, "old\n");
	assert_int_equal(temporaries(dir), 0);
}

/* Linking the anonymous file in: a process without CAP_DAC_READ_SEARCH
 * (linkat with AT_EMPTY_PATH refused with EPERM) links it through
 * /proc/self/fd; without /proc either, it falls back to a named temporary;
 * a link failing otherwise (the disk's EIO) is an error. The agent and this
 * test run as root, with the capability and /proc: fault.h stands for
 * their absence. The random name's source failing (getrandom before the
 * kernel's pool is ready) still gives a fresh name. */
static void test_link_fallbacks(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	_cleanup_free_ char *path = xasprintf("%s/c.audit", dir);
	char *detail = NULL;

	fault_arm("linkat", NULL, 1, 1, EPERM);
	assert_int_equal(dirwrite_replace(dfd, "c.audit", "one\n", 4, 0644, 0, &detail), 0);
	assert_int_equal(fault_hits("linkat"), 1);
	fault_clear();
	_cleanup_free_ char *one = slurp(path);
	assert_string_equal(one, "one\n");

	fault_arm("linkat", NULL, 1, 2, ENOENT);
	fault_arm("getrandom", NULL, 1, 0, EAGAIN);
	assert_int_equal(dirwrite_replace(dfd, "c.audit", "two\n", 4, 0644, 0, &detail), 0);
	assert_int_equal(fault_hits("linkat"), 2);
	assert_true(fault_hits("getrandom") >= 1);
	fault_clear();
	_cleanup_free_ char *two = slurp(path);
	assert_string_equal(two, "two\n");

	fault_arm("linkat", NULL, 1, 1, EIO);
	assert_int_equal(dirwrite_replace(dfd, "c.audit", "three\n", 6, 0644, 0, &detail), -EIO);
	fault_clear();
	assert_non_null(strstr(detail, "cannot write a new file in its directory: Input/output error"));
	free(detail);
	_cleanup_free_ char *still = slurp(path);
	assert_string_equal(still, "two\n");
	assert_int_equal(temporaries(dir), 0);
}

/* A descriptor that is not a directory (a caller's mistake the kernel
 * reports): looking at the name, and clearing temporaries, say ENOTDIR;
 * a directory that cannot be listed (fdopendir failing, which it does only
 * without memory: fault.h, ENOMEM)
 * is an error too. */
static void test_not_a_directory(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *file = xasprintf("%s/plain", dir);
	assert_int_equal(fileio_write_atomic(file, "x", 1, 0644), 0);
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	char *detail = NULL;
	unsigned removed = 7;

	assert_int_equal(dirwrite_replace(fd, "x.audit", "x", 1, 0644, 0, &detail), -ENOTDIR);
	assert_string_equal(detail, "cannot look at it: Not a directory");
	free(detail);
	assert_int_equal(dirwrite_clear_temporaries(fd, &removed), -ENOTDIR);
	_cleanup_close_ int dfd = open_dir(dir);
	fault_arm("fdopendir", NULL, 1, 1, ENOMEM);
	assert_int_equal(dirwrite_clear_temporaries(dfd, &removed), -ENOMEM);
	assert_int_equal(fault_hits("fdopendir"), 1);
	fault_clear();
	assert_int_equal(removed, 7);
}

/* After a crash: the agent's own temporaries go, nothing else. */
static void test_clear_temporaries(void **state)
{
	const char *dir = *state;
	_cleanup_close_ int dfd = open_dir(dir);
	static const char *const ours[] = {
		DIRWRITE_TEMP_PREFIX "0123456789abcdef",
		"foo.result.json.tmp.4242",
		"foo.audit.tmp.17",
	};
	static const char *const kept[] = {
		DIRWRITE_TEMP_PREFIX "0123",            /* not 16 hex digits */
		DIRWRITE_TEMP_PREFIX "0123456789ABCDEF", /* not lower-case hex */
		"notes.tmp.12",
		"foo.result.json",
		"x.py",
	};
	unsigned removed = 0;

	for (size_t i = 0; i < ARRAY_SIZE(ours); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, ours[i]);
		assert_int_equal(fileio_write_atomic(p, "x", 1, 0600), 0);
		assert_true(dirwrite_is_temporary(ours[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, kept[i]);
		assert_int_equal(fileio_write_atomic(p, "x", 1, 0600), 0);
		assert_false(dirwrite_is_temporary(kept[i]));
	}
	/* A FIFO at a temporary's name is not the agent's and is left alone. */
	assert_int_equal(mkfifoat(dfd, DIRWRITE_TEMP_PREFIX "fedcba9876543210", 0600), 0);
	bool root = geteuid() == 0;
	if (root) {
		_cleanup_free_ char *p = xasprintf("%s/%s", dir, DIRWRITE_TEMP_PREFIX "1111111111111111");
		assert_int_equal(fileio_write_atomic(p, "x", 1, 0600), 0);
		assert_int_equal(chown(p, 999, 999), 0);
	}
	assert_int_equal(dirwrite_clear_temporaries(dfd, &removed), 0);
	assert_int_equal(removed, ARRAY_SIZE(ours));
	struct stat st;
	for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
		assert_int_equal(fstatat(dfd, ours[i], &st, AT_SYMLINK_NOFOLLOW), -1);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		assert_int_equal(fstatat(dfd, kept[i], &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(fstatat(dfd, DIRWRITE_TEMP_PREFIX "fedcba9876543210", &st,
				 AT_SYMLINK_NOFOLLOW), 0);
	if (root)
		assert_int_equal(fstatat(dfd, DIRWRITE_TEMP_PREFIX "1111111111111111", &st,
					 AT_SYMLINK_NOFOLLOW), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_writes_and_replaces_its_own_file),
		T(test_fifo_symlink_and_directory_are_refused),
		T(test_hard_link_is_replaced_not_written_through),
		T(test_other_users_file_is_refused),
		T(test_marks_supported),
		T(test_name_too_long),
		T(test_clear_temporaries),
		T(test_full_disk_keeps_the_old_file),
		T(test_failing_steps_keep_the_old_file),
		T(test_failing_create_keeps_the_old_file),
		T(test_link_fallbacks),
		T(test_not_a_directory),
	};
	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
