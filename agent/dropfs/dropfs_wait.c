/* .wait/foo.result.json: a read that waits for the final answer, instead
 * of polling foo.result.json (dropfs.h "Waiting").
 *
 * The open blocks until foo.py's content has a final result: the script is
 * not being written (no handle writes to it, nothing waits to be taken),
 * and foo.result.json names that content and a final state
 * (result_json_answers). The handle then reads that result file as it was
 * at that moment. Whatever may make it ready (a result written, a script
 * taken, renamed or removed) wakes every waiter, which looks again.
 *
 * The agent stopping ends every wait with ECANCELED ("Operation canceled"):
 * the reader learns that no answer comes from this agent, and asks again
 * once it runs.
 *
 * Interruption: the serving threads block SIGUSR1 except while a waiter
 * sleeps in ppoll(), which unblocks it atomically; libfuse sends SIGUSR1 to
 * the handler's thread when the kernel forwards the reader's signal (the
 * "intr" mount option), so the wait ends with EINTR and no signal is lost
 * between the check and the sleep. */
#include "dropfs_int.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/eventfd.h>

#include "log.h"
#include "result.h"

#define WAIT_PREFIX "/" DROPFS_WAIT_DIR

bool dropfs_wait_path(const char *path, const char **rest)
{
	size_t n = strlen(WAIT_PREFIX);
	if (strncmp(path, WAIT_PREFIX, n) != 0)
		return false;
	if (path[n] == '\0') {
		*rest = "";
		return true;
	}
	if (path[n] != '/')
		return false;
	*rest = path + n + 1;
	return true;
}

/* "sub/foo.result.json" -> "sub/foo.py"; NULL for any other name. */
static char *script_of(const char *rest)
{
	size_t n = strlen(rest), m = strlen(RESULT_SUFFIX);
	if (n <= m || strcmp(rest + n - m, RESULT_SUFFIX) != 0 || rest[n - m - 1] == '/')
		return NULL;
	return xasprintf("%.*s.py", (int)(n - m), rest);
}

static int stat_backing(struct dropfs *fs, const char *rel, struct stat *st)
{
	_cleanup_free_ char *path = xasprintf("/%s", rel);
	struct dropfs_at at;
	int r = dropfs_at_open(fs, path, &at);
	if (r < 0)
		return r;
	r = fstatat(at.dirfd, *at.leaf ? at.leaf : ".", st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	dropfs_at_close(&at);
	return r;
}

int dropfs_wait_getattr(struct dropfs *fs, const char *rest, struct stat *st)
{
	struct stat b;
	if (fstat(fs->root_fd, &b) < 0)
		return -errno;
	memset(st, 0, sizeof(*st));
	st->st_uid = 0;
	st->st_gid = 0;
	st->st_atim = st->st_mtim = st->st_ctim = b.st_mtim;
	st->st_blksize = 4096;
	_cleanup_free_ char *script = script_of(rest);
	if (!*rest || (!script && stat_backing(fs, rest, &b) == 0 && S_ISDIR(b.st_mode))) {
		st->st_ino = *rest ? DROPFS_WAIT_FILE_INO(b.st_ino) : DROPFS_WAIT_INO;
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return 0;
	}
	if (!script || stat_backing(fs, script, &b) < 0 || S_ISDIR(b.st_mode))
		return -ENOENT;
	/* The size is not known until the wait ends: read it direct_io. Who
	 * may read the script may wait for its answer, no one else (the
	 * kernel checks, default_permissions): its sidecars take its owner,
	 * group and read bits too (place.h). */
	st->st_ino = DROPFS_WAIT_FILE_INO(b.st_ino);
	st->st_uid = b.st_uid;
	st->st_gid = b.st_gid;
	st->st_mode = S_IFREG | (b.st_mode & 0444);
	st->st_nlink = 1;
	return 0;
}

/* 0 with *fd when script's content has its final result, -EAGAIN while it
 * has not, -ENOENT when there is no script. */
static int ready(struct dropfs *fs, const char *script, const char *result, int *fd)
{
	struct stat st;
	if (stat_backing(fs, script, &st) < 0 || S_ISDIR(st.st_mode))
		return -ENOENT;
	if (S_ISREG(st.st_mode) && dropfs_file_busy(fs, st.st_ino))
		return -EAGAIN;

	_cleanup_free_ char *spath = xasprintf("/%s", script);
	_cleanup_free_ char *rpath = xasprintf("/%s", result);
	struct intake_options io = { .max_size = atomic_load(&fs->max_size) };
	struct intake_snapshot snap;
	struct dropfs_at at;
	int err;
	if (dropfs_at_open(fs, spath, &at) < 0)
		return -ENOENT;
	enum intake_status s = intake_read(at.dirfd, at.leaf, &io, &snap, &err);
	dropfs_at_close(&at);
	if (s == INTAKE_VANISHED)
		return -ENOENT;

	int r = -EAGAIN;
	if (dropfs_at_open(fs, rpath, &at) == 0) {
		_cleanup_close_ int rfd = openat(at.dirfd, at.leaf, O_RDONLY | O_NOFOLLOW |
						 O_NONBLOCK | O_CLOEXEC);
		dropfs_at_close(&at);
		json_t *res = rfd >= 0 ? json_loadfd(rfd, 0, NULL) : NULL;
		/* A name that is not UTF-8 is answered without its content
		 * being read (bad_name): that answer has no SHA-256. */
		bool answered = res && (s == INTAKE_OK ?
			result_json_answers(res, snap.sha256, NULL) ||
			(!names_is_utf8(script) && result_json_answers(res, NULL, "bad_name")) :
			result_json_answers(res, NULL, intake_status_to_string(s)));
		json_decref(res);
		if (answered && lseek(rfd, 0, SEEK_SET) == 0) {
			*fd = steal_fd(&rfd);
			r = 0;
		}
	}
	intake_snapshot_clear(&snap);
	return r;
}

static int sleep_until_woken(int efd)
{
	sigset_t mask;
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGUSR1);
	struct pollfd p = { .fd = efd, .events = POLLIN };
	if (ppoll(&p, 1, NULL, &mask) < 0)
		return -errno;
	uint64_t v;
	if (read(efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

int dropfs_wait_open(struct dropfs *fs, const char *rest, int *fd)
{
	_cleanup_free_ char *script = script_of(rest);
	if (!script)
		return -ENOENT;
	struct dropfs_waiter w = { .efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC),
				   .uid = fuse_get_context()->uid };
	if (w.efd < 0)
		return -errno;

	/* Registered before the first look, so that no change is missed. */
	pthread_mutex_lock(&fs->wait_lock);
	unsigned mine = 0;
	for (const struct dropfs_waiter *o = fs->waiters; o; o = o->next)
		mine += o->uid == w.uid;
	bool room = mine < DROPFS_MAX_WAITERS_PER_USER;
	unsigned all = fs->n_waiters + room;
	if (room) {
		w.next = fs->waiters;
		fs->waiters = &w;
		fs->n_waiters++;
	}
	pthread_mutex_unlock(&fs->wait_lock);
	if (!room) {
		close(w.efd);
		log_warnx("%s/%s: uid %lu has %u readers waiting (at most %d each); this one gets "
			  "EAGAIN (read %s instead, or later)", DROPFS_WAIT_DIR, rest,
			  (unsigned long)w.uid, mine, DROPFS_MAX_WAITERS_PER_USER, rest);
		return -EAGAIN;
	}

	/* This thread may block: the mount keeps DROPFS_THREADS others. */
	int r = dropfs_serve_more(fs, all);
	if (r < 0 && r != -ECANCELED) {
		log_warnx("%s/%s: cannot start a thread to serve others while uid %lu waits (%s); "
			  "this reader gets EAGAIN", DROPFS_WAIT_DIR, rest, (unsigned long)w.uid,
			  strerror(-r));
		r = -EAGAIN;
		goto out;
	}
	for (;;) {
		r = ready(fs, script, rest, fd);
		if (r != -EAGAIN)
			break;
		/* Answered before the mount goes, so that the reader sees
		 * "Operation canceled", never the "Transport endpoint is not
		 * connected" of a mount that went under it. */
		if (atomic_load(&fs->stopping)) {
			r = -ECANCELED;
			break;
		}
		if (fuse_interrupted()) {
			r = -EINTR;
			break;
		}
		int s = sleep_until_woken(w.efd);
		if (s < 0 && s != -EINTR) {
			r = s;
			break;
		}
	}
out:
	pthread_mutex_lock(&fs->wait_lock);
	for (struct dropfs_waiter **p = &fs->waiters; *p; p = &(*p)->next) {
		if (*p == &w) {
			*p = w.next;
			break;
		}
	}
	fs->n_waiters--;
	pthread_mutex_unlock(&fs->wait_lock);
	close(w.efd);
	return r;
}

void dropfs_wait_wake(struct dropfs *fs)
{
	uint64_t one = 1;
	pthread_mutex_lock(&fs->wait_lock);
	for (struct dropfs_waiter *w = fs->waiters; w; w = w->next)
		if (write(w->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			log_warn("cannot wake a reader of %s", DROPFS_WAIT_DIR);
	pthread_mutex_unlock(&fs->wait_lock);
}
