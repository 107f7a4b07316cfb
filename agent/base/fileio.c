#include "fileio.h"

#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

int fileio_read_fd(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);

	for (;;) {
		if (n == cap) {
			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int fileio_read_path(const char *path, size_t max, char **out, size_t *len)
{
	struct stat st;
	/* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	 * writer, forever; a regular file ignores the flag. */
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	return fileio_read_fd(fd, max, out, len);
}

/* write() or, at off >= 0, pwrite() until all of buf is out. */
static int write_all_at(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = off < 0 ? write(fd, p, len) : pwrite(fd, p, len, off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
		if (off >= 0)
			off += w;
	}
	return 0;
}

int fileio_write_all(int fd, const void *buf, size_t len)
{
	return write_all_at(fd, buf, len, -1);
}

int fileio_pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	return write_all_at(fd, buf, len, (off_t)off);
}

int fileio_fsync_parent(const char *path)
{
	_cleanup_free_ char *copy = xstrdup(path);
	_cleanup_close_ int dfd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (fsync(dfd) < 0)
		return -errno;
	return 0;
}

/* The temporary is named by the calling thread's id, not the process's:
 * two threads replacing the same path at once (two jobs storing the same
 * script version) must not write, truncate or rename each other's. */
static int write_replace(const char *path, const void *buf, size_t len, mode_t mode, bool durable)
{
	_cleanup_free_ char *tmp = xasprintf("%s.tmp.%ld", path, (long)gettid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	int r;

	if (fd < 0)
		return -errno;
	r = fileio_write_all(fd, buf, len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (r == 0 && durable && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return durable ? fileio_fsync_parent(path) : 0;
}

int fileio_write_atomic(const char *path, const void *buf, size_t len, mode_t mode)
{
	return write_replace(path, buf, len, mode, true);
}

int fileio_write_replace(const char *path, const void *buf, size_t len, mode_t mode)
{
	return write_replace(path, buf, len, mode, false);
}

int fileio_mkdir_p(const char *path, mode_t mode)
{
	_cleanup_free_ char *p = xstrdup(path);
	size_t n = strlen(p);

	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		return -errno;
	struct stat st;
	if (stat(p, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return 0;
}

DIR *fileio_opendir_at(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	if (!d && fd >= 0) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}
