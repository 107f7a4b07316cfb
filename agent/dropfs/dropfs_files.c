/* The backing directory's files: paths beneath it, the owner of what users
 * create, and open files with completion (dropfs.h "Completion").
 *
 * Every path is walked from the descriptor of the backing directory one
 * component at a time with O_NOFOLLOW, so no symbolic link in the drop
 * directory (a user may make one pointing anywhere) is ever followed by the
 * agent, which runs as root; the last component is handed to an *at() call
 * that does not follow it either.
 *
 * A file that a handle may write to has an entry here, by inode, for as
 * long as a handle or a call uses it. The entry counts the handles open for
 * writing, remembers whether the file changed since it was last taken and
 * who wrote it last, and holds the lock that keeps writes out while a
 * snapshot is read. */
#include "dropfs_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

/* --- paths and owners --- */

int dropfs_at_open(struct dropfs *fs, const char *path, struct dropfs_at *at)
{
	const char *rel = dropfs_rel(path);
	const char *slash = strrchr(rel, '/');

	at->dirfd = fs->root_fd;
	at->owned = false;
	at->leaf = slash ? slash + 1 : rel;
	if (!slash)
		return 0;
	/* Walk the directories: FUSE gives each component separately looked
	 * up, so each is a directory unless it changed since. */
	_cleanup_free_ char *dirs = xstrndup(rel, (size_t)(slash - rel));
	int fd = fs->root_fd;
	char *save = NULL;
	for (char *c = strtok_r(dirs, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		int next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		if (fd != fs->root_fd)
			close(fd);
		if (next < 0)
			return e == ELOOP ? -ENOTDIR : -e;
		fd = next;
	}
	at->dirfd = fd;
	at->owned = true;
	return 0;
}

void dropfs_at_close(struct dropfs_at *at)
{
	if (at->owned && at->dirfd >= 0)
		close(at->dirfd);
	at->dirfd = -1;
	at->owned = false;
}

void dropfs_caller(struct drop_writer *w)
{
	const struct fuse_context *c = fuse_get_context();
	drop_writer_from_request(w, c->uid, c->gid, c->pid);
}

int dropfs_own(struct dropfs *fs, const struct dropfs_at *at, int fd, mode_t mode,
	       bool is_dir, bool is_symlink)
{
	const struct fuse_context *c = fuse_get_context();
	struct stat dir;

	/* In a setgid directory the new file has the directory's group
	 * already, as the kernel gives it: keep it. */
	if (fstat(at->dirfd, &dir) < 0)
		return -errno;
	gid_t gid = (dir.st_mode & S_ISGID) ? (gid_t)-1 : c->gid;
	int r = fd >= 0 ? fchown(fd, c->uid, gid)
			: fchownat(at->dirfd, at->leaf, c->uid, gid, AT_SYMLINK_NOFOLLOW);
	if (r < 0)
		return -errno;
	/* The kernel applied the caller's umask to mode already; the agent's
	 * own umask must not take more away. No set-user-ID or set-group-ID
	 * file: the directory underneath is a plain directory whenever the
	 * agent is stopped, and the kernel would not let the caller give a
	 * file a group it is not in (a setgid directory's group). A directory
	 * keeps set-group-ID: it only passes the group on. A symlink's mode
	 * means nothing. */
	mode_t want = mode & 07777 & ~(mode_t)(S_ISUID | (is_dir ? 0 : S_ISGID));
	if (is_symlink || (want == (mode & 07777) && !(mode & fs->umask)))
		return 0;
	r = fd >= 0 ? fchmod(fd, want)
		    : fchmodat(at->dirfd, at->leaf, want, AT_SYMLINK_NOFOLLOW);
	return r < 0 ? -errno : 0;
}

/* --- open files --- */

static void key_of(ino_t ino, char key[24])
{
	snprintf(key, 24, "%jx", (uintmax_t)ino);
}

struct dropfs_file *dropfs_file_get(struct dropfs *fs, ino_t ino)
{
	char key[24];
	key_of(ino, key);
	pthread_mutex_lock(&fs->files_lock);
	struct dropfs_file *f = strmap_get(fs->files, key);
	if (!f) {
		f = xcalloc(1, sizeof(*f));
		f->ino = ino;
		pthread_rwlock_init(&f->content, NULL);
		strmap_put(fs->files, key, f);
	}
	f->refs++;
	pthread_mutex_unlock(&fs->files_lock);
	return f;
}

void dropfs_file_put(struct dropfs *fs, struct dropfs_file *f)
{
	if (!f)
		return;
	char key[24];
	key_of(f->ino, key);
	pthread_mutex_lock(&fs->files_lock);
	bool last = --f->refs == 0;
	if (last)
		strmap_take(fs->files, key);
	pthread_mutex_unlock(&fs->files_lock);
	if (last) {
		pthread_rwlock_destroy(&f->content);
		free(f->note);
		free(f);
	}
}

static bool is_script(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	return names_classify(slash ? slash + 1 : rel, NULL) == NAMES_SCRIPT;
}

void dropfs_file_writer_open(struct dropfs *fs, struct dropfs_file *f, const char *rel)
{
	bool note = false;
	pthread_mutex_lock(&fs->files_lock);
	if (f->writers++ == 0 && fs->notes_dir && is_script(rel)) {
		free(f->note);
		f->note = xstrdup(rel);
		note = true;
	}
	pthread_mutex_unlock(&fs->files_lock);
	if (note)
		dropfs_note_writing(fs, rel);
}

bool dropfs_file_writer_release(struct dropfs *fs, struct dropfs_file *f, bool wrote,
				const struct drop_writer *who, struct drop_writer *writer,
				int *write_err)
{
	_cleanup_free_ char *note = NULL;
	pthread_mutex_lock(&fs->files_lock);
	f->writers--;
	if (wrote) {
		f->dirty = true;
		f->last_writer = *who;
	}
	bool complete = f->writers == 0 && (f->dirty || f->pending);
	if (complete) {
		f->dirty = f->pending = false;
		*writer = f->last_writer;
		*write_err = f->write_err;
		f->write_err = 0;
	}
	if (f->writers == 0)
		note = steal_pointer(&f->note);
	pthread_mutex_unlock(&fs->files_lock);
	if (note)
		dropfs_note_done(fs, note);
	return complete;
}

void dropfs_file_write_failed(struct dropfs *fs, struct dropfs_file *f, int err)
{
	pthread_mutex_lock(&fs->files_lock);
	if (!f->write_err)
		f->write_err = err;
	pthread_mutex_unlock(&fs->files_lock);
}

bool dropfs_file_changed_whole(struct dropfs *fs, struct dropfs_file *f,
			       const struct drop_writer *who)
{
	pthread_mutex_lock(&fs->files_lock);
	bool now = f->writers == 0;
	if (now) {
		f->dirty = f->pending = false;
		f->write_err = 0;
	} else {
		f->pending = true;
		f->last_writer = *who;
	}
	pthread_mutex_unlock(&fs->files_lock);
	return now;
}

bool dropfs_file_busy(struct dropfs *fs, ino_t ino)
{
	char key[24];
	key_of(ino, key);
	pthread_mutex_lock(&fs->files_lock);
	struct dropfs_file *f = strmap_get(fs->files, key);
	bool busy = f && (f->writers > 0 || f->dirty || f->pending);
	pthread_mutex_unlock(&fs->files_lock);
	return busy;
}

/* Reads rel's snapshot and queues it with writer; f (may be NULL) is the
 * inode whose writes wait meanwhile. Queued before writes may go on, so
 * that the loop gets the snapshots of one file in the order they were
 * taken (a later one must never arrive first and be superseded). */
static void take(struct dropfs *fs, const char *rel, struct dropfs_file *f,
		 const struct drop_writer *writer, int incomplete)
{
	_cleanup_free_ char *path = xasprintf("/%s", rel);
	struct dropfs_at at;
	struct intake_options io = { .max_size = atomic_load(&fs->max_size) };
	struct drop_taken t = { .status = INTAKE_VANISHED };

	if (dropfs_at_open(fs, path, &at) < 0) {
		dropfs_queue(fs, rel, NAMES_SCRIPT, &t, writer);
		return;
	}
	if (f)
		pthread_rwlock_wrlock(&f->content);
	if (fs->o.snapshot_hook)
		fs->o.snapshot_hook(fs->o.hook_arg, rel);
	t.status = intake_read(at.dirfd, at.leaf, &io, &t.snap, &t.err);
	if (t.status == INTAKE_OK && incomplete) {
		t.status = INTAKE_INCOMPLETE;
		t.err = incomplete > 0 ? incomplete : 0;
	}
	dropfs_queue(fs, rel, NAMES_SCRIPT, &t, writer);
	if (f)
		pthread_rwlock_unlock(&f->content);
	dropfs_at_close(&at);
}

void dropfs_complete(struct dropfs *fs, const char *rel, struct dropfs_file *f,
		     const struct drop_writer *writer, int incomplete)
{
	const char *slash = strrchr(rel, '/');
	enum names_reason why;
	enum names_kind kind = names_classify(slash ? slash + 1 : rel, &why);

	dropfs_wait_wake(fs);
	if (kind == NAMES_IGNORED) {
		if (log_get_level() >= LOG_LEVEL_DEBUG) {
			_cleanup_free_ char *p = names_printable(rel);
			log_debug("ignoring %s: %s", p, names_reason_to_string(why));
		}
		return;
	}
	if (kind != NAMES_SCRIPT) {
		/* An answer is read by the job that uses it; a bad name is
		 * answered without reading it. */
		dropfs_queue(fs, rel, kind, NULL, writer);
		return;
	}
	/* New content at the name (a write, a rename, a truncation): a hold
	 * from a crash's note ends. */
	if (incomplete != DROPFS_OPEN_AT_STOP && dropfs_note_held(fs, rel, NULL))
		dropfs_note_done(fs, rel);
	if (incomplete > 0)
		dropfs_note_failed(fs, rel, incomplete);
	take(fs, rel, f, writer, incomplete);
}
