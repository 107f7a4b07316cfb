/* The drop directory as users see it through the mount, and the directory
 * underneath, which is the agent's alone (dropfs.h "The stop window").
 *
 * Underneath, the backing directory is owned by root with mode 0700 at all
 * times, so that while the agent is stopped (and before it mounts) no
 * writer can plant anything in it. The owner, group and mode users see
 * through the mount (agent.drop_dir_mode and agent.drop_dir_group, or what
 * the directory had before it became the agent's) are kept in memory and,
 * across restarts, in an extended attribute of the backing directory
 * (trusted.*: only root may read or set it). A chmod or chown of the mount's
 * root changes them, never the backing directory. */
#include "dropfs_int.h"

#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

#include "log.h"

#define ROOT_XATTR "trusted.mai-agent.shown"

/* 0 or -errno (logged). */
static int save(struct dropfs *fs)
{
	char v[64];
	int n = snprintf(v, sizeof(v), "%o %lu %lu", (unsigned)fs->shown_mode,
			 (unsigned long)fs->shown_uid, (unsigned long)fs->shown_gid);
	if (fsetxattr(fs->root_fd, ROOT_XATTR, v, (size_t)n, 0) == 0)
		return 0;
	int r = errno == EOPNOTSUPP ? -ENOTSUP : -errno;
	log_warn("cannot keep the drop directory's permissions in %s of %s (a restart "
		 "without agent.drop_dir_mode shows it as root's 0700)", ROOT_XATTR,
		 fs->mountpoint);
	return r;
}

/* What an earlier start kept: true when there is a readable value. */
static bool load(struct dropfs *fs)
{
	char v[64];
	ssize_t n = fgetxattr(fs->root_fd, ROOT_XATTR, v, sizeof(v) - 1);
	unsigned mode;
	unsigned long uid, gid;
	if (n <= 0)
		return false;
	v[n] = '\0';
	if (sscanf(v, "%o %lu %lu", &mode, &uid, &gid) != 3)
		return false;
	fs->shown_mode = (mode_t)mode & 07777;
	fs->shown_uid = (uid_t)uid;
	fs->shown_gid = (gid_t)gid;
	return true;
}

int dropfs_root_prepare(struct dropfs *fs, const char *mode, const char *group, char **err)
{
	struct drop_dir_attr want;
	struct stat st;
	int r = drop_dir_settings(mode, group, &want, err);
	if (r < 0)
		return r;
	if (fstat(fs->root_fd, &st) < 0) {
		r = -errno;
		*err = xasprintf("cannot look at the drop directory %s: %s", fs->mountpoint,
				 strerror(-r));
		return r;
	}
	pthread_mutex_lock(&fs->root_lock);
	if (!load(fs)) {
		fs->shown_mode = st.st_mode & 07777;
		fs->shown_uid = st.st_uid;
		fs->shown_gid = st.st_gid;
	}
	if (want.has_mode)
		fs->shown_mode = want.mode;
	if (want.has_gid)
		fs->shown_gid = want.gid;
	r = save(fs);
	pthread_mutex_unlock(&fs->root_lock);
	if (r == -ENOTSUP) {
		/* Before the directory becomes root's 0700: the next start would
		 * show users that, and lock them out. */
		*err = xasprintf("the drop directory %s is on a file system that keeps no extended "
				 "attributes, where mount mode cannot keep the permissions users "
				 "see (%s) across restarts: put it on a file system that keeps them "
				 "(ext4, xfs, btrfs, tmpfs), or use drop_mode: watch", fs->mountpoint,
				 ROOT_XATTR);
		return r;
	}
	fs->root_ino = st.st_ino;
	fs->root_dev = st.st_dev;
	if (fchown(fs->root_fd, 0, 0) < 0 || fchmod(fs->root_fd, 0700) < 0) {
		r = -errno;
		*err = xasprintf("cannot make the directory underneath the mount (%s) the agent's "
				 "alone (root, 0700): %s", fs->mountpoint, strerror(-r));
		return r;
	}
	return 0;
}

void dropfs_root_attr(struct dropfs *fs, struct stat *st)
{
	pthread_mutex_lock(&fs->root_lock);
	st->st_mode = (st->st_mode & S_IFMT) | fs->shown_mode;
	st->st_uid = fs->shown_uid;
	st->st_gid = fs->shown_gid;
	pthread_mutex_unlock(&fs->root_lock);
}

bool dropfs_is_root(const struct dropfs *fs, const struct stat *st)
{
	return st->st_ino == fs->root_ino && st->st_dev == fs->root_dev;
}

int dropfs_root_chmod(struct dropfs *fs, mode_t mode)
{
	pthread_mutex_lock(&fs->root_lock);
	fs->shown_mode = mode & 07777;
	save(fs);
	pthread_mutex_unlock(&fs->root_lock);
	return 0;
}

int dropfs_root_chown(struct dropfs *fs, uid_t uid, gid_t gid)
{
	pthread_mutex_lock(&fs->root_lock);
	if (uid != (uid_t)-1)
		fs->shown_uid = uid;
	if (gid != (gid_t)-1)
		fs->shown_gid = gid;
	save(fs);
	pthread_mutex_unlock(&fs->root_lock);
	return 0;
}
