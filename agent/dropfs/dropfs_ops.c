/* The FUSE operations of the drop directory's mount: each is the same call
 * on the backing directory, relative to its descriptor, after the checks of
 * dropfs_rules.c, with what completion needs (both in dropfs_files.c).
 * Handlers return 0 or -errno. */
#include "dropfs_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "dirwrite.h"
#include "log.h"

enum handle_kind {
	HANDLE_FILE,  /* a backing file */
	HANDLE_WAIT,  /* .wait/...: the result, read direct_io */
	HANDLE_DIR,   /* a backing directory */
	HANDLE_EMPTY, /* .wait and its subdirectories: nothing listed */
};

struct dropfs_handle {
	enum handle_kind kind;
	int fd;
	DIR *dir;
	bool root;                /* the root directory: lists .wait */
	struct dropfs_file *file; /* a file open for writing */
	atomic_bool wrote;
	struct drop_writer opener;
	struct dropfs_handle *prev, *next; /* in fs->handles, under files_lock */
};

static struct dropfs_handle *handle_of(const struct fuse_file_info *fi)
{
	return fi ? (struct dropfs_handle *)(uintptr_t)fi->fh : NULL;
}

/* A handle of the calling request's mount, listed there until it is
 * released (or the mount stops: dropfs_handles_free). */
static struct dropfs_handle *handle_new(enum handle_kind kind, int fd)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = xcalloc(1, sizeof(*h));
	h->kind = kind;
	h->fd = fd;
	pthread_mutex_lock(&fs->files_lock);
	h->next = fs->handles;
	if (h->next)
		h->next->prev = h;
	fs->handles = h;
	pthread_mutex_unlock(&fs->files_lock);
	return h;
}

static void handle_unlist(struct dropfs *fs, struct dropfs_handle *h)
{
	pthread_mutex_lock(&fs->files_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		fs->handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&fs->files_lock);
}

/* Closes what h holds and frees it. */
static void handle_free(struct dropfs *fs, struct dropfs_handle *h)
{
	if (h->dir)
		closedir(h->dir);
	else if (h->fd >= 0)
		close(h->fd);
	dropfs_file_put(fs, h->file);
	free(h);
}

void dropfs_handles_free(struct dropfs *fs)
{
	/* The serving threads are gone: nothing else touches the list. A
	 * script still open for writing keeps its note (dropfs_notes.c): it
	 * is held as incomplete at the next start. */
	while (fs->handles) {
		struct dropfs_handle *h = fs->handles;
		fs->handles = h->next;
		handle_free(fs, h);
	}
}

static bool is_root(const char *path)
{
	return strcmp(path, "/") == 0;
}

static enum names_kind kind_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return names_classify(slash ? slash + 1 : path, NULL);
}

/* Runs call(at) on path's place beneath the backing directory. */
#define AT_CALL(fs, path, expr)                                   \
	({                                                        \
		struct dropfs_at at;                              \
		int _r = dropfs_at_open((fs), (path), &at);       \
		if (_r == 0) {                                    \
			_r = (expr) < 0 ? -errno : 0;             \
			dropfs_at_close(&at);                     \
		}                                                 \
		_r;                                               \
	})

/* --- attributes --- */

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = handle_of(fi);
	const char *rest;

	if (h && h->kind == HANDLE_FILE)
		return fstat(h->fd, st) < 0 ? -errno : 0;
	if (dropfs_wait_path(path, &rest))
		return dropfs_wait_getattr(fs, rest, st);
	if (is_root(path)) {
		if (fstat(fs->root_fd, st) < 0)
			return -errno;
		dropfs_root_attr(fs, st);
		return 0;
	}
	return AT_CALL(fs, path, fstatat(at.dirfd, at.leaf, st, AT_SYMLINK_NOFOLLOW));
}

static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = handle_of(fi);
	if (is_root(path))
		return dropfs_root_chmod(fs, mode);
	int r = dropfs_check(fs, path, DROPFS_CHECK_ATTR, "chmod");
	if (r < 0)
		return r;
	if (h && h->kind == HANDLE_FILE)
		return fchmod(h->fd, mode & 07777) < 0 ? -errno : 0;
	return AT_CALL(fs, path, fchmodat(at.dirfd, at.leaf, mode & 07777, AT_SYMLINK_NOFOLLOW));
}

static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = handle_of(fi);
	if (is_root(path))
		return dropfs_root_chown(fs, uid, gid);
	int r = dropfs_check(fs, path, DROPFS_CHECK_ATTR, "chown");
	if (r < 0)
		return r;
	if (h && h->kind == HANDLE_FILE)
		return fchown(h->fd, uid, gid) < 0 ? -errno : 0;
	return AT_CALL(fs, path, fchownat(at.dirfd, at.leaf, uid, gid, AT_SYMLINK_NOFOLLOW));
}

static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = handle_of(fi);
	if (is_root(path))
		return futimens(fs->root_fd, tv) < 0 ? -errno : 0;
	int r = dropfs_check(fs, path, DROPFS_CHECK_ATTR, "utimens");
	if (r < 0)
		return r;
	if (h && h->kind == HANDLE_FILE)
		return futimens(h->fd, tv) < 0 ? -errno : 0;
	return AT_CALL(fs, path, utimensat(at.dirfd, at.leaf, tv, AT_SYMLINK_NOFOLLOW));
}

/* A truncation changes the file as a write does: it waits for a snapshot
 * being read, and completes the file (at once when no handle writes). */
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	struct dropfs_handle *h = handle_of(fi);
	int r;

	if (h && h->file) {
		pthread_rwlock_rdlock(&h->file->content);
		r = ftruncate(h->fd, size) < 0 ? -errno : 0;
		pthread_rwlock_unlock(&h->file->content);
		if (r == 0)
			atomic_store(&h->wrote, true);
		return r;
	}
	if ((r = dropfs_check(fs, path, DROPFS_CHECK_WRITE, "truncate")) < 0)
		return r;
	_cleanup_close_ int fd = -1;
	r = AT_CALL(fs, path, fd = openat(at.dirfd, at.leaf, O_WRONLY | O_NOFOLLOW | O_NONBLOCK |
					 O_NOCTTY | O_CLOEXEC));
	if (r < 0)
		return r;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	struct dropfs_file *f = dropfs_file_get(fs, st.st_ino);
	pthread_rwlock_rdlock(&f->content);
	r = ftruncate(fd, size) < 0 ? -errno : 0;
	pthread_rwlock_unlock(&f->content);
	if (r == 0) {
		struct drop_writer who;
		dropfs_caller(&who);
		if (dropfs_file_changed_whole(fs, f, &who))
			dropfs_complete(fs, dropfs_rel(path), f, &who, 0);
	}
	dropfs_file_put(fs, f);
	return r;
}

/* The agent's mark on a sidecar it gave to the script's writer
 * (DIRWRITE_MARK_XATTR, dirwrite.h): the commands that trust a result only
 * when it is the agent's (mai-agent pending, approve, override) read it
 * through the mount, where the file shows its writer as owner. The one
 * extended attribute the mount shows; none can be set through it. */
static int op_getxattr(const char *path, const char *name, char *value, size_t size)
{
	struct dropfs *fs = dropfs_get();
	const char *leaf = strrchr(path, '/');
	const char *rest;
	struct dropfs_at at;

	if (strcmp(name, DIRWRITE_MARK_XATTR) != 0 || is_root(path) ||
	    dropfs_wait_path(path, &rest) || !dropfs_is_sidecar(leaf ? leaf + 1 : path))
		return -ENODATA;
	int r = dropfs_at_open(fs, path, &at);
	if (r < 0)
		return r;
	int fd = openat(at.dirfd, at.leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	dropfs_at_close(&at);
	if (r < 0)
		return r;
	ssize_t n = fgetxattr(fd, name, value, size);
	r = n < 0 ? -errno : (int)n;
	close(fd);
	return r;
}

/* --- names --- */

static int op_readlink(const char *path, char *buf, size_t size)
{
	struct dropfs *fs = dropfs_get();
	ssize_t n = 0;
	if (size == 0)
		return -EINVAL;
	int r = AT_CALL(fs, path, n = readlinkat(at.dirfd, at.leaf, buf, size - 1));
	if (r < 0)
		return r;
	buf[n] = '\0';
	return 0;
}

static int op_mknod(const char *path, mode_t mode, dev_t rdev)
{
	return dropfs_refuse(dropfs_get(), path, DROPFS_SPECIAL_FILE, "mknod");
}

static int op_link(const char *from, const char *to)
{
	return dropfs_refuse(dropfs_get(), to, DROPFS_HARD_LINK, "link");
}

static int op_mkdir(const char *path, mode_t mode)
{
	struct dropfs *fs = dropfs_get();
	const char *rest;
	if (dropfs_wait_path(path, &rest))
		return -EPERM;
	if (!fs->o.recursive)
		return dropfs_refuse(fs, path, DROPFS_NO_SUBDIRS, "mkdir");
	int r = dropfs_check(fs, path, DROPFS_CHECK_WRITE, "mkdir");
	if (r < 0)
		return r;
	struct dropfs_at at;
	if ((r = dropfs_at_open(fs, path, &at)) < 0)
		return r;
	r = mkdirat(at.dirfd, at.leaf, mode & 07777) < 0 ? -errno : 0;
	if (r == 0 && (r = dropfs_own(fs, &at, -1, mode, true, false)) < 0)
		unlinkat(at.dirfd, at.leaf, AT_REMOVEDIR);
	dropfs_at_close(&at);
	return r;
}

static int op_unlink(const char *path)
{
	struct dropfs *fs = dropfs_get();
	int r = dropfs_check(fs, path, DROPFS_CHECK_REMOVE, "unlink");
	if (r < 0)
		return r;
	r = AT_CALL(fs, path, unlinkat(at.dirfd, at.leaf, 0));
	if (r == 0)
		dropfs_wait_wake(fs); /* a reader of .wait for it gets ENOENT */
	return r;
}

static int op_rmdir(const char *path)
{
	struct dropfs *fs = dropfs_get();
	int r = dropfs_check(fs, path, DROPFS_CHECK_REMOVE, "rmdir");
	if (r < 0)
		return r;
	return AT_CALL(fs, path, unlinkat(at.dirfd, at.leaf, AT_REMOVEDIR));
}

static int op_symlink(const char *target, const char *path)
{
	struct dropfs *fs = dropfs_get();
	int r = dropfs_check(fs, path, DROPFS_CHECK_WRITE, "symlink");
	if (r < 0)
		return r;
	struct dropfs_at at;
	if ((r = dropfs_at_open(fs, path, &at)) < 0)
		return r;
	r = symlinkat(target, at.dirfd, at.leaf) < 0 ? -errno : 0;
	if (r == 0 && (r = dropfs_own(fs, &at, -1, 0777, false, true)) < 0)
		unlinkat(at.dirfd, at.leaf, 0);
	dropfs_at_close(&at);
	if (r == 0 && kind_of(path) != NAMES_IGNORED) {
		/* A symlink named like a script is answered (rejected) as in
		 * watch mode; an Emacs lock file is ignored. */
		struct drop_writer who;
		dropfs_caller(&who);
		dropfs_complete(fs, dropfs_rel(path), NULL, &who, 0);
	}
	return r;
}

/* The name to has new content (a rename from from into place, or an
 * exchange): take it now, or at the last release when a handle still
 * writes to it. */
static void renamed_into(struct dropfs *fs, const char *from, const char *to,
			 const struct stat *st)
{
	if (S_ISDIR(st->st_mode)) {
		if (fs->o.recursive)
			dropfs_scan(fs, dropfs_rel(to));
		return;
	}
	if (kind_of(to) == NAMES_IGNORED) {
		dropfs_wait_wake(fs);
		return;
	}
	struct drop_writer who;
	dropfs_caller(&who);
	if (who.uid != st->st_uid) {
		/* Someone else's bytes renamed into place: they stay the bytes'
		 * author's (its owner's), for the result, 'pending' and the
		 * two-person rule alike; the rename is the caller's, recorded. */
		struct dropfs_rename rn = { .from = dropfs_rel(from), .to = dropfs_rel(to),
					    .by = &who, .author_uid = st->st_uid,
					    .author_gid = st->st_gid };
		if (kind_of(to) == NAMES_SCRIPT && fs->o.renamed) {
			fs->o.renamed(fs->o.arg, &rn);
		} else {
			_cleanup_free_ char *p = names_printable(rn.to);
			log_info("%s: renamed into place by uid %u (pid %d, %s); its writer is the "
				 "owner of its bytes, uid %u", p, (unsigned)who.uid, (int)who.pid,
				 who.process[0] ? who.process : "?", (unsigned)st->st_uid);
		}
		drop_writer_from_owner(&who, st->st_uid, st->st_gid);
	}
	struct dropfs_file *f = S_ISREG(st->st_mode) ? dropfs_file_get(fs, st->st_ino) : NULL;
	if (!f || dropfs_file_changed_whole(fs, f, &who))
		dropfs_complete(fs, dropfs_rel(to), f, &who, 0);
	dropfs_file_put(fs, f);
}

static int op_rename(const char *from, const char *to, unsigned int flags)
{
	struct dropfs *fs = dropfs_get();
	bool exchange = flags & RENAME_EXCHANGE;
	int r;

	if (flags & ~(RENAME_EXCHANGE | RENAME_NOREPLACE))
		return -EINVAL;
	if ((r = dropfs_check(fs, from, DROPFS_CHECK_REMOVE, "rename")) < 0 ||
	    (r = dropfs_check(fs, to, DROPFS_CHECK_WRITE, "rename")) < 0 ||
	    (exchange && (r = dropfs_check(fs, from, DROPFS_CHECK_WRITE, "rename")) < 0) ||
	    (exchange && (r = dropfs_check(fs, to, DROPFS_CHECK_REMOVE, "rename")) < 0))
		return r;
	struct dropfs_at a, b;
	struct stat sa, sb;
	if ((r = dropfs_at_open(fs, from, &a)) < 0)
		return r;
	if ((r = dropfs_at_open(fs, to, &b)) < 0) {
		dropfs_at_close(&a);
		return r;
	}
	if (fstatat(a.dirfd, a.leaf, &sa, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (exchange && fstatat(b.dirfd, b.leaf, &sb, AT_SYMLINK_NOFOLLOW) < 0) ||
	    renameat2(a.dirfd, a.leaf, b.dirfd, b.leaf, flags) < 0)
		r = -errno;
	dropfs_at_close(&a);
	dropfs_at_close(&b);
	if (r < 0)
		return r;
	renamed_into(fs, from, to, &sa);
	if (exchange)
		renamed_into(fs, to, from, &sb);
	else
		dropfs_wait_wake(fs); /* from may be a script someone waits for */
	return 0;
}

/* --- files --- */

/* Opens path's backing file (a regular file: anything else was swapped in
 * since the kernel looked) with the access and flags asked for; O_TRUNC is
 * done here, as a write. */
static int open_backing(struct dropfs *fs, const char *path, int flags, struct dropfs_handle **out)
{
	bool writable = (flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC);
	/* O_RDONLY|O_TRUNC truncates too: the truncation below needs write
	 * access to the backing file (the kernel checked the caller's). */
	int acc = (flags & O_TRUNC) && (flags & O_ACCMODE) == O_RDONLY ? O_RDWR
								       : flags & O_ACCMODE;
	int keep = O_APPEND | O_SYNC | O_DSYNC;
	_cleanup_close_ int fd = -1;
	int r = AT_CALL(fs, path, fd = openat(at.dirfd, at.leaf, acc | (flags & keep) | O_NOFOLLOW |
					      O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
	if (r < 0)
		return r == -ELOOP ? -EACCES : r;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	struct dropfs_handle *h = handle_new(HANDLE_FILE, steal_fd(&fd));
	if (writable) {
		h->file = dropfs_file_get(fs, st.st_ino);
		dropfs_file_writer_open(fs, h->file, dropfs_rel(path));
		dropfs_caller(&h->opener);
	}
	if (flags & O_TRUNC) {
		pthread_rwlock_rdlock(&h->file->content);
		if (ftruncate(h->fd, 0) < 0)
			r = -errno;
		pthread_rwlock_unlock(&h->file->content);
		atomic_store(&h->wrote, true);
	}
	*out = h;
	return r;
}

static void handle_close(struct dropfs *fs, struct dropfs_handle *h, const char *path)
{
	if (!h)
		return;
	handle_unlist(fs, h);
	if (h->dir)
		closedir(h->dir);
	else if (h->fd >= 0)
		close(h->fd);
	h->dir = NULL;
	h->fd = -1;
	if (h->file) {
		struct drop_writer w;
		int write_err = 0;
		bool complete = dropfs_file_writer_release(fs, h->file, atomic_load(&h->wrote),
							   &h->opener, &w, &write_err);
		/* path is NULL when the file was removed while open. */
		if (complete && path)
			dropfs_complete(fs, dropfs_rel(path), h->file, &w, write_err);
	}
	handle_free(fs, h);
}

static int op_open(const char *path, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	const char *rest;
	int r;

	if (dropfs_wait_path(path, &rest)) {
		if ((fi->flags & O_ACCMODE) != O_RDONLY)
			return -EACCES;
		int fd;
		if ((r = dropfs_wait_open(fs, rest, &fd)) < 0)
			return r;
		fi->fh = (uintptr_t)handle_new(HANDLE_WAIT, fd);
		fi->direct_io = 1;
		return 0;
	}
	if (((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) &&
	    (r = dropfs_check(fs, path, DROPFS_CHECK_WRITE, "open for writing")) < 0)
		return r;
	struct dropfs_handle *h = NULL;
	if ((r = open_backing(fs, path, fi->flags, &h)) < 0) {
		handle_close(fs, h, NULL);
		return r;
	}
	fi->fh = (uintptr_t)h;
	/* The agent replaces its sidecars behind the kernel's page cache. */
	const char *slash = strrchr(path, '/');
	fi->direct_io = dropfs_is_sidecar(slash ? slash + 1 : path);
	return 0;
}

static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	int keep = O_ACCMODE | O_APPEND | O_SYNC | O_DSYNC;
	int r = dropfs_check(fs, path, DROPFS_CHECK_WRITE, "create");
	if (r < 0)
		return r;
	struct dropfs_at at;
	if ((r = dropfs_at_open(fs, path, &at)) < 0)
		return r;
	int fd = openat(at.dirfd, at.leaf, (fi->flags & keep) | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_NONBLOCK | O_NOCTTY | O_CLOEXEC, mode & 07777);
	if (fd < 0) {
		r = -errno;
		dropfs_at_close(&at);
		if (r != -EEXIST || (fi->flags & O_EXCL))
			return r;
		return op_open(path, fi); /* it appeared since the kernel looked */
	}
	r = dropfs_own(fs, &at, fd, mode, false, false);
	if (r < 0) {
		close(fd);
		unlinkat(at.dirfd, at.leaf, 0);
		dropfs_at_close(&at);
		return r;
	}
	dropfs_at_close(&at);
	struct stat st;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	struct dropfs_handle *h = handle_new(HANDLE_FILE, fd);
	h->file = dropfs_file_get(fs, st.st_ino);
	dropfs_file_writer_open(fs, h->file, dropfs_rel(path));
	dropfs_caller(&h->opener);
	atomic_store(&h->wrote, true); /* a new file is new content, even empty */
	fi->fh = (uintptr_t)h;
	return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	ssize_t n = pread(handle_of(fi)->fd, buf, size, off);
	return n < 0 ? -errno : (int)n;
}

static int op_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct dropfs_handle *h = handle_of(fi);
	if (!h->file)
		return -EBADF;
	pthread_rwlock_rdlock(&h->file->content);
	ssize_t n = pwrite(h->fd, buf, size, off);
	int e = errno;
	pthread_rwlock_unlock(&h->file->content);
	atomic_store(&h->wrote, true);
	if (n < 0) {
		/* What lands is not what its writer meant (a full disk took
		 * the rest): the file is answered, not run, at its release. */
		dropfs_file_write_failed(dropfs_get(), h->file, e);
		return -e;
	}
	return (int)n;
}

static int op_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	struct dropfs_handle *h = handle_of(fi);
	if (!h || !h->file)
		return -EBADF;
	pthread_rwlock_rdlock(&h->file->content);
	int r = fallocate(h->fd, mode, off, len) < 0 ? -errno : 0;
	pthread_rwlock_unlock(&h->file->content);
	if (r == 0)
		atomic_store(&h->wrote, true);
	return r;
}

static int op_fsync(const char *path, int datasync, struct fuse_file_info *fi)
{
	int fd = handle_of(fi)->fd;
	return (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? -errno : 0;
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	handle_close(dropfs_get(), handle_of(fi), path);
	return 0;
}

static int op_statfs(const char *path, struct statvfs *sv)
{
	return fstatvfs(dropfs_get()->root_fd, sv) < 0 ? -errno : 0;
}

/* --- directories --- */

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
	struct dropfs *fs = dropfs_get();
	const char *rest;
	if (dropfs_wait_path(path, &rest)) {
		fi->fh = (uintptr_t)handle_new(HANDLE_EMPTY, -1);
		return 0;
	}
	int fd = -1;
	int r = AT_CALL(fs, path, fd = openat(at.dirfd, *at.leaf ? at.leaf : ".",
					      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
	if (r < 0)
		return r;
	DIR *d = fdopendir(fd);
	if (!d) {
		r = -errno;
		close(fd);
		return r;
	}
	struct dropfs_handle *h = handle_new(HANDLE_DIR, -1);
	h->dir = d;
	h->root = is_root(path);
	fi->fh = (uintptr_t)h;
	return 0;
}

static int op_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct dropfs_handle *h = handle_of(fi);
	struct stat st = { .st_mode = S_IFDIR, .st_ino = DROPFS_WAIT_INO };

	/* Offsets 0 throughout: the library keeps the listing of one
	 * opendir, so a name renamed meanwhile is never listed twice. */
	if (h->kind == HANDLE_EMPTY || h->root) {
		fill(buf, ".", &st, 0, 0);
		fill(buf, "..", &st, 0, 0);
		if (h->kind == HANDLE_EMPTY)
			return 0;
		fill(buf, DROPFS_WAIT_DIR, &st, 0, 0);
	}
	rewinddir(h->dir);
	struct dirent *de;
	while ((errno = 0, de = readdir(h->dir))) {
		if (h->root && (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
				strcmp(de->d_name, DROPFS_WAIT_DIR) == 0))
			continue;
		enum fuse_fill_dir_flags ff = 0;
		memset(&st, 0, sizeof(st));
		if ((flags & FUSE_READDIR_PLUS) &&
		    fstatat(dirfd(h->dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			ff = FUSE_FILL_DIR_PLUS;
		} else {
			st.st_ino = de->d_ino;
			st.st_mode = DTTOIF(de->d_type);
		}
		if (fill(buf, de->d_name, &st, 0, ff))
			break;
	}
	return errno ? -errno : 0;
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
	handle_close(dropfs_get(), handle_of(fi), NULL);
	return 0;
}

static int op_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi)
{
	struct dropfs_handle *h = handle_of(fi);
	if (!h->dir)
		return 0;
	int fd = dirfd(h->dir);
	return (datasync ? fdatasync(fd) : fsync(fd)) < 0 ? -errno : 0;
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Every change but the agent's own comes through here, and the agent
	 * drops what the kernel cached of the files it writes (src_changed):
	 * names and attributes may be cached briefly. A missing name too (a
	 * create then needs no second lookup), but only when every sidecar is
	 * in the root, whose entries the agent can drop by name. */
	struct dropfs *fs = fuse_get_context()->private_data;
	cfg->entry_timeout = 1;
	cfg->attr_timeout = 1;
	cfg->negative_timeout = fs->o.recursive ? 0 : 1;
	cfg->use_ino = 1;
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 0; /* release needs the path: what is complete */
	/* A reader's signal reaches a handler as SIGUSR1 (dropfs_wait.c). */
	cfg->intr = 1;
	return fuse_get_context()->private_data;
}

static const struct fuse_operations dropfs_ops = {
	.init = op_init,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.mknod = op_mknod,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.symlink = op_symlink,
	.rename = op_rename,
	.link = op_link,
	.chmod = op_chmod,
	.chown = op_chown,
	.truncate = op_truncate,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.statfs = op_statfs,
	.release = op_release,
	.fsync = op_fsync,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.fsyncdir = op_fsyncdir,
	.create = op_create,
	.utimens = op_utimens,
	.fallocate = op_fallocate,
	.getxattr = op_getxattr,
};

const struct fuse_operations *dropfs_operations(void)
{
	return &dropfs_ops;
}
