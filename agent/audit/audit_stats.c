/* audit_stats.h: counted from the segment files and the checkpoint file. */
#include "audit_stats.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit_format.h"
#include "fileio.h"
#include "macro.h"

/* The sequence number of the last record of a segment, from the start of
 * its last line (audit_format.h: the seq field at a fixed offset), reading
 * the tail only: a scrape must not read the whole log. -ENOENT when empty. */
static int last_seq(int dirfd, const char *name, off_t size, uint64_t *seq)
{
	_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *buf = NULL;

	if (fd < 0)
		return -errno;
	for (off_t want = 4096;; want *= 16) {
		off_t from = size > want ? size - want : 0;
		size_t n = (size_t)(size - from);
		free(buf);
		buf = xmalloc(n + 1);
		if (pread(fd, buf, n, from) != (ssize_t)n)
			return -EIO;
		if (n == 0 || buf[n - 1] != '\n')
			return -ENOENT; /* empty, or a torn tail the writer will cut */
		size_t i = n - 1;
		while (i > 0 && buf[i - 1] != '\n')
			i--;
		if (i == 0 && from > 0)
			continue; /* the last line starts further back */
		if (n - i < AUDIT_JSON_OFFSET)
			return -EBADMSG;
		char digits[AUDIT_SEQ_DIGITS + 1];
		/* after the entry hash and the previous one, each with its space */
		memcpy(digits, buf + i + 2 * (2 * AUDIT_HASH_LEN + 1), AUDIT_SEQ_DIGITS);
		digits[AUDIT_SEQ_DIGITS] = '\0';
		char *end;
		*seq = strtoull(digits, &end, 10);
		return *end ? -EBADMSG : 0;
	}
}

static void read_checkpoint(int dirfd, struct audit_stats *out)
{
	struct stat st;
	_cleanup_close_ int fd = openat(dirfd, "checkpoint", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	_cleanup_free_ char *text = NULL;
	size_t len;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fileio_read_fd(fd, 1 << 16, &text, &len) < 0)
		return;
	/* "<origin>\n<size>\n...": the size line, digits only */
	const char *nl = strchr(text, '\n');
	if (!nl || nl[1] < '0' || nl[1] > '9')
		return;
	char *end;
	unsigned long long size = strtoull(nl + 1, &end, 10);
	if (*end != '\n')
		return;
	out->checkpoint_size = size;
	out->checkpoint_time = st.st_mtime;
}

int audit_stats_read(const char *log_dir, struct audit_stats *out)
{
	memset(out, 0, sizeof(*out));
	DIR *d = opendir(log_dir);
	struct dirent *e;
	char last[NAME_MAX + 1] = "";
	off_t last_size = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct stat st;
		size_t n = strlen(e->d_name);
		if (n <= 8 || strncmp(e->d_name, "seg-", 4) || strcmp(e->d_name + n - 4, ".log") ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		out->bytes += (uint64_t)st.st_size;
		/* names carry the first seq zero-padded: the greatest is the newest */
		if (strcmp(e->d_name, last) > 0 && n < sizeof(last)) {
			memcpy(last, e->d_name, n + 1);
			last_size = st.st_size;
		}
	}
	uint64_t seq = 0;
	if (last[0] && last_seq(dirfd(d), last, last_size, &seq) == 0)
		out->records = seq + 1;
	read_checkpoint(dirfd(d), out);
	closedir(d);
	return 0;
}
