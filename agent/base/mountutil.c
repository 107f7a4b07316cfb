/* Mount point checks and lazy unmount. See mountutil.h. */
#include "mountutil.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"

extern char **environ;

const char *mountutil_state_to_string(enum mountutil_state st)
{
	switch (st) {
	case MOUNTUTIL_READY: return "ready";
	case MOUNTUTIL_MISSING: return "missing";
	case MOUNTUTIL_NOT_DIR: return "not a directory";
	case MOUNTUTIL_STALE: return "stale mount";
	case MOUNTUTIL_MOUNTED: return "already mounted";
	case MOUNTUTIL_ERROR: return "error";
	}
	return "unknown";
}

int mountutil_canonical(const char *path, char **out)
{
	_cleanup_free_ char *a = xstrdup(path);
	_cleanup_free_ char *b = xstrdup(path);
	/* dirname/basename may modify their argument: one copy each. */
	size_t n = strlen(a);
	while (n > 1 && a[n - 1] == '/')
		a[--n] = '\0', b[n] = '\0';
	const char *base = basename(b);
	char *parent = realpath(dirname(a), NULL);
	if (!parent)
		return -errno;
	if (strcmp(base, "/") == 0 || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		/* No last component to append: resolve it whole. */
		free(parent);
		char *full = realpath(path, NULL);
		if (!full)
			return -errno;
		*out = full;
		return 0;
	}
	*out = xasprintf("%s%s%s", parent, strcmp(parent, "/") == 0 ? "" : "/", base);
	free(parent);
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape_octal(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

int mountutil_find(const char *mountinfo, const char *mnt, char **fstype)
{
	_cleanup_fclose_ FILE *f = fopen(mountinfo, "re");
	if (!f)
		return -errno;
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	char *found = NULL;
	while (getline(&line, &cap, f) > 0) {
		/* id parent major:minor root mountpoint options [optional...] - fstype source super */
		char *save = NULL;
		char *field[5] = { 0 };
		for (int i = 0; i < 5; i++) {
			field[i] = strtok_r(i ? NULL : line, " \n", &save);
			if (!field[i])
				break;
		}
		if (!field[4])
			continue;
		char *type = NULL, *tok;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			if (strcmp(tok, "-") == 0) {
				type = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (!type)
			continue;
		unescape_octal(field[4]);
		if (strcmp(field[4], mnt) == 0) {
			free(found);
			found = xstrdup(type);
		}
	}
	if (ferror(f)) {
		free(found);
		return -EIO;
	}
	if (!found)
		return -ENOENT;
	*fstype = found;
	return 0;
}

enum mountutil_state mountutil_probe(const char *path, char **detail)
{
	struct stat st, parent_st;
	*detail = NULL;
	if (stat(path, &st) < 0) {
		int e = errno;
		if (e == ENOTCONN) {
			*detail = xasprintf("%s: %s", path, strerror(e));
			return MOUNTUTIL_STALE;
		}
		if (e == ENOENT)
			return MOUNTUTIL_MISSING;
		*detail = xasprintf("cannot stat %s: %s", path, strerror(e));
		return MOUNTUTIL_ERROR;
	}
	if (!S_ISDIR(st.st_mode))
		return MOUNTUTIL_NOT_DIR;

	_cleanup_free_ char *canon = NULL;
	if (mountutil_canonical(path, &canon) < 0)
		return MOUNTUTIL_READY;
	_cleanup_free_ char *fstype = NULL;
	if (mountutil_find("/proc/self/mountinfo", canon, &fstype) == 0) {
		/* The kernel answers stat() of a FUSE mount's root from its
		 * attribute cache for a while after the server died (kill -9);
		 * statfs() always asks the server. */
		struct statfs sf;
		if (strncmp(fstype, "fuse", 4) == 0 && statfs(path, &sf) < 0 && errno == ENOTCONN) {
			*detail = xasprintf("%s: %s", path, strerror(ENOTCONN));
			return MOUNTUTIL_STALE;
		}
		*detail = xasprintf("%s is already a mount point (%s)", canon, fstype);
		return MOUNTUTIL_MOUNTED;
	}
	/* Without /proc, a device change against the parent still tells. */
	_cleanup_free_ char *parent = xasprintf("%s/..", path);
	if (stat(parent, &parent_st) == 0 && parent_st.st_dev != st.st_dev &&
	    strcmp(canon, "/") != 0) {
		*detail = xasprintf("%s is already a mount point", canon);
		return MOUNTUTIL_MOUNTED;
	}
	return MOUNTUTIL_READY;
}

enum mountutil_state mountutil_probe_clear(const char *path, const char *who, char **detail)
{
	enum mountutil_state st = mountutil_probe(path, detail);
	if (st != MOUNTUTIL_STALE)
		return st;
	log_warnx("stale mount on %s (transport endpoint is not connected: %s ended without "
		  "unmounting); unmounting it lazily and mounting again", path, who);
	char *err = NULL;
	free(*detail);
	*detail = NULL;
	if (mountutil_lazy_unmount(path, &err) < 0) {
		*detail = err;
		return MOUNTUTIL_STALE;
	}
	return mountutil_probe(path, detail);
}

static int run_fusermount(const char *mnt, char **err)
{
	char *argv[] = { (char *)"fusermount3", (char *)"-u", (char *)"-z", (char *)"--",
			 (char *)mnt, NULL };
	pid_t pid;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	/* fusermount3 speaks only on error; keep our stdout clean. */
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	int r = posix_spawnp(&pid, "fusermount3", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		*err = xasprintf("cannot run fusermount3 to unmount %s: %s; install the fuse3 "
				 "package or unmount it as root with 'umount -l %s'",
				 mnt, strerror(r), mnt);
		return -r;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			r = -errno;
			*err = xasprintf("waiting for fusermount3: %s", strerror(errno));
			return r;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*err = xasprintf("'fusermount3 -u -z %s' failed (status %d); unmount it as root "
				 "with 'umount -l %s'", mnt,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1, mnt);
		return -EPERM;
	}
	return 0;
}

int mountutil_lazy_unmount(const char *mnt, char **err)
{
	*err = NULL;
	if (umount2(mnt, MNT_DETACH) == 0)
		return 0;
	if (errno != EPERM)
		log_debug("umount2(%s, MNT_DETACH): %s; trying fusermount3", mnt, strerror(errno));
	return run_fusermount(mnt, err);
}
