/* The drop directory's mount (agent/dropfs) on a real FUSE mount in a
 * temporary directory, with real files and real users: what completes a
 * file and what its snapshot holds, who wrote it, what is refused at the
 * call, the no-torn-snapshot rule, .wait, and a stale mount left by a
 * process killed with SIGKILL. The names reach this test the way they reach
 * the daemon: through drop_source_process() on the test's thread.
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

#define NOBODY 65534
#define MAX_GOT 64

struct got {
	char *rel;
	enum names_kind kind;
	bool taken;
	enum intake_status status;
	char *data;
	struct drop_writer writer;
};

struct fx {
	char *root, *mnt;
	struct drop_source *src;
	struct got got[MAX_GOT];
	unsigned n;
	pthread_mutex_t lock; /* refusals and the hook come from the mount's threads */
	struct dropfs_refusal refused[16];
	char refused_rel[16][64], refused_script[16][64], refused_sha[16][65];
	struct drop_writer refused_caller[16];
	unsigned n_refused;
	/* the snapshot hook (test_no_torn_snapshot) */
	const char *hold;       /* rel whose snapshot waits */
	pthread_cond_t cond;
	bool in_snapshot, release;
};

static void on_name(void *arg, struct drop_name *n)
{
	struct fx *f = arg;
	assert_true(f->n < MAX_GOT);
	struct got *g = &f->got[f->n++];
	g->rel = xstrdup(n->rel);
	g->kind = n->kind;
	g->writer = n->writer;
	g->taken = n->taken != NULL;
	if (n->taken) {
		g->status = n->taken->status;
		if (g->status == INTAKE_OK)
			g->data = xstrndup((const char *)n->taken->snap.data, n->taken->snap.len);
	}
}

static void on_refused(void *arg, const struct dropfs_refusal *r)
{
	struct fx *f = arg;
	pthread_mutex_lock(&f->lock);
	if (f->n_refused < ARRAY_SIZE(f->refused)) {
		unsigned i = f->n_refused++;
		f->refused[i] = *r;
		snprintf(f->refused_rel[i], 64, "%s", r->rel);
		snprintf(f->refused_script[i], 64, "%s", r->script ? r->script : "");
		snprintf(f->refused_sha[i], 65, "%s", r->script_sha256 ? r->script_sha256 : "");
		f->refused_caller[i] = *r->caller;
	}
	pthread_mutex_unlock(&f->lock);
}

static void hook(void *arg, const char *rel)
{
	struct fx *f = arg;
	pthread_mutex_lock(&f->lock);
	if (f->hold && strcmp(rel, f->hold) == 0) {
		f->hold = NULL;
		f->in_snapshot = true;
		pthread_cond_broadcast(&f->cond);
		/* At most 10 s: a failing test must not hang its teardown. */
		struct timespec end;
		clock_gettime(CLOCK_REALTIME, &end);
		end.tv_sec += 10;
		while (!f->release && pthread_cond_timedwait(&f->cond, &f->lock, &end) == 0)
			;
	}
	pthread_mutex_unlock(&f->lock);
}

/* Reports what the mount queued, for up to ms (0: what is there now). */
static void pump(struct fx *f, int ms)
{
	struct pollfd p = { .fd = drop_source_fd(f->src), .events = POLLIN };
	uint64_t end = (uint64_t)monoclock_ms() + (uint64_t)ms;
	do {
		int left = (int)(end - (uint64_t)monoclock_ms());
		if (poll(&p, 1, left > 0 ? left : 0) > 0)
			assert_int_equal(drop_source_process(f->src), 0);
	} while ((uint64_t)monoclock_ms() < end);
	assert_int_equal(drop_source_process(f->src), 0);
}

/* Waits until n names have come (at most 5 s). */
static void want_names(struct fx *f, unsigned n)
{
	for (int i = 0; i < 100 && f->n < n; i++)
		pump(f, 50);
	assert_int_equal(f->n, n);
	pump(f, 50); /* and no more */
	assert_int_equal(f->n, n);
}

static char *at(struct fx *f, const char *name)
{
	return xasprintf("%s/%s", f->mnt, name);
}

static void put(struct fx *f, const char *name, const char *text)
{
	_cleanup_free_ char *p = at(f, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(close(fd), 0);
}

static char *slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fileio_read_fd(fd, 1 << 20, &text, &len), 0);
	return text;
}

static int mount_fx(void **state, bool recursive)
{
	if (testdir_setup(state) < 0)
		return -1;
	struct fx *f = xcalloc(1, sizeof(*f));
	f->root = *state;
	f->mnt = xasprintf("%s/drop", f->root);
	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	assert_int_equal(mkdir(f->mnt, 0755), 0);
	/* Others must reach it: the fixture's directory is private. */
	assert_int_equal(chmod(f->root, 0755), 0);
	struct dropfs_options o = { .dir = f->mnt, .recursive = recursive, .max_file_size = 1 << 20,
				    .dir_mode = "1777", .refused = on_refused, .arg = f,
				    .snapshot_hook = hook, .hook_arg = f };
	_cleanup_free_ char *err = NULL;
	if (dropfs_new(&o, on_name, f, &f->src, &err) < 0)
		fail_msg("dropfs_new: %s", err);
	*state = f;
	return 0;
}

static int setup(void **state) { return mount_fx(state, false); }
static int setup_recursive(void **state) { return mount_fx(state, true); }

static int teardown(void **state)
{
	struct fx *f = *state;
	drop_source_free(f->src);
	for (unsigned i = 0; i < f->n; i++) {
		free(f->got[i].rel);
		free(f->got[i].data);
	}
	void *root = f->root;
	free(f->mnt);
	pthread_cond_destroy(&f->cond);
	pthread_mutex_destroy(&f->lock);
	free(f);
	return testdir_teardown(&root);
}

/* Runs fn(arg) in a child as uid:gid, returns its exit status. */
static int as_user(uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
		    setresuid(uid, uid, uid) < 0)
			_exit(99);
		_exit(fn(arg));
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static const char *comm(void)
{
	static char name[16];
	prctl(PR_GET_NAME, name);
	return name;
}

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
	assert_int_equal(errno_of(open(p, O_WRONLY)), EACCES);
	assert_int_equal(errno_of(truncate(p, 0)), EACCES);
	assert_int_equal(errno_of(unlink(p)), EACCES);
	assert_int_equal(errno_of(rename(p, q)), EACCES);
	assert_int_equal(errno_of(chmod(p, 0600)), EACCES);
	put(f, "e.py", "print(2)\n");
	_cleanup_free_ char *e = at(f, "e.py");
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

/* --- .wait --- */

static int wait_child(void *arg)
{
	int fd = open(arg, O_RDONLY);
	if (fd < 0)
		return errno == EINTR ? 4 : errno == ENOENT ? 2 : 1;
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 3;
	buf[n] = '\0';
	return strstr(buf, "\"completed\"") ? 0 : 5;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static int wait_interrupted(void *arg)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	sigaction(SIGALRM, &sa, NULL);
	alarm(1);
	return wait_child(arg);
}

static void write_result(struct fx *f, const char *sha)
{
	_cleanup_free_ char *side = xasprintf("%s/w.result.json", drop_source_dir(f->src));
	_cleanup_free_ char *text = xasprintf("{\"schema_version\": 1, \"file\": \"w.py\", "
					      "\"sha256\": \"%s\", \"state\": \"completed\"}\n", sha);
	assert_int_equal(fileio_write_atomic(side, text, strlen(text), 0644), 0);
	drop_source_changed(f->src, "w.result.json");
}

static void test_wait(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *none = at(f, ".wait/none.result.json"), *w = at(f, ".wait/w.result.json");
	put(f, "w.py", "print(4)\n");
	want_names(f, 1);
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex("print(4)\n", 9, sha);

	/* No such script: at once. */
	assert_int_equal(as_user(NOBODY, NOBODY, wait_child, none), 2);
	/* Nothing final for it yet: a signal ends the wait. */
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, w), 4);
	/* A result for other content does not count either. */
	write_result(f, "00000000000000000000000000000000000000000000000000000000000000aa");
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, w), 4);

	/* The reader blocks until the result for this content is written. */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(wait_child(w));
	pump(f, 300);
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	write_result(f, sha);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);

	/* .wait is listed, and lists nothing, so walking the tree never waits. */
	_cleanup_free_ char *dot = at(f, ".wait");
	struct stat s;
	assert_int_equal(stat(dot, &s), 0);
	assert_true(S_ISDIR(s.st_mode));
	DIR *d = opendir(dot);
	assert_non_null(d);
	struct dirent *de;
	unsigned n = 0;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	assert_int_equal(n, 0);
	d = opendir(f->mnt);
	bool listed = false;
	while ((de = readdir(d)))
		listed |= strcmp(de->d_name, ".wait") == 0;
	closedir(d);
	assert_true(listed);
}

/* A reader of .wait: 6 for EAGAIN at once, else as wait_child. */
static int wait_or_eagain(void *arg)
{
	int fd = open(arg, O_RDONLY);
	if (fd < 0 && errno == EAGAIN)
		return 6;
	if (fd >= 0)
		close(fd);
	return fd >= 0 ? 0 : 1;
}

/* At most DROPFS_MAX_WAITERS (12) readers wait on .wait at once: of 13,
 * whatever their order, one gets EAGAIN at once and twelve wait; the
 * waiters of a mount that stops get an error, not a hang. */
static void test_wait_limit_and_stop(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *w = at(f, ".wait/w.result.json");
	put(f, "w.py", "print(4)\n");
	want_names(f, 1);
	pid_t kids[13];
	for (int i = 0; i < 13; i++) {
		kids[i] = fork();
		assert_true(kids[i] >= 0);
		if (kids[i] == 0)
			_exit(wait_or_eagain(w));
	}
	int st = 0, gone = -1;
	for (int t = 0; t < 400 && gone < 0; t++) {
		for (int i = 0; i < 13 && gone < 0; i++)
			if (waitpid(kids[i], &st, WNOHANG) == kids[i])
				gone = i;
		if (gone < 0)
			pump(f, 50);
	}
	assert_true(gone >= 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 6);
	pump(f, 300);
	for (int i = 0; i < 13; i++)
		if (i != gone)
			assert_int_equal(waitpid(kids[i], &st, WNOHANG), 0); /* still waiting */
	drop_source_free(f->src);
	f->src = NULL;
	for (int i = 0; i < 13; i++) {
		if (i == gone)
			continue;
		assert_int_equal(waitpid(kids[i], &st, 0), kids[i]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	}
}

/* Its rejection is the final answer for a script that cannot be read (a
 * symbolic link); a script still open for writing has none yet. */
static void test_wait_for_rejected_and_busy(void **state)
{
	struct fx *f = *state;
	_cleanup_free_ char *s = at(f, "s.py"), *ws = at(f, ".wait/s.result.json");
	_cleanup_free_ char *b = at(f, "b.py"), *wb = at(f, ".wait/b.result.json");
	assert_int_equal(symlink("/etc/passwd", s), 0);
	want_names(f, 1);
	_cleanup_free_ char *side = xasprintf("%s/s.result.json", drop_source_dir(f->src));
	const char *text = "{\"schema_version\": 1, \"file\": \"s.py\", \"state\": \"rejected\", "
			   "\"reason\": \"symlink\"}\n";
	assert_int_equal(fileio_write_atomic(side, text, strlen(text), 0644), 0);
	drop_source_changed(f->src, "s.result.json");
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, ws), 5); /* at once: rejected */

	int fd = open(b, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "print(1)\n", 9), 9);
	assert_int_equal(as_user(NOBODY, NOBODY, wait_interrupted, wb), 4);
	close(fd);
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
	bool strict = getenv("MAI_REQUIRE_REAL") && strcmp(getenv("MAI_REQUIRE_REAL"), "1") == 0;
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) < 0) {
		fprintf(stderr, "%s: needs root and /dev/fuse\n", strict ? "FAIL" : "SKIP");
		return strict ? 1 : 77;
	}
	log_set_level(LOG_LEVEL_ERROR);
	umask(022);
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
		cmocka_unit_test_setup_teardown(test_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_limit_and_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_for_rejected_and_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursive, setup_recursive, teardown),
		cmocka_unit_test_setup_teardown(test_stale_mount, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
