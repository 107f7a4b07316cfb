/* The dropfs tests' fixture: see dropfs_fixture.h. */
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
#include "dropfs_fixture.h"

void on_name(void *arg, struct drop_name *n)
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
void pump(struct fx *f, int ms)
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
void want_names(struct fx *f, unsigned n)
{
	for (int i = 0; i < 100 && f->n < n; i++)
		pump(f, 50);
	assert_int_equal(f->n, n);
	pump(f, 50); /* and no more */
	assert_int_equal(f->n, n);
}

char *at(struct fx *f, const char *name)
{
	return xasprintf("%s/%s", f->mnt, name);
}

void put(struct fx *f, const char *name, const char *text)
{
	_cleanup_free_ char *p = at(f, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, text, strlen(text)), 0);
	assert_int_equal(close(fd), 0);
}

char *slurp(const char *path)
{
	char *text = NULL;
	size_t len;
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fileio_read_fd(fd, 1 << 20, &text, &len), 0);
	return text;
}

int mount_fx(void **state, bool recursive)
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
	f->backing = open(f->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(f->backing >= 0);
	struct dropfs_options o = { .dir = f->mnt, .recursive = recursive, .max_file_size = 1 << 20,
				    .dir_mode = "1777", .refused = on_refused, .arg = f,
				    .snapshot_hook = hook, .hook_arg = f };
	_cleanup_free_ char *err = NULL;
	if (dropfs_new(&o, on_name, f, &f->src, &err) < 0)
		fail_msg("dropfs_new: %s", err);
	*state = f;
	return 0;
}

int setup(void **state) { return mount_fx(state, false); }
int setup_recursive(void **state) { return mount_fx(state, true); }

int teardown(void **state)
{
	struct fx *f = *state;
	drop_source_free(f->src);
	close(f->backing);
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
int as_user(uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
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

const char *comm(void)
{
	static char name[16];
	prctl(PR_GET_NAME, name);
	return name;
}

int fx_require_fuse(void)
{
	bool strict = getenv("MAI_REQUIRE_REAL") && strcmp(getenv("MAI_REQUIRE_REAL"), "1") == 0;
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK) < 0) {
		fprintf(stderr, "%s: needs root and /dev/fuse\n", strict ? "FAIL" : "SKIP");
		return strict ? 1 : 77;
	}
	log_set_level(LOG_LEVEL_ERROR);
	umask(022);
	return 0;
}
