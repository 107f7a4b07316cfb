/* erofs_probe MNT FILE DIR: tries every kind of modifying call on a mounted
 * maiaudit view and prints one line per call. Exits 1 unless each of them
 * failed with EROFS. FILE and DIR are an existing file and directory of the
 * view, relative to MNT. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

static int failures;

static void expect_erofs(const char *what, int ret)
{
	int e = errno;
	if (ret >= 0) {
		printf("%-40s succeeded (expected EROFS)\n", what);
		failures++;
		return;
	}
	printf("%-40s %s\n", what, e == EROFS ? "EROFS" : strerror(e));
	if (e != EROFS)
		failures++;
}

static int open_close(const char *path, int flags)
{
	int fd = open(path, flags, 0644);
	if (fd >= 0)
		close(fd);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: erofs_probe MNT FILE DIR\n");
		return 2;
	}
	char file[4096], dir[4096], fresh[4096], fresh2[4096], in_dir[4096];
	snprintf(file, sizeof(file), "%s/%s", argv[1], argv[2]);
	snprintf(dir, sizeof(dir), "%s/%s", argv[1], argv[3]);
	snprintf(fresh, sizeof(fresh), "%s/new-file", argv[1]);
	snprintf(fresh2, sizeof(fresh2), "%s/new-file-2", argv[1]);
	snprintf(in_dir, sizeof(in_dir), "%s/%s/new-file", argv[1], argv[3]);

	struct timespec ts[2] = { { 0, 0 }, { 0, 0 } };
	expect_erofs("open(new, O_CREAT|O_WRONLY)", open_close(fresh, O_CREAT | O_WRONLY));
	expect_erofs("open(new in dir, O_CREAT|O_EXCL)", open_close(in_dir, O_CREAT | O_EXCL | O_WRONLY));
	expect_erofs("open(file, O_WRONLY)", open_close(file, O_WRONLY));
	expect_erofs("open(file, O_RDWR)", open_close(file, O_RDWR));
	expect_erofs("open(file, O_WRONLY|O_APPEND)", open_close(file, O_WRONLY | O_APPEND));
	expect_erofs("open(file, O_RDONLY|O_TRUNC)", open_close(file, O_RDONLY | O_TRUNC));
	expect_erofs("truncate(file, 0)", truncate(file, 0));
	expect_erofs("unlink(file)", unlink(file));
	expect_erofs("rmdir(dir)", rmdir(dir));
	expect_erofs("mkdir(new)", mkdir(fresh, 0755));
	expect_erofs("rename(file, new)", rename(file, fresh));
	expect_erofs("rename(dir, new)", rename(dir, fresh));
	expect_erofs("link(file, new)", link(file, fresh));
	expect_erofs("symlink(x, new)", symlink("x", fresh2));
	expect_erofs("mknod(new, fifo)", mknod(fresh, S_IFIFO | 0644, 0));
	expect_erofs("chmod(file, 0666)", chmod(file, 0666));
	expect_erofs("chmod(dir, 0777)", chmod(dir, 0777));
	expect_erofs("chown(file, uid, gid)", chown(file, getuid(), getgid()));
	expect_erofs("utimensat(file)", utimensat(AT_FDCWD, file, ts, 0));
	expect_erofs("setxattr(file, user.x)", setxattr(file, "user.x", "1", 1, 0));
	expect_erofs("removexattr(file, user.x)", removexattr(file, "user.x"));

	/* A descriptor opened for reading cannot be used to write either (the
	 * kernel answers EBADF before the view is asked: only success fails). */
	int fd = open(file, O_RDONLY);
	if (fd < 0) {
		printf("open(file, O_RDONLY) failed: %s\n", strerror(errno));
		return 1;
	}
	errno = 0;
	ssize_t w = write(fd, "x", 1);
	printf("%-40s %s\n", "write(read-only fd)", w < 0 ? strerror(errno) : "succeeded");
	if (w >= 0)
		failures++;
	close(fd);

	/* The view must still be whole afterwards. */
	struct stat st;
	if (stat(file, &st) < 0 || (st.st_mode & 07777) != 0444) {
		printf("%s changed: mode %o\n", file, (unsigned)(st.st_mode & 07777));
		failures++;
	}
	if (stat(fresh, &st) == 0 || stat(fresh2, &st) == 0) {
		printf("a new file appeared in the view\n");
		failures++;
	}
	return failures ? 1 : 0;
}
