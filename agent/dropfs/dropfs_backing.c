/* Paths beneath the backing directory, and the owner of what users create.
 *
 * Every path is walked from the descriptor of the backing directory one
 * component at a time with O_NOFOLLOW, so no symbolic link in the drop
 * directory (a user may make one pointing anywhere) is ever followed by the
 * agent, which runs as root; the last component is handed to an *at() call
 * that does not follow it either. */
#include "dropfs_int.h"

#include <fcntl.h>
#include <string.h>

#include "log.h"

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

void dropfs_caller(struct drop_writer *w, bool with_process)
{
	const struct fuse_context *c = fuse_get_context();
	if (with_process) {
		drop_writer_from_request(w, c->uid, c->gid, c->pid);
		return;
	}
	memset(w, 0, sizeof(*w));
	w->from = DROP_WRITER_REQUEST;
	w->uid = c->uid;
	w->gid = c->gid;
	w->pid = c->pid;
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
