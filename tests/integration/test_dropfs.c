/* The drop directory's mount (agent/dropfs) on a real FUSE mount in a
 * temporary directory, with real files and real users: what completes a
 * file and what its snapshot holds, who wrote it, what is refused at the
 * call, the no-torn-snapshot rule, symbolic links and subdirectories, and a
 * stale mount left by a process killed with SIGKILL (.wait: in
 * test_dropfs_wait.c). The names reach this test the way they reach the
 * daemon: through drop_source_process() on the test's thread.
 *
 * Needs root (allow_other, chown to the writer) and /dev/fuse: exit 77
 * without them, a failure with MAI_REQUIRE_REAL=1. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "dropfs.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "monoclock.h"
#include "mountutil.h"
#include "testdir.h"
#include "dropfs_fixture.h"

/* --- completion --- */

static void test_in_place_write(void **state)
{
	struct fx *f = *state;
	put(f, "a.py", "print(1)\n");
	want_names(f, 1);
	struct got *g = &f->got[0];
	assert_string_equal(g->rel, "a.py");
	assert_int_equal(g->kind, NAMES_SCRIPT);
	assert_true(g->taken);
	assert_int_equal(g->status, INTAKE_OK);
	assert_string_equal(g->data, "print(1)\n");
	assert_int_equal(g->writer.from, DROP_WRITER_REQUEST);
	assert_int_equal(g->writer.uid, 0);
	assert_int_equal(g->writer.pid, getpid());
	assert_string_equal(g->writer.process, comm());

	/* Opened for writing and closed without a write: nothing new. */
	_cleanup_free_ char *p = at(f, "a.py");
	int fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	close(fd);
	/* Read: nothing either. */
	_cleanup_free_ char *text = slurp(p);
	assert_string_equal(text, "print(1)\n");
	want_names(f, 1);
	/* Ignored names are not reported. */
	put(f, "notes.txt", "x");
	put(f, ".a.py.swp", "x");
	want_names(f, 1);
}

static void test_last_writer_completes(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *p = at(f, "b.py");
	int a = open(p, O_WRONLY | O_CREAT, 0644);
	int b = open(p, O_WRONLY);
	assert_true(a >= 0 && b >= 0);
	assert_int_equal(pwrite(a, "x", 1, 0), 1);
	assert_int_equal(pwrite(b, "y\n", 2, 1), 2);
	close(a);
	want_names(f, 0); /* b still writes */
	close(b);
	want_names(f, 1);
	assert_string_equal(f->got[0].data, "xy\n");

	/* O_TRUNC is a write even without one: an empty script. */
	int c = open(p, O_WRONLY | O_TRUNC);
	close(c);
	want_names(f, 2);
	assert_string_equal(f->got[1].data, "");
	/* So is a truncation by name, taken at once. */
	put(f, "b.py", "abc");
	want_names(f, 3);
	assert_int_equal(truncate(p, 1), 0);
	want_names(f, 4);
	assert_string_equal(f->got[3].data, "a");
	/* A file removed while open is not taken at its close. */
	int d = open(p, O_WRONLY);
	assert_int_equal(write(d, "zz", 2), 2);
	assert_int_equal(unlink(p), 0);
	close(d);
	want_names(f, 4);
	/* O_RDONLY|O_TRUNC truncates as well. */
	put(f, "b2.py", "xyz");
	want_names(f, 5);
	_cleanup_free_ char *p2 = at(f, "b2.py");
	int e = open(p2, O_RDONLY | O_TRUNC);
	assert_true(e >= 0);
	close(e);
	want_names(f, 6);
	assert_string_equal(f->got[5].data, "");
}

static void test_rename_into_place(void **state)
{
	struct fx *f = *state;
	put(f, ".c.tmp", "v1\n");
	want_names(f, 0);
	_cleanup_free_ char *tmp = at(f, ".c.tmp"), *dst = at(f, "c.py");
	assert_int_equal(rename(tmp, dst), 0);
	want_names(f, 1);
	assert_string_equal(f->got[0].data, "v1\n");
	/* Over an existing name. */
	put(f, ".c.tmp", "v2\n");
	assert_int_equal(rename(tmp, dst), 0);
	want_names(f, 2);
	assert_string_equal(f->got[1].data, "v2\n");

	/* Renamed into place while a handle still writes: taken at its close,
	 * with all it wrote, and with the writer's process, although the name
	 * it opened was no script (mai-agent submit's temporary, whose release
	 * the kernel may send after the rename). */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "a", 1), 1);
	assert_int_equal(rename(tmp, dst), 0);
	want_names(f, 2);
	assert_int_equal(write(fd, "b", 1), 1);
	close(fd);
	want_names(f, 3);
	assert_string_equal(f->got[2].rel, "c.py");
	assert_string_equal(f->got[2].data, "ab");
	assert_int_equal(f->got[2].writer.from, DROP_WRITER_REQUEST);
	assert_int_equal(f->got[2].writer.pid, getpid());
	assert_string_equal(f->got[2].writer.process, comm());
}

/* What tools do besides writing: times, modes, owners, fsync, listing,
 * statfs; none of it completes a file. */
static void test_attributes(void **state)
{
	struct fx *f = *state;
	put(f, "u.py", "print(7)\n");
	want_names(f, 1);
	_cleanup_free_ char *p = at(f, "u.py");
	struct timespec tv[2] = { { .tv_sec = 1000000000, .tv_nsec = 5 },
				  { .tv_sec = 1234567890, .tv_nsec = 0 } };
	assert_int_equal(utimensat(AT_FDCWD, p, tv, 0), 0);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, 1234567890);
	assert_int_equal(st.st_atim.tv_sec, 1000000000);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, NOBODY);
	int fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(fdatasync(fd), 0);
	close(fd);
	struct statvfs sv;
	assert_int_equal(statvfs(f->mnt, &sv), 0);
	assert_true(sv.f_bsize > 0);
	DIR *d = opendir(f->mnt);
	assert_non_null(d);
	struct dirent *de;
	bool listed = false;
	while ((de = readdir(d)))
		listed |= strcmp(de->d_name, "u.py") == 0 && de->d_type == DT_REG;
	closedir(d);
	assert_true(listed);
	want_names(f, 1); /* opened read-write, written nothing */
}

/* The root's own attributes, and a truncation, an allocation and a flush
 * through open handles, reach the backing directory and file. */
static void test_root_and_handles(void **state)
{
	struct fx *f = *state;
	struct timespec tv[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1234567890 } };
	struct stat st;
	assert_int_equal(chmod(f->mnt, 01770), 0);
	assert_int_equal(chown(f->mnt, 0, NOBODY), 0);
	assert_int_equal(utimensat(AT_FDCWD, f->mnt, tv, 0), 0);
	assert_int_equal(stat(f->mnt, &st), 0);
	assert_int_equal(st.st_mode & 07777, 01770);
	assert_int_equal(st.st_gid, NOBODY);
	assert_int_equal(st.st_mtim.tv_sec, 1234567890);

	put(f, "h.py", "print(8)\n");
	want_names(f, 1);
	_cleanup_free_ char *p = at(f, "h.py");
	int fd = open(p, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(fallocate(fd, 0, 0, 8192), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 8192);
	assert_int_equal(ftruncate(fd, 5), 0);
	assert_int_equal(close(fd), 0);
	/* Changed through the handle: taken again at its release. */
	want_names(f, 2);
	assert_string_equal(f->got[1].rel, "h.py");
	assert_string_equal(f->got[1].data, "print");

	int dfd = open(f->mnt, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(fsync(dfd), 0);
	assert_int_equal(fdatasync(dfd), 0);
	close(dfd);
}

/* --- refusals --- */

static int errno_of(int r)
{
	return r < 0 ? errno : 0;
}

/* unlink(arg) as the caller of as_user(): 0 or its errno. */
static int unlink_as(void *arg)
{
	return unlink(arg) < 0 ? errno : 0;
}

static void test_agent_files_refused(void **state)
{
	struct fx *f = *state;
	static const char *const names[] = { "x.result.json", "x.audit", "x.result.json.tmp.12" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		_cleanup_free_ char *p = at(f, names[i]);
		assert_int_equal(errno_of(open(p, O_WRONLY | O_CREAT, 0644)), EACCES);
	}
	/* A sidecar as the agent writes it: beside the mount, not through it.
	 * The kernel may remember it as missing until the agent says it
	 * changed; then it is there at once. */
	_cleanup_free_ char *side = xasprintf("%s/e.result.json", drop_source_dir(f->src));
	_cleanup_free_ char *p = at(f, "e.result.json"), *q = at(f, "moved.json");
	struct stat st;
	assert_int_equal(errno_of(stat(p, &st)), ENOENT);
	assert_int_equal(fileio_write_atomic(side, "{}\n", 3, 0644), 0);
	drop_source_changed(f->src, "e.result.json");
	assert_int_equal(stat(p, &st), 0);
	/* While its script is there, a sidecar is the agent's alone. */
	put(f, "e.py", "print(2)\n");
	_cleanup_free_ char *e = at(f, "e.py");
	assert_int_equal(errno_of(open(p, O_WRONLY)), EACCES);
	assert_int_equal(errno_of(truncate(p, 0)), EACCES);
	assert_int_equal(errno_of(unlink(p)), EACCES);
	assert_int_equal(errno_of(rename(p, q)), EACCES);
	assert_int_equal(errno_of(chmod(p, 0600)), EACCES);
	assert_int_equal(errno_of(rename(e, p)), EACCES);
	/* Still there and readable. */
	_cleanup_free_ char *text = slurp(p);
	assert_string_equal(text, "{}\n");

	/* No subdirectories without recursion, no hard links, no FIFOs. */
	_cleanup_free_ char *sub = at(f, "sub"), *link2 = at(f, "f.py"), *fifo = at(f, "g.py");
	assert_int_equal(errno_of(mkdir(sub, 0755)), EPERM);
	assert_int_equal(errno_of(link(e, link2)), EPERM);
	assert_int_equal(errno_of(mkfifo(fifo, 0644)), EPERM);

	pthread_mutex_lock(&f->lock);
	assert_int_equal(f->n_refused, 12);
	assert_int_equal(f->refused[0].why, DROPFS_AGENT_FILE);
	assert_int_equal(f->refused[0].err, EACCES);
	assert_string_equal(f->refused[0].op, "create");
	assert_string_equal(f->refused_rel[0], "x.result.json");
	assert_string_equal(f->refused[3].op, "open for writing");
	assert_string_equal(f->refused[4].op, "truncate");
	assert_string_equal(f->refused[5].op, "unlink");
	assert_string_equal(f->refused[7].op, "chmod");
	assert_string_equal(f->refused[8].op, "rename");
	assert_string_equal(f->refused_rel[8], "e.result.json");
	assert_int_equal(f->refused[9].why, DROPFS_NO_SUBDIRS);
	assert_int_equal(f->refused[10].why, DROPFS_HARD_LINK);
	assert_int_equal(f->refused[11].why, DROPFS_SPECIAL_FILE);
	assert_int_equal(f->refused[11].err, EPERM);
	assert_int_equal(f->refused_caller[11].pid, getpid());
	pthread_mutex_unlock(&f->lock);

	/* Its script gone, a sidecar may go: by root, or by its owner (the
	 * writer it was given to); not by anyone else (in this sticky 1777
	 * directory the kernel refuses that one first, EPERM). */
	_cleanup_free_ char *hside = xasprintf("%s/h.audit", drop_source_dir(f->src));
	_cleanup_free_ char *h = at(f, "h.audit");
	assert_int_equal(fileio_write_atomic(hside, "{}\n", 3, 0644), 0);
	assert_int_equal(chown(hside, NOBODY, NOBODY), 0);
	drop_source_changed(f->src, "h.audit");
	assert_int_equal(unlink(e), 0);
	assert_int_equal(as_user(NOBODY, NOBODY, unlink_as, p), EPERM);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(as_user(NOBODY, NOBODY, unlink_as, h), 0);
	assert_int_equal(errno_of(stat(h, &st)), ENOENT);
}

/* Two scripts exchanged are both new content; a script renamed to a name
 * the agent ignores is not taken; a whiteout is refused. Nothing may be
 * written or made under .wait. */
static void test_exchange_and_wait_refusals(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *a = at(f, "a.py"), *b = at(f, "b.py"), *bak = at(f, "b.py~");
	put(f, "a.py", "print(1)\n");
	put(f, "b.py", "print(2)\n");
	want_names(f, 2);
	assert_int_equal(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE), 0);
	want_names(f, 4);
	bool a_now_2 = false, b_now_1 = false;
	for (unsigned i = 2; i < 4; i++) {
		a_now_2 |= !strcmp(f->got[i].rel, "a.py") && !strcmp(f->got[i].data, "print(2)\n");
		b_now_1 |= !strcmp(f->got[i].rel, "b.py") && !strcmp(f->got[i].data, "print(1)\n");
	}
	assert_true(a_now_2 && b_now_1);

	assert_int_equal(rename(b, bak), 0);
	want_names(f, 4);
	assert_int_equal(errno_of(renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_WHITEOUT)), EINVAL);
	struct stat st;
	assert_int_equal(stat(a, &st), 0);

	_cleanup_free_ char *w = at(f, ".wait/a.result.json"), *wd = at(f, ".wait/d");
	assert_int_equal(errno_of(open(w, O_WRONLY)), EACCES);
	assert_int_equal(errno_of(mkdir(wd, 0755)), EPERM);
	assert_int_equal(errno_of(unlink(w)), EPERM);
	/* A name that only starts like it is an ordinary (ignored) file. */
	put(f, ".waiting", "x\n");
	_cleanup_free_ char *waiting = at(f, ".waiting");
	assert_int_equal(stat(waiting, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	want_names(f, 4);
}

/* The children below only make system calls (the parent has threads):
 * their paths are made before the fork. */
static int write_as(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL, 06750);
	if (fd < 0)
		return errno;
	if (write(fd, "print(3)\n", 9) != 9)
		return 98;
	return close(fd) < 0 ? 97 : 0;
}

struct two_paths {
	char *from, *to;
};

static int rename_as(void *arg)
{
	struct two_paths *p = arg;
	int r = write_as(p->from);
	if (r)
		return r;
	return rename(p->from, p->to) < 0 ? errno : 0;
}

static void test_users(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *n_py = at(f, "n.py"), *n_approve = at(f, "n.approve");
	struct two_paths tp = { at(f, ".n.tmp"), at(f, "n.override") };
	assert_int_equal(as_user(NOBODY, NOBODY, write_as, n_py), 0);
	want_names(f, 1);
	assert_int_equal(f->got[0].writer.uid, NOBODY);
	assert_int_equal(f->got[0].writer.gid, NOBODY);
	assert_int_not_equal(f->got[0].writer.pid, getpid());
	/* Stored with the writer as owner, mode as asked (umask 022 of this
	 * process notwithstanding: 0750 stays) but set-user-ID and
	 * set-group-ID. */
	_cleanup_free_ char *p = at(f, "n.py");
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_uid, NOBODY);
	assert_int_equal(st.st_gid, NOBODY);
	assert_int_equal(st.st_mode & 07777, 0750);

	/* Answer files are refused to a non-approver (only root here), by
	 * create and by rename; root may. */
	assert_int_equal(as_user(NOBODY, NOBODY, write_as, n_approve), EPERM);
	assert_int_equal(as_user(NOBODY, NOBODY, rename_as, &tp), EPERM);
	free(tp.from);
	free(tp.to);
	put(f, "n.approve", "ok\n");
	want_names(f, 2);
	assert_string_equal(f->got[1].rel, "n.approve");
	assert_int_equal(f->got[1].kind, NAMES_APPROVE);

	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex("print(3)\n", 9, sha);
	pthread_mutex_lock(&f->lock);
	assert_int_equal(f->n_refused, 2);
	assert_int_equal(f->refused[0].why, DROPFS_NOT_APPROVER);
	assert_int_equal(f->refused[0].err, EPERM);
	assert_int_equal(f->refused[0].kind, NAMES_APPROVE);
	assert_string_equal(f->refused_script[0], "n.py");
	assert_string_equal(f->refused_sha[0], sha);
	assert_int_equal(f->refused_caller[0].uid, NOBODY);
	assert_int_equal(f->refused[1].kind, NAMES_OVERRIDE);
	assert_string_equal(f->refused[1].op, "rename");
	pthread_mutex_unlock(&f->lock);
}

/* --- the no-torn-snapshot rule --- */

struct writer_arg {
	char *path;
	atomic_bool done;
};

static void *late_writer(void *arg)
{
	struct writer_arg *w = arg;
	int fd = open(w->path, O_WRONLY);
	if (fd >= 0) {
		if (pwrite(fd, "BBBB", 4, 0) != 4)
			fd = -fd;
		atomic_store(&w->done, true);
		close(fd < 0 ? -fd : fd);
	}
	return NULL;
}

/* A write that arrives while a snapshot is read waits until the snapshot
 * is taken (which holds the bytes as of the close), then lands, and its
 * own close completes the file again. */
static void test_no_torn_snapshot(void **state)
{
	struct fx *f = *state;
	pthread_mutex_lock(&f->lock);
	f->hold = "t.py";
	pthread_mutex_unlock(&f->lock);
	put(f, "t.py", "AAAA");

	pthread_mutex_lock(&f->lock);
	while (!f->in_snapshot)
		pthread_cond_wait(&f->cond, &f->lock);
	pthread_mutex_unlock(&f->lock);
	struct writer_arg w = { .path = at(f, "t.py") };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, late_writer, &w), 0);
	pump(f, 300);
	assert_false(atomic_load(&w.done)); /* held while the snapshot is read */
	pthread_mutex_lock(&f->lock);
	f->release = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(t, NULL);
	assert_true(atomic_load(&w.done));
	want_names(f, 2);
	assert_string_equal(f->got[0].data, "AAAA");
	assert_string_equal(f->got[1].data, "BBBB");
	free(w.path);
}

/* --- symbolic links and subdirectories --- */

static void test_symlinks(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *lock = at(f, ".#l.py"), *s = at(f, "s.py");
	assert_int_equal(symlink("root@host.123:1", lock), 0);
	char buf[64];
	ssize_t n = readlink(lock, buf, sizeof(buf) - 1);
	assert_int_equal(n, 15);
	buf[n] = '\0';
	assert_string_equal(buf, "root@host.123:1");
	want_names(f, 0); /* an Emacs lock file is ignored */
	/* A symlink named like a script is reported, and refused by the
	 * intake (never followed). */
	assert_int_equal(symlink("/etc/passwd", s), 0);
	want_names(f, 1);
	assert_int_equal(f->got[0].status, INTAKE_SYMLINK);
	assert_int_equal(unlink(lock), 0);
}

static void test_recursive(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *sub = at(f, "sub");
	assert_int_equal(mkdir(sub, 0755), 0);
	put(f, "sub/a.py", "print(5)\n");
	want_names(f, 1);
	assert_string_equal(f->got[0].rel, "sub/a.py");
	assert_string_equal(f->got[0].data, "print(5)\n");
	/* A directory renamed is looked through again, subdirectories too. */
	_cleanup_free_ char *deep = at(f, "sub/deep"), *moved = at(f, "moved");
	assert_int_equal(mkdir(deep, 0755), 0);
	put(f, "sub/deep/b.py", "print(6)\n");
	want_names(f, 2);
	assert_int_equal(rename(sub, moved), 0);
	want_names(f, 4);
	/* Found by the scan: named, to be read as in watch mode. */
	bool a = false, b = false;
	for (unsigned i = 2; i < 4; i++) {
		a |= !strcmp(f->got[i].rel, "moved/a.py") && !f->got[i].taken;
		b |= !strcmp(f->got[i].rel, "moved/deep/b.py") && !f->got[i].taken;
	}
	assert_true(a && b);
	/* An empty directory is removed. */
	_cleanup_free_ char *empty = at(f, "empty");
	assert_int_equal(mkdir(empty, 0755), 0);
	assert_int_equal(rmdir(empty), 0);
	struct stat st;
	assert_int_equal(errno_of(stat(empty, &st)), ENOENT);
}

/* --- where it may mount, and the notes of a killed agent --- */

/* dropfs_new's refusals, each naming the setting to fix: a drop directory
 * that is missing, that is a file, or that another agent serves (the
 * fixture's own mount); a directory that is a file system of its own (a
 * tmpfs) is served like any other. */
static void test_mount_point_refusals(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *none = xasprintf("%s/none", f->root), *file = xasprintf("%s/file", f->root);
	_cleanup_free_ char *disk = xasprintf("%s/disk", f->root);
	struct fx g = { .mnt = disk };
	struct drop_source *src = NULL;
	char *err = NULL;

	testdir_put(f->root, "file", "x");
	struct dropfs_options o = { .dir = none, .max_file_size = 1024 };
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -ENOENT);
	assert_non_null(strstr(err, "/none does not exist (agent.drop_dir in agent.yaml)"));
	free(err);
	err = NULL;
	o.dir = file;
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -ENOTDIR);
	assert_non_null(strstr(err, "/file is not a directory (agent.drop_dir in agent.yaml)"));
	free(err);
	err = NULL;
	o.dir = f->mnt;
	assert_int_equal(dropfs_new(&o, on_name, &g, &src, &err), -EBUSY);
	assert_non_null(strstr(err, "another agent serves it; stop that agent"));
	free(err);
	err = NULL;

	assert_int_equal(mkdir(disk, 0755), 0);
	assert_int_equal(mount("tmpfs", disk, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m"), 0);
	o.dir = disk;
	if (dropfs_new(&o, on_name, &g, &g.src, &err) < 0) {
		umount2(disk, MNT_DETACH);
		fail_msg("dropfs_new on a tmpfs: %s", err);
	}
	put(&g, "t.py", "print(7)\n");
	want_names(&g, 1);
	assert_string_equal(g.got[0].data, "print(7)\n");
	drop_source_free(g.src);
	free(g.got[0].rel);
	free(g.got[0].data);
	assert_int_equal(umount2(disk, 0), 0);
}

/* Writes a note of the notes directory dir for rel (what dropfs_notes.c
 * keeps while rel is open for writing): rel, then a NUL and errno when
 * err > 0. */
static void put_note(const char *dir, const char *rel, int err)
{
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(rel, strlen(rel), sha);
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, sha);
	_cleanup_free_ char *text = err > 0 ? xasprintf("%s%c%d", rel, '\0', err) : xstrdup(rel);
	size_t len = strlen(rel) + (err > 0 ? 1 + strlen(text + strlen(rel) + 1) : 0);
	assert_int_equal(fileio_write_atomic(path, text, len, 0600), 0);
}

static bool has_note(const char *dir, const char *rel)
{
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(rel, strlen(rel), sha);
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, sha);
	return access(path, F_OK) == 0;
}

/* The notes a killed agent left: a script that was open for writing, and
 * one whose write failed (its errno kept), are held as incomplete from the
 * first scan, and their notes stay until they are written again; a note of
 * a script gone since, or an empty one, is removed. Notes that cannot be
 * kept (their directory under a file) refuse the start. */
static void test_notes_of_a_killed_agent(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *dir = xasprintf("%s/drop", root), *notes = xasprintf("%s/notes", root);
	_cleanup_free_ char *bad = xasprintf("%s/a.py/notes", dir);
	struct fx f = { .mnt = dir };
	char *err = NULL;

	assert_int_equal(chmod(root, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(notes, 0700), 0);
	testdir_put(dir, "a.py", "print('half");
	testdir_put(dir, "b.py", "print(2)\n");
	testdir_put(dir, "c.py", "print(3)\n");
	put_note(notes, "a.py", 0);
	put_note(notes, "b.py", EIO);
	put_note(notes, "gone.py", 0);
	testdir_put(notes, "empty", "");

	struct dropfs_options o = { .dir = dir, .max_file_size = 1024, .notes_dir = bad };
	assert_int_equal(dropfs_new(&o, on_name, &f, &f.src, &err), -ENOTDIR);
	assert_non_null(strstr(err, "(the notes of scripts being written)"));
	free(err);
	err = NULL;

	o.notes_dir = notes;
	if (dropfs_new(&o, on_name, &f, &f.src, &err) < 0)
		fail_msg("dropfs_new with notes: %s", err);
	want_names(&f, 3);
	for (unsigned i = 0; i < 3; i++) {
		bool held = strcmp(f.got[i].rel, "c.py") != 0;
		assert_int_equal(f.got[i].taken, held);
		if (held)
			assert_int_equal(f.got[i].status, INTAKE_INCOMPLETE);
	}
	assert_true(has_note(notes, "a.py") && has_note(notes, "b.py"));
	assert_false(has_note(notes, "gone.py"));
	_cleanup_free_ char *empty = xasprintf("%s/empty", notes);
	assert_int_equal(access(empty, F_OK), -1);

	/* Written again in full: its hold and its note end. */
	put(&f, "a.py", "print('whole')\n");
	want_names(&f, 4);
	assert_string_equal(f.got[3].rel, "a.py");
	assert_int_equal(f.got[3].status, INTAKE_OK);
	assert_false(has_note(notes, "a.py"));
	assert_true(has_note(notes, "b.py"));
	drop_source_free(f.src);
	for (unsigned i = 0; i < f.n; i++) {
		free(f.got[i].rel);
		free(f.got[i].data);
	}
}

/* --- a stale mount --- */

/* The child of test_stale_mount: mounts dir, then dies by SIGKILL. */
static int mount_and_die(const char *dir)
{
	struct dropfs_options o = { .dir = dir, .max_file_size = 1024 };
	struct drop_source *src;
	char *err = NULL;
	if (dropfs_new(&o, on_name, NULL, &src, &err) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	raise(SIGKILL);
	return 2;
}

static void test_stale_mount(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *dir = xasprintf("%s/stale", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/proc/self/exe", "test_dropfs", "--mount-and-die", dir, (char *)NULL);
		_exit(3);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	_cleanup_free_ char *detail = NULL;
	assert_int_equal(mountutil_probe(dir, &detail), MOUNTUTIL_STALE);

	struct fx f = { .mnt = dir };
	struct dropfs_options o = { .dir = dir, .max_file_size = 1024 };
	_cleanup_free_ char *err = NULL;
	if (dropfs_new(&o, on_name, &f, &f.src, &err) < 0)
		fail_msg("dropfs_new over a stale mount: %s", err);
	put(&f, "z.py", "print(6)\n");
	want_names(&f, 1);
	drop_source_free(f.src);
	free(f.got[0].rel);
	free(f.got[0].data);
	free(detail);
	detail = NULL;
	assert_int_equal(mountutil_probe(dir, &detail), MOUNTUTIL_READY);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--mount-and-die") == 0)
		return mount_and_die(argv[2]);
	int r = fx_require_fuse();
	if (r)
		return r;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_place_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_writer_completes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rename_into_place, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attributes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_and_handles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_agent_files_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exchange_and_wait_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_users, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_torn_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursive, setup_recursive, teardown),
		cmocka_unit_test_setup_teardown(test_stale_mount, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_mount_point_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_notes_of_a_killed_agent, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
