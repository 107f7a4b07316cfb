/* The drop directory changed behind its mount (by a process outside it:
 * an administrator as root, a backup restoring files) while the kernel
 * still holds what it looked up a moment before, so that the call reaches
 * the agent: each finds the backing name gone or changed and fails with
 * the errno a plain directory would give, never following a link, never
 * opening what is not a regular file. Also the calls the kernel sends
 * for a name created behind a cached "no such file". Real FUSE, real
 * files; the backing directory is reached through a descriptor opened
 * before the mount.
 *
 * The kernel keeps an entry for 1 s (dropfs's entry_timeout): a case
 * whose calls took longer than that (a very loaded machine) did not reach
 * the agent as planned and is run again.
 *
 * Then the calls of the mount's threads that the real system cannot be
 * made to fail on demand (fault.h): an owner refused for a node just
 * made (a quota), EIO from fstat or ftruncate of a file just opened,
 * a listing that cannot start (no memory), no thread left at start.
 *
 * Needs root and /dev/fuse: exit 77 without them, a failure with
 * MAI_REQUIRE_REAL=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "dirwrite.h"
#include "fault.h"
#include "fileio.h"
#include "monoclock.h"
#include "mountutil.h"
#include "testdir.h"
#include "dropfs_fixture.h"

/* The errno of a call: 0 when it succeeded. */
#define ERRNO_OF(call) ((call) < 0 ? errno : 0)

/* Runs one case up to three times, until its calls came within the
 * kernel's entry timeout of the lookup that made the entry. */
#define WITHIN_THE_CACHE(body)                                                \
	do {                                                                  \
		for (int try_ = 0;; try_++) {                                 \
			uint64_t t0_ = (uint64_t)monoclock_ms();              \
			body;                                                 \
			if ((uint64_t)monoclock_ms() - t0_ < 800 || try_ == 2) \
				break;                                        \
		}                                                             \
	} while (0)

struct outcome {
	int open, trunc, rename, readlink;
};

/* a.py written through the mount (the kernel now holds its entry), then
 * replaced behind the mount by what make() puts there. */
static void replace_behind(struct fx *f, void (*make)(struct fx *), struct outcome *o)
{
	_cleanup_free_ char *a = at(f, "a.py"), *b = at(f, "b.py");
	put(f, "a.py", "print(1)\n");
	struct stat st;
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(unlinkat(f->backing, "a.py", 0), 0);
	make(f);
	int fd = open(a, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	o->open = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	o->trunc = ERRNO_OF(truncate(a, 0));
	o->rename = ERRNO_OF(rename(a, b));
	(void)unlinkat(f->backing, "a.py", 0);
	(void)unlinkat(f->backing, "a.py", AT_REMOVEDIR);
	(void)unlinkat(f->backing, "b.py", 0);
}

static void nothing(struct fx *f) { (void)f; }

static void a_directory(struct fx *f)
{
	assert_int_equal(mkdirat(f->backing, "a.py", 0755), 0);
}

static void a_link(struct fx *f)
{
	assert_int_equal(symlinkat("/etc/passwd", f->backing, "a.py"), 0);
}

static void test_file_changed_behind_the_mount(void **state)
{
	struct fx *f = *state;
	struct outcome o;

	WITHIN_THE_CACHE(replace_behind(f, nothing, &o));
	assert_int_equal(o.open, ENOENT);
	assert_int_equal(o.trunc, ENOENT);
	assert_int_equal(o.rename, ENOENT);
	/* A directory is not opened as a file; a link is not followed. */
	WITHIN_THE_CACHE(replace_behind(f, a_directory, &o));
	assert_int_equal(o.open, EACCES);
	assert_int_equal(o.trunc, EISDIR);
	WITHIN_THE_CACHE(replace_behind(f, a_link, &o));
	assert_int_equal(o.open, EACCES);
	assert_int_equal(o.trunc, ELOOP);

	/* A symbolic link (a name the mount rejects, but keeps) removed: its
	 * target can no longer be read. */
	_cleanup_free_ char *l = at(f, "l.txt");
	char buf[64];
	WITHIN_THE_CACHE({
		assert_int_equal(symlink("target", l), 0);
		struct stat st;
		assert_int_equal(lstat(l, &st), 0);
		assert_int_equal(unlinkat(f->backing, "l.txt", 0), 0);
		o.readlink = ERRNO_OF(readlink(l, buf, sizeof(buf)));
	});
	assert_int_equal(o.readlink, ENOENT);

	/* The agent's mark read through the mount, from a sidecar that is gone
	 * since (the agent replaced it). */
	_cleanup_free_ char *side = at(f, "a.result.json");
	WITHIN_THE_CACHE({
		int fd = openat(f->backing, "a.result.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		assert_int_equal(fsetxattr(fd, DIRWRITE_MARK_XATTR, "a.result.json", 13, 0), 0);
		close(fd);
		assert_int_equal(getxattr(side, DIRWRITE_MARK_XATTR, buf, sizeof(buf)), 13);
		assert_int_equal(unlinkat(f->backing, "a.result.json", 0), 0);
		o.open = ERRNO_OF(getxattr(side, DIRWRITE_MARK_XATTR, buf, sizeof(buf)));
	});
	assert_int_equal(o.open, ENOENT);
}

/* A name the kernel holds as missing, then created behind the mount: a
 * create through the mount opens it (the caller did not ask for O_EXCL),
 * or is refused with EEXIST when it did. */
static void test_created_behind_a_missing_entry(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *n = at(f, "n.py"), *m = at(f, "m.py");
	int excl = 0, fd = -1;

	WITHIN_THE_CACHE({
		struct stat st;
		assert_int_equal(stat(n, &st), -1);
		assert_int_equal(stat(m, &st), -1);
		for (int i = 0; i < 2; i++) {
			int bfd = openat(f->backing, i ? "m.py" : "n.py", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
			assert_true(bfd >= 0);
			close(bfd);
		}
		if (fd >= 0)
			close(fd);
		fd = open(n, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		excl = ERRNO_OF(open(m, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
	});
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, "print(2)\n", 9), 0);
	assert_int_equal(close(fd), 0);
	assert_int_equal(excl, EEXIST);
	want_names(f, 1);
	assert_string_equal(f->got[0].rel, "n.py");
	assert_string_equal(f->got[0].data, "print(2)\n");
}

/* A subdirectory removed behind the mount while the kernel holds it: what
 * is made, opened or renamed in it fails with ENOENT. Agent files are
 * refused as directories and links too, and .wait's listing syncs as a
 * directory that holds nothing. */
static void test_subdirectory_gone(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *sub = at(f, "sub"), *x = at(f, "sub/x.py"), *d = at(f, "sub/d");
	_cleanup_free_ char *a = at(f, "a.txt"), *b = at(f, "sub/b.txt"), *l = at(f, "sub/l");
	struct outcome o = { 0 };
	int dir = 0;

	put(f, "a.txt", "x\n");
	WITHIN_THE_CACHE({
		assert_int_equal(mkdir(sub, 0755), 0);
		struct stat st;
		assert_int_equal(stat(sub, &st), 0);
		assert_int_equal(unlinkat(f->backing, "sub", AT_REMOVEDIR), 0);
		o.open = ERRNO_OF(open(x, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		o.trunc = ERRNO_OF(mkdir(d, 0755));
		o.rename = ERRNO_OF(rename(a, b));
		o.readlink = ERRNO_OF(symlink("t", l));
		DIR *dd = opendir(sub);
		dir = dd ? 0 : errno;
		if (dd)
			closedir(dd);
	});
	assert_int_equal(o.open, ENOENT);
	assert_int_equal(o.trunc, ENOENT);
	assert_int_equal(o.rename, ENOENT);
	assert_int_equal(o.readlink, ENOENT);
	assert_int_equal(dir, ENOENT);

	_cleanup_free_ char *rj = at(f, "r.result.json"), *la = at(f, "l.audit");
	assert_int_equal(ERRNO_OF(mkdir(rj, 0755)), EACCES);
	assert_int_equal(ERRNO_OF(symlink("t", la)), EACCES);
	assert_int_equal(mkdirat(f->backing, "q.result.json", 0755), 0);
	_cleanup_free_ char *q = at(f, "q.result.json");
	assert_int_equal(ERRNO_OF(rmdir(q)), EACCES);

	_cleanup_free_ char *wait = at(f, ".wait");
	int wfd = open(wait, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(wfd >= 0);
	assert_int_equal(fsync(wfd), 0);
	close(wfd);
}

static int write_text_as(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return errno;
	if (write(fd, "print(4)\n", 9) != 9)
		return 98;
	return close(fd) < 0 ? 97 : 0;
}

/* Another user's bytes renamed into place by root, on a mount with no
 * callback for such renames (the daemon's records them): the script is
 * still its bytes' author's, not the renamer's. */
static void test_others_bytes_renamed_into_place(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *o = at(f, "o.txt"), *py = at(f, "o.py");
	assert_int_equal(as_user(NOBODY, NOBODY, write_text_as, o), 0);
	assert_int_equal(rename(o, py), 0);
	want_names(f, 1); /* o.txt is no script: only o.py */
	assert_string_equal(f->got[0].rel, "o.py");
	assert_true(f->got[0].taken);
	assert_string_equal(f->got[0].data, "print(4)\n");
	assert_int_equal(f->got[0].writer.uid, NOBODY);
	assert_int_equal(f->got[0].writer.gid, NOBODY);
}

/* One call through the mount with one call of the mount's thread failing:
 * the caller gets that errno, and no node the call made is left behind. */
static void test_failing_steps_of_the_mount(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *d = at(f, "d"), *l = at(f, "l.txt"), *c = at(f, "c.py");
	_cleanup_free_ char *e = at(f, "e.py"), *t = at(f, "t.py"), *u = at(f, "u.py");
	struct stat st;

	fault_arm("fchownat", "/drop/d", 1, 1, EDQUOT);
	assert_int_equal(ERRNO_OF(mkdir(d, 0755)), EDQUOT);
	fault_arm("fchownat", "/drop/l.txt", 1, 1, EDQUOT);
	assert_int_equal(ERRNO_OF(symlink("t", l)), EDQUOT);
	fault_arm("fchown", "/drop/c.py", 1, 1, EDQUOT);
	assert_int_equal(ERRNO_OF(open(c, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)), EDQUOT);
	fault_clear();
	assert_int_equal(fstatat(f->backing, "d", &st, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(fstatat(f->backing, "l.txt", &st, AT_SYMLINK_NOFOLLOW), -1);
	assert_int_equal(fstatat(f->backing, "c.py", &st, AT_SYMLINK_NOFOLLOW), -1);

	fault_arm("fstat64", "/drop/c.py", 1, 1, EIO);
	assert_int_equal(ERRNO_OF(open(c, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)), EIO);
	assert_int_equal(fault_hits("fstat64"), 1);
	put(f, "e.py", "print(5)\n");
	put(f, "t.py", "print(6)\n");
	put(f, "u.py", "print(7)\n");
	fault_arm("fstat64", "/drop/e.py", 1, 1, EIO);
	assert_int_equal(ERRNO_OF(open(e, O_RDONLY | O_CLOEXEC)), EIO);
	fault_arm("ftruncate64", "/drop/t.py", 1, 1, EIO);
	assert_int_equal(ERRNO_OF(open(t, O_WRONLY | O_TRUNC | O_CLOEXEC)), EIO);
	fault_arm("fstat64", "/drop/u.py", 1, 1, EIO);
	assert_int_equal(ERRNO_OF(truncate(u, 1)), EIO);
	fault_arm("fdopendir", "/drop", 1, 1, ENOMEM);
	errno = 0;
	DIR *dir = opendir(f->mnt);
	assert_null(dir);
	assert_int_equal(errno, ENOMEM);
	fault_clear();
	_cleanup_free_ char *still = slurp(t);
	assert_string_equal(still, "print(6)\n");
}

/* A start that runs out of descriptors (the eventfd, for real) or threads
 * (the serving threads: fault.h) is refused with the reason, and leaves no
 * mount. */
static void test_start_without_resources(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *mnt = xasprintf("%s/drop", dir), *loop = xasprintf("%s/loop", dir);
	struct fx g = { .mnt = mnt };
	struct drop_source *src = NULL;
	char *err = NULL, *detail = NULL;
	struct dropfs_options o = { .dir = mnt, .max_file_size = 1024 };

	assert_int_equal(mkdir(mnt, 0755), 0);
	struct rlimit fds = testdir_fd_limit(1); /* the directory opens, the eventfd does not */
	int r = dropfs_new(&o, on_name, &g, &src, &err);
	testdir_fd_limit_end(&fds);
	assert_int_equal(r, -EMFILE);
	assert_non_null(strstr(err, "/drop: Too many open files"));
	free(err);
	fault_arm("pthread_create", NULL, 2, 1, EAGAIN);
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -EAGAIN);
	fault_clear();
	assert_non_null(strstr(err, "cannot start the drop directory's threads: Resource temporarily"));
	free(err);
	assert_int_equal(mountutil_probe(mnt, &detail), MOUNTUTIL_READY);
	free(detail);

	/* A drop directory whose path cannot be resolved (a symbolic link
	 * loop above it), for real. */
	assert_int_equal(symlink("loop", loop), 0);
	_cleanup_free_ char *under = xasprintf("%s/loop/drop", dir);
	o.dir = under;
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -ELOOP);
	assert_non_null(strstr(err, "cannot resolve the drop directory"));
	free(err);
}

/* What the drop directory's own file system refuses at start, for real: a
 * ramfs keeps no extended attributes (refused before the directory is made
 * root's 0700, with where to put it instead); a read-only one cannot be
 * made the agent's (refused, said); a damaged saved mode is ignored (the
 * directory's own shows); a group that does not exist is refused. */
static void test_drop_dir_file_systems(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *ram = xasprintf("%s/ram", dir), *ro = xasprintf("%s/ro", dir);
	_cleanup_free_ char *plain = xasprintf("%s/plain", dir);
	struct fx g = { .mnt = plain };
	struct drop_source *src = NULL;
	char *err = NULL;
	struct dropfs_options o = { .dir = ram, .max_file_size = 1024 };

	assert_int_equal(mkdir(ram, 0755), 0);
	assert_int_equal(mount("ramfs", ram, "ramfs", 0, "mode=0755"), 0);
	int r = dropfs_new(&o, on_name, &g, &src, &err);
	struct stat st;
	assert_int_equal(stat(ram, &st), 0);
	assert_int_equal(umount2(ram, MNT_DETACH), 0);
	assert_int_equal(r, -ENOTSUP);
	assert_non_null(strstr(err, "keeps no extended attributes"));
	assert_non_null(strstr(err, "or use drop_mode: watch"));
	assert_int_equal(st.st_mode & 07777, 0755); /* left as it was */
	free(err);

	assert_int_equal(mkdir(ro, 0755), 0);
	assert_int_equal(mount("tmpfs", ro, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755"), 0);
	assert_int_equal(mount(NULL, ro, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL), 0);
	o.dir = ro;
	r = dropfs_new(&o, on_name, &g, &src, &err);
	assert_int_equal(umount2(ro, MNT_DETACH), 0);
	assert_int_equal(r, -EROFS);
	assert_non_null(strstr(err, "the agent's alone (root, 0700): Read-only file system"));
	free(err);

	assert_int_equal(mkdir(plain, 0751), 0);
	assert_int_equal(chmod(plain, 0751), 0);
	o.dir = plain;
	o.dir_group = "no-such-group-mai-test";
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -ENOENT);
	assert_non_null(strstr(err, "drop_dir_group: there is no group 'no-such-group-mai-test'"));
	free(err);
	o.dir_group = NULL;
	assert_int_equal(setxattr(plain, "trusted.mai-agent.shown", "not a mode", 10, 0), 0);
	if (dropfs_new(&o, on_name, &g, &g.src, &err) < 0)
		fail_msg("dropfs_new: %s", err);
	assert_int_equal(stat(plain, &st), 0);
	drop_source_free(g.src);
	assert_int_equal(st.st_mode & 07777, 0751);
}

/* A reader of .wait that the mount cannot serve while it waits: no
 * descriptor left for its wake-up (for real: the descriptor limit, one
 * spare for the reader's own), or no thread to serve others meanwhile
 * (fault.h: pthread_create's EAGAIN). It gets the error at once instead of
 * blocking the mount. */
static void test_wait_without_resources(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *w = at(f, ".wait/w.result.json");
	put(f, "w.py", "print(8)\n");
	want_names(f, 1);

	struct rlimit fds = testdir_fd_limit(1);
	int fd = open(w, O_RDONLY | O_CLOEXEC);
	int e = errno;
	testdir_fd_limit_end(&fds);
	assert_int_equal(fd, -1);
	assert_int_equal(e, EMFILE);

	fault_arm("pthread_create", NULL, 1, 1, EAGAIN);
	assert_int_equal(ERRNO_OF(open(w, O_RDONLY | O_CLOEXEC)), EAGAIN);
	assert_int_equal(fault_hits("pthread_create"), 1);
	fault_clear();
}

/* The drop directory's disk and the notes' disk full, for real (small
 * tmpfs mounts): a script whose note cannot be kept is still taken; a
 * write the full disk cuts short is answered as such, not run; a create
 * on a disk with no inode left fails with ENOSPC. */
static void test_full_disks(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *disk = xasprintf("%s/disk", dir), *notes = xasprintf("%s/notes", dir);
	assert_int_equal(mkdir(disk, 0755), 0);
	assert_int_equal(mkdir(notes, 0700), 0);
	assert_int_equal(mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,nr_inodes=8,mode=0755"), 0);
	assert_int_equal(mount("tmpfs", notes, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,nr_inodes=1,mode=0700"), 0);
	struct fx g = { .mnt = disk };
	struct dropfs_options o = { .dir = disk, .max_file_size = 1 << 20, .notes_dir = notes };
	_cleanup_free_ char *err = NULL;
	int r = dropfs_new(&o, on_name, &g, &g.src, &err);
	if (r < 0) {
		umount2(disk, MNT_DETACH);
		umount2(notes, MNT_DETACH);
		fail_msg("dropfs_new: %s", err);
	}

	put(&g, "a.py", "print(1)\n");
	want_names(&g, 1);
	assert_true(g.got[0].taken);
	assert_string_equal(g.got[0].data, "print(1)\n");

	_cleanup_free_ char *b = at(&g, "b.py");
	static char big[128 << 10];
	memset(big, '#', sizeof(big));
	int fd = open(b, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, big, sizeof(big)), -ENOSPC);
	close(fd);
	want_names(&g, 2);
	assert_string_equal(g.got[1].rel, "b.py");
	assert_true(g.got[1].taken);
	assert_int_equal(g.got[1].status, INTAKE_INCOMPLETE); /* answered, not run */

	int e = 0;
	for (int i = 0; i < 16 && !e; i++) {
		_cleanup_free_ char *n = xasprintf("%s/f%d.txt", disk, i);
		int nfd = open(n, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (nfd < 0)
			e = errno;
		else
			close(nfd);
	}
	drop_source_free(g.src);
	for (unsigned i = 0; i < g.n; i++) {
		free(g.got[i].rel);
		free(g.got[i].data);
	}
	assert_int_equal(umount2(disk, MNT_DETACH), 0);
	assert_int_equal(umount2(notes, MNT_DETACH), 0);
	assert_int_equal(e, ENOSPC);
}

int main(void)
{
	int r = fx_require_fuse();
	if (r)
		return r;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_changed_behind_the_mount, setup, teardown),
		cmocka_unit_test_setup_teardown(test_created_behind_a_missing_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subdirectory_gone, setup_recursive, teardown),
		cmocka_unit_test_setup_teardown(test_others_bytes_renamed_into_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failing_steps_of_the_mount, setup_recursive, teardown),
		cmocka_unit_test_setup_teardown(test_start_without_resources, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_drop_dir_file_systems, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_wait_without_resources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_disks, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
