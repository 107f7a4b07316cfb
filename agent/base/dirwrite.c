#include "dirwrite.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <sys/xattr.h>
#include <time.h>

#include "account.h"
#include "fileio.h"

#define RANDOM_HEX 16
#define TEMP_NAME_SIZE (sizeof(DIRWRITE_TEMP_PREFIX) + RANDOM_HEX)
#define NAME_TRIES 8

char *dirwrite_describe(const struct stat *st)
{
	const char *kind = S_ISREG(st->st_mode) ? "regular file" :
			   S_ISDIR(st->st_mode) ? "directory" :
			   S_ISLNK(st->st_mode) ? "symbolic link" :
			   S_ISFIFO(st->st_mode) ? "FIFO" :
			   S_ISSOCK(st->st_mode) ? "socket" : "device";
	_cleanup_free_ char *owner = account_user_label(st->st_uid);
	_cleanup_free_ char *links = S_ISREG(st->st_mode) && st->st_nlink > 1
		? xasprintf(" with %lu links", (unsigned long)st->st_nlink) : xstrdup("");
	return xasprintf("a %s%s owned by %s", kind, links, owner);
}

bool dirwrite_fd_marked(int fd, const char *name)
{
	char mark[NAME_MAX + 1];
	ssize_t n = fgetxattr(fd, DIRWRITE_MARK_XATTR, mark, sizeof(mark) - 1);
	if (n < 0)
		return false;
	mark[n] = '\0';
	return strcmp(mark, name) == 0;
}

int dirwrite_marks_supported(int dirfd)
{
	static const char probe[] = "security.mai-agent.probe";
	if (fsetxattr(dirfd, probe, "1", 1, 0) < 0)
		return errno == EOPNOTSUPP ? -ENOTSUP : -errno;
	fremovexattr(dirfd, probe);
	return 0;
}

bool dirwrite_is_own(int dirfd, const char *name, const struct stat *st)
{
	char path[64 + NAME_MAX], mark[NAME_MAX + 1];
	if (!S_ISREG(st->st_mode) || st->st_nlink != 1)
		return false;
	if (st->st_uid == geteuid())
		return true;
	if (strlen(name) > NAME_MAX)
		return false;
	snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	ssize_t n = lgetxattr(path, DIRWRITE_MARK_XATTR, mark, sizeof(mark) - 1);
	if (n < 0)
		return false;
	mark[n] = '\0';
	return strcmp(mark, name) == 0;
}

/* What may be replaced at name: 0 nothing there, 1 a file that may be
 * replaced, or -EEXIST / -EISDIR / -errno with *detail. */
static int check_target(int dirfd, const char *name, const struct dirwrite_access *a,
			unsigned flags, char **detail)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		int e = errno;
		*detail = xasprintf("cannot look at it: %s", strerror(e));
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		*detail = xasprintf("it is a directory (owned by uid %lu); the agent never "
				    "replaces one", (unsigned long)st.st_uid);
		return -EISDIR;
	}
	if (flags & DIRWRITE_REPLACE_FOREIGN)
		return 1;
	if (!S_ISREG(st.st_mode) || (st.st_uid != geteuid() && !dirwrite_is_own(dirfd, name, &st))) {
		_cleanup_free_ char *what = dirwrite_describe(&st);
		*detail = xasprintf("%s is there, not a file of uid %lu: it is left alone and "
				    "nothing is written through it", what, (unsigned long)geteuid());
		return -EEXIST;
	}
	return 1;
}

static void random_name(char out[TEMP_NAME_SIZE])
{
	static atomic_uint_fast64_t counter;
	uint8_t b[RANDOM_HEX / 2];

	if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
		/* Unpredictable is what keeps others from preparing the name;
		 * linkat and O_EXCL keep the write safe even when it is not. */
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t v = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			     ((uint64_t)getpid() << 40) ^ atomic_fetch_add(&counter, 0x9e3779b97f4a7c15u);
		memcpy(b, &v, sizeof(b));
	}
	char *o = out + strlen(DIRWRITE_TEMP_PREFIX);
	memcpy(out, DIRWRITE_TEMP_PREFIX, strlen(DIRWRITE_TEMP_PREFIX));
	for (size_t i = 0; i < sizeof(b); i++)
		o += sprintf(o, "%02x", b[i]);
}

/* Writes the content and applies owner, mode and the mark of name. 0 or
 * -errno. */
static int fill(int fd, const char *name, const void *buf, size_t len,
		const struct dirwrite_access *a, bool durable)
{
	int r = fileio_write_all(fd, buf, len);
	if (r == 0 && a->marked &&
	    fsetxattr(fd, DIRWRITE_MARK_XATTR, name, strlen(name), 0) < 0 && errno != ENOTSUP)
		r = -errno;
	if (r == 0 && (a->uid != geteuid() || a->gid != (gid_t)-1) && fchown(fd, a->uid, a->gid) < 0)
		r = -errno;
	if (r == 0 && fchmod(fd, a->mode) < 0)
		r = -errno;
	if (r == 0 && durable && fsync(fd) < 0)
		r = -errno;
	return r;
}

/* A temporary under a fresh unpredictable name (into tmp): created with
 * O_EXCL, so never something that was there. fd or -errno. */
static int create_named(int dirfd, char tmp[TEMP_NAME_SIZE], mode_t mode)
{
	for (int i = 0; i < NAME_TRIES; i++) {
		random_name(tmp);
		int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
					    O_NOCTTY | O_CLOEXEC, mode & 0600);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		struct stat st;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
		    st.st_nlink != 1) {
			int e = errno ? errno : EEXIST;
			close(fd);
			unlinkat(dirfd, tmp, 0);
			return -e;
		}
		return fd;
	}
	return -EEXIST;
}

/* Links the anonymous file fd in as name: 0, -EEXIST when the name is
 * taken, -EOPNOTSUPP when this process cannot link it (no
 * CAP_DAC_READ_SEARCH and no /proc), or -errno. */
static int link_anonymous(int fd, int dirfd, const char *name)
{
	char proc[40];

	if (linkat(fd, "", dirfd, name, AT_EMPTY_PATH) == 0)
		return 0;
	if (errno != ENOENT && errno != EPERM)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno == ENOENT || errno == EPERM)
		return -EOPNOTSUPP;
	return -errno;
}

/* The anonymous file under a fresh temporary name (into tmp). */
static int link_temporary(int fd, int dirfd, char tmp[TEMP_NAME_SIZE])
{
	int r = -EEXIST;
	for (int i = 0; i < NAME_TRIES && r == -EEXIST; i++) {
		random_name(tmp);
		r = link_anonymous(fd, dirfd, tmp);
	}
	return r;
}

/* Puts the content under a temporary name in tmp: through an anonymous
 * file when the file system and the process allow it, else a named one.
 * With place_directly, an anonymous file is linked straight in as name
 * when that name is free (then *placed and tmp stays empty). 0 or -errno. */
static int stage_content(int dirfd, const char *name, const void *buf, size_t len,
			 const struct dirwrite_access *a, bool durable, bool place_directly,
			 char tmp[TEMP_NAME_SIZE], bool *placed)
{
	mode_t mode = a->mode;
	*placed = false;
	tmp[0] = '\0';
	_cleanup_close_ int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, mode & 0600);
	if (fd >= 0) {
		int r = fill(fd, name, buf, len, a, durable);
		if (r < 0)
			return r;
		r = place_directly ? link_anonymous(fd, dirfd, name) : -EEXIST;
		if (r == 0) {
			*placed = true;
			return 0;
		}
		if (r == -EEXIST)
			r = link_temporary(fd, dirfd, tmp);
		if (r != -EOPNOTSUPP) {
			if (r < 0)
				tmp[0] = '\0';
			return r;
		}
		tmp[0] = '\0';
	} else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		return -errno;
	}
	int nfd = create_named(dirfd, tmp, mode);
	if (nfd < 0) {
		tmp[0] = '\0';
		return nfd;
	}
	int r = fill(nfd, name, buf, len, a, durable);
	if (close(nfd) < 0 && r == 0)
		r = -errno;
	if (r < 0) {
		unlinkat(dirfd, tmp, 0);
		tmp[0] = '\0';
	}
	return r;
}

int dirwrite_replace(int dirfd, const char *name, const void *buf, size_t len, mode_t mode,
		     unsigned flags, char **detail)
{
	struct dirwrite_access a = { .uid = geteuid(), .gid = (gid_t)-1, .mode = mode };
	return dirwrite_replace_as(dirfd, name, buf, len, &a, flags, detail);
}

int dirwrite_replace_as(int dirfd, const char *name, const void *buf, size_t len,
			const struct dirwrite_access *a, unsigned flags, char **detail)
{
	bool durable = flags & (DIRWRITE_DURABLE | DIRWRITE_DURABLE_DATA), placed;
	char tmp[TEMP_NAME_SIZE];

	*detail = NULL;
	if (strlen(name) > NAME_MAX) {
		*detail = xasprintf("the name is %zu bytes long, more than the %d a file name may "
				    "have", strlen(name), NAME_MAX);
		return -ENAMETOOLONG;
	}
	int r = check_target(dirfd, name, a, flags, detail);
	if (r < 0)
		return r;
	r = stage_content(dirfd, name, buf, len, a, durable, r == 0, tmp, &placed);
	if (r < 0) {
		*detail = xasprintf("cannot write a new file in its directory: %s", strerror(-r));
		return r;
	}
	if (!placed) {
		/* Looked at again right before the rename: what appeared since is
		 * refused all the same (and a rename would only replace it). */
		r = check_target(dirfd, name, a, flags, detail);
		/* The file it replaces is held (O_PATH) across the rename, so that
		 * its blocks are freed at the close after it, not inside it: the
		 * new content is in place that much sooner where freeing is slow
		 * (a file system that discards freed blocks at once: 0.2-5 ms a
		 * rename on an ext4 mounted with discard and no journal). */
		_cleanup_close_ int replaced = r >= 0 ? openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC) : -1;
		if (r >= 0 && renameat(dirfd, tmp, dirfd, name) < 0) {
			r = -errno;
			*detail = xasprintf("cannot rename the new file into place: %s", strerror(-r));
		}
		if (r < 0) {
			unlinkat(dirfd, tmp, 0);
			return r;
		}
	}
	if ((flags & DIRWRITE_DURABLE) && fsync(dirfd) < 0) {
		r = -errno;
		*detail = xasprintf("cannot flush its directory: %s", strerror(-r));
		return r;
	}
	return 0;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* "<sidecar>.tmp.<pid>": fileio_write_atomic's name, which the agent used
 * for its sidecars before. */
static bool is_old_temporary(const char *name)
{
	static const char *const kinds[] = { ".result.json.tmp.", ".audit.tmp." };
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		const char *p = strstr(name, kinds[i]);
		if (!p || p == name)
			continue;
		p += strlen(kinds[i]);
		if (*p && strspn(p, "0123456789") == strlen(p))
			return true;
	}
	return false;
}

bool dirwrite_is_temporary(const char *name)
{
	size_t n = strlen(DIRWRITE_TEMP_PREFIX);
	if (strncmp(name, DIRWRITE_TEMP_PREFIX, n) == 0)
		return strlen(name + n) == RANDOM_HEX && is_hex(name + n, RANDOM_HEX);
	return is_old_temporary(name);
}

int dirwrite_clear_temporaries(int dirfd, unsigned *removed)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	struct dirent *de;
	*removed = 0;
	while ((de = readdir(d))) {
		struct stat st;
		if (!dirwrite_is_temporary(de->d_name) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (unlinkat(dirfd, de->d_name, 0) == 0)
			(*removed)++;
	}
	closedir(d);
	return 0;
}
