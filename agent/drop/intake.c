#include "intake.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"

static const struct {
	const char *id;
	const char *message;
} intake_texts[] = {
	[INTAKE_OK] = { "ok", "The file was read." },
	[INTAKE_SYMLINK] = { "symlink",
		"The name is a symbolic link, which the agent never follows: copy the script "
		"itself into the drop directory." },
	[INTAKE_NOT_REGULAR] = { "not_regular",
		"This is not a regular file (a FIFO, socket, device or directory): only plain "
		"files are run; copy the script itself into the drop directory." },
	[INTAKE_HARD_LINK] = { "hard_link",
		"The file has more than one link (a hard link, made with ln), so it may be "
		"someone else's file from outside the drop directory: it was not read. Copy "
		"the script into the drop directory (cp) instead of linking it." },
	[INTAKE_TOO_LARGE] = { "too_large",
		"The file is larger than the size cap (agent.max_file_size in agent.yaml): "
		"shrink the script or raise the cap." },
	[INTAKE_VANISHED] = { "vanished",
		"The file was removed or renamed before it could be read: drop it again." },
	[INTAKE_UNSTABLE] = { "unstable",
		"The file kept changing while it was read: finish writing it (or write a "
		"temporary file and rename it into place) and it will be taken again." },
	[INTAKE_BAD_NAME] = { "bad_name",
		"The name is not a single file name: drop the file directly into the drop "
		"directory." },
	[INTAKE_IO_ERROR] = { "io_error",
		"The agent could not read the file; check its permissions and the agent log, "
		"then save it again." },
	[INTAKE_INCOMPLETE] = { "incomplete",
		"A write to the file failed, or it was open for writing when the agent stopped, "
		"so its content may not be complete: it was not run. Write it again and it is "
		"taken." },
};

const char *intake_status_to_string(enum intake_status s)
{
	if ((size_t)s >= ARRAY_SIZE(intake_texts))
		return "unknown";
	return intake_texts[s].id;
}

const char *intake_status_message(enum intake_status s)
{
	if ((size_t)s >= ARRAY_SIZE(intake_texts))
		return "Unknown intake status: see the agent log.";
	return intake_texts[s].message;
}

void intake_snapshot_clear(struct intake_snapshot *s)
{
	if (!s)
		return;
	free(s->data);
	memset(s, 0, sizeof(*s));
}

static bool same_timespec(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The fields that any write, truncate or replacement of the open inode moves. */
static bool same_version(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && same_timespec(&a->st_mtim, &b->st_mtim) &&
	       same_timespec(&a->st_ctim, &b->st_ctim);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* What the inode is to intake; for a hard link, out keeps its owner and
 * link count for the caller's record. */
static enum intake_status classify(const struct stat *st, struct intake_snapshot *out)
{
	if (S_ISLNK(st->st_mode))
		return INTAKE_SYMLINK;
	if (!S_ISREG(st->st_mode))
		return INTAKE_NOT_REGULAR;
	if (st->st_nlink > 1) {
		out->uid = st->st_uid;
		out->nlink = st->st_nlink;
		return INTAKE_HARD_LINK;
	}
	return INTAKE_OK;
}

static enum intake_status fail_errno(int e, int *err_out)
{
	if (e == ENOENT || e == ENOTDIR)
		return INTAKE_VANISHED;
	if (e == ELOOP)
		return INTAKE_SYMLINK;
	*err_out = e;
	return INTAKE_IO_ERROR;
}

enum intake_status intake_read(int dirfd, const char *name, const struct intake_options *opts,
			       struct intake_snapshot *out, int *err_out)
{
	unsigned retries = opts->retries ? opts->retries : 3;
	unsigned delay = opts->retry_delay_ms ? opts->retry_delay_ms : 20;
	struct stat pre, post;
	enum intake_status s;

	memset(out, 0, sizeof(*out));
	*err_out = 0;
	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return INTAKE_BAD_NAME;

	/* Look before opening: a device must not even be opened (opening some
	 * devices has side effects), and a symlink is reported as such. */
	if (fstatat(dirfd, name, &pre, AT_SYMLINK_NOFOLLOW) < 0)
		return fail_errno(errno, err_out);
	s = classify(&pre, out);
	if (s != INTAKE_OK)
		return s;

	/* O_NOFOLLOW and O_NONBLOCK cover a swap to a symlink or FIFO between the
	 * look and the open; the fstat below decides on the inode really opened. */
	_cleanup_close_ int fd = openat(dirfd, name,
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return fail_errno(errno, err_out);

	for (unsigned attempt = 1; attempt <= retries + 1; attempt++) {
		_cleanup_free_ char *buf = NULL;
		size_t len = 0;
		int r;

		if (fstat(fd, &pre) < 0)
			return fail_errno(errno, err_out);
		s = classify(&pre, out);
		if (s != INTAKE_OK)
			return s;
		if ((uint64_t)pre.st_size > (uint64_t)opts->max_size)
			return INTAKE_TOO_LARGE;
		if (lseek(fd, 0, SEEK_SET) < 0)
			return fail_errno(errno, err_out);
		r = fileio_read_fd(fd, opts->max_size, &buf, &len);
		if (r == -EFBIG)
			return INTAKE_TOO_LARGE;
		if (r < 0)
			return fail_errno(-r, err_out);
		if (opts->after_read)
			opts->after_read(opts->after_read_arg, attempt);
		if (fstat(fd, &post) < 0)
			return fail_errno(errno, err_out);
		/* Linked while it was read: what was read is dropped with buf. */
		if ((s = classify(&post, out)) != INTAKE_OK)
			return s;
		if (same_version(&pre, &post) && (off_t)len == post.st_size) {
			out->data = (uint8_t *)steal_pointer(&buf);
			out->len = len;
			hash_sha256_hex(out->data, len, out->sha256);
			out->uid = post.st_uid;
			out->gid = post.st_gid;
			out->dev = post.st_dev;
			out->ino = post.st_ino;
			out->nlink = post.st_nlink;
			out->mtime = post.st_mtim;
			out->attempts = attempt;
			return INTAKE_OK;
		}
		if (attempt <= retries)
			sleep_ms(delay);
	}
	return INTAKE_UNSTABLE;
}
