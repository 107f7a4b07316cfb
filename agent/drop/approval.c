#include "approval.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "account.h"
#include "dirwrite.h"
#include "fileio.h"
#include "log.h"
#include "names.h"
#include "quarantine.h"

#define PIN_PREFIX "sha256:"

const char *approval_kind_to_string(enum approval_kind k)
{
	return k == APPROVAL_OVERRIDE ? "override" : "approve";
}

static const struct {
	const char *id;
	const char *consumed;
} statuses[] = {
	[APPROVAL_OK] = { "ok", "removed" },
	[APPROVAL_NONE] = { "none", "none" },
	[APPROVAL_EMPTY] = { "empty", "refused: empty" },
	[APPROVAL_STALE] = { "stale", "refused: stale content" },
	[APPROVAL_UNSEEN] = { "unseen", "refused: written before this content was held" },
	[APPROVAL_NOT_REGULAR] = { "not_regular", "refused: not a regular file" },
	[APPROVAL_TOO_LARGE] = { "too_large", "refused: too large" },
	[APPROVAL_IO_ERROR] = { "io_error", "refused: unreadable" },
	[APPROVAL_HARD_LINK] = { "hard_link", "refused: hard link" },
	[APPROVAL_NOT_APPROVER] = { "not_approver", "refused: not an approver" },
	[APPROVAL_SELF] = { "self_approval", "refused: self-approval" },
	[APPROVAL_WRITABLE] = { "writable_by_others", "refused: writable by others" },
};

const char *approval_status_to_string(enum approval_status s)
{
	return (size_t)s < ARRAY_SIZE(statuses) ? statuses[s].id : "unknown";
}

const char *approval_consumed_to_string(enum approval_status s)
{
	return (size_t)s < ARRAY_SIZE(statuses) ? statuses[s].consumed : "refused";
}

bool approval_set_aside(enum approval_status s)
{
	return s == APPROVAL_HARD_LINK || s == APPROVAL_NOT_APPROVER || s == APPROVAL_SELF ||
	       s == APPROVAL_WRITABLE;
}

static char *answer_name(const char *script, enum approval_kind k)
{
	_cleanup_free_ char *suffix = xasprintf(".%s", approval_kind_to_string(k));
	return names_sidecar(script, suffix);
}

/* The sentence for a refusal of who wrote the answer; NULL for others. */
static char *person_message(enum approval_status s, const char *file, const char *script,
			    const struct approval *a, const struct approvers *who)
{
	_cleanup_free_ char *owner = account_user_label(a->uid);
	_cleanup_free_ char *may = approvers_describe(who);
	const char *cmd = a->kind == APPROVAL_OVERRIDE ? "override" : "approve";

	switch (s) {
	case APPROVAL_NOT_APPROVER:
		return xasprintf("%s was written by %s, who is not an approver, so it was moved "
				 "aside unread (kept in %s): only %s may %s (approvers in "
				 "security.yaml); one of them runs 'mai-agent %s %s'", file, owner,
				 quarantine_where(), may, cmd, cmd, script);
	case APPROVAL_SELF:
		return xasprintf("%s was written by %s, who also wrote %s, so it was moved aside "
				 "unread (kept in %s): an approval must come from another approver "
				 "(%s); on a single-user machine set allow_self_approval: true in "
				 "security.yaml", file, owner, script, quarantine_where(), may);
	case APPROVAL_HARD_LINK:
		return xasprintf("%s has %lu links (a hard link), so it may be anyone's file: it was "
				 "moved aside unread (kept in %s); an approver (%s) runs "
				 "'mai-agent %s %s'", file, (unsigned long)a->links, quarantine_where(), may,
				 cmd, script);
	case APPROVAL_WRITABLE:
		return xasprintf("%s (owned by %s) may be written by others than its owner, so "
				 "anyone could have changed it: it was moved aside unread (kept in "
				 "%s); an approver (%s) runs 'mai-agent %s %s'", file, owner,
				 quarantine_where(), may, cmd, script);
	default:
		return NULL;
	}
}

char *approval_status_message(enum approval_status s, enum approval_kind k, const char *script,
			      const struct approval *a, const struct approvers *who)
{
	_cleanup_free_ char *raw = answer_name(script, k);
	_cleanup_free_ char *file = names_printable(raw);
	_cleanup_free_ char *shown = names_printable(script);
	char *person = person_message(s, file, shown, a, who);

	if (person)
		return person;
	switch (s) {
	case APPROVAL_OK:
		return xasprintf("%s was used", file);
	case APPROVAL_NONE:
		return xasprintf("there is no %s", file);
	case APPROVAL_EMPTY:
		return xasprintf("%s was empty and has been consumed: an override must explain "
				 "why the script has to run", file);
	case APPROVAL_STALE:
		return xasprintf("%s was for other content of the script and has been consumed: "
				 "the script changed since, so review it again", file);
	case APPROVAL_UNSEEN:
		return xasprintf("%s names no content (no sha256 line) and was written before this "
				 "content of %s was held (or the content held then was another "
				 "writer's), so it does not cover it and has been consumed: review "
				 "it ('mai-agent pending') and answer with 'mai-agent %s %s', which "
				 "pins the content you saw", file, shown,
				 approval_kind_to_string(k), shown);
	case APPROVAL_NOT_REGULAR:
		return a->moved_to ? xasprintf("%s was not a regular file and has been moved aside "
					       "(kept in %s)", file, quarantine_where())
				   : xasprintf("%s was not a regular file and has been removed", file);
	case APPROVAL_TOO_LARGE:
		return xasprintf("%s was larger than %d bytes and has been consumed", file,
				 APPROVAL_MAX_SIZE);
	case APPROVAL_IO_ERROR:
		return xasprintf("%s could not be read (see the agent log)", file);
	default:
		return xasprintf("%s: unknown status", file);
	}
}

void approval_clear(struct approval *a)
{
	if (!a)
		return;
	free(a->reason);
	free(a->moved_to);
	memset(a, 0, sizeof(*a));
}

bool approval_exists(int dirfd, const char *script, enum approval_kind kind)
{
	_cleanup_free_ char *name = answer_name(script, kind);
	struct stat st;
	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static bool is_hex64(const char *s, size_t n)
{
	if (n != HASH_SHA256_HEX_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Splits the optional pin line off and trims the explanation. */
static void parse_answer(char *text, struct approval *out)
{
	char *body = text;

	if (strncmp(text, PIN_PREFIX, strlen(PIN_PREFIX)) == 0) {
		char *p = text + strlen(PIN_PREFIX);
		char *eol = strchr(p, '\n');
		size_t n;
		while (*p == ' ' || *p == '\t')
			p++;
		n = eol ? (size_t)(eol - p) : strlen(p);
		while (n > 0 && isspace((unsigned char)p[n - 1]))
			n--;
		if (is_hex64(p, n)) {
			for (size_t i = 0; i < n; i++)
				out->pinned_sha256[i] = (char)tolower((unsigned char)p[i]);
			out->pinned_sha256[n] = '\0';
			body = eol ? eol + 1 : p + n;
		}
	}
	while (isspace((unsigned char)*body))
		body++;
	size_t n = strlen(body);
	while (n > 0 && isspace((unsigned char)body[n - 1]))
		n--;
	out->reason = n ? xstrndup(body, n) : NULL;
}

/* What the inode st is as an answer from who, before anything is read. */
static enum approval_status judge(const struct stat *st, const struct approvers *who,
				  uid_t script_uid, struct approval *out)
{
	if (!S_ISREG(st->st_mode))
		return APPROVAL_NOT_REGULAR;
	out->has_uid = true;
	out->uid = st->st_uid;
	out->links = st->st_nlink;
	if (st->st_nlink > 1)
		return APPROVAL_HARD_LINK;
	switch (approvers_check(who, st->st_uid, script_uid)) {
	case APPROVERS_NOT_APPROVER:
		return APPROVAL_NOT_APPROVER;
	case APPROVERS_SELF:
		return APPROVAL_SELF;
	case APPROVERS_OK:
		break;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return APPROVAL_WRITABLE;
	return APPROVAL_OK;
}

/* When the opened answer fd (stat st) was written: its modification time,
 * or its birth time when the file system has one and it is earlier. Only
 * the owner (an approver, judge() checked) can set either. */
static void written_time(int fd, const struct stat *st, struct timespec *out)
{
	struct statx sx;
	*out = st->st_mtim;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME) &&
	    (sx.stx_btime.tv_sec < out->tv_sec ||
	     (sx.stx_btime.tv_sec == out->tv_sec && sx.stx_btime.tv_nsec < out->tv_nsec))) {
		out->tv_sec = sx.stx_btime.tv_sec;
		out->tv_nsec = sx.stx_btime.tv_nsec;
	}
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Whether an answer without a pin, written at out->written, covers the
 * content current_sha256 of script_uid: it must be what was held last, from
 * the same writer, held strictly before the answer was written. */
static bool covers(const struct approval *out, const char *current_sha256, uid_t script_uid,
		   const struct approval_seen *seen)
{
	return seen && strcmp(seen->sha256, current_sha256) == 0 && seen->uid == script_uid &&
	       before(&seen->held, &out->written);
}

/* Reads an answer that judge() let through, and checks its pin (or, without
 * one, that it covers the content, covers()). */
static enum approval_status read_answer(int fd, enum approval_kind kind, const char *current_sha256,
					uid_t script_uid, const struct approval_seen *seen,
					struct approval *out, int *err_out)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = fileio_read_fd(fd, APPROVAL_MAX_SIZE, &text, &len);

	if (r == -EFBIG)
		return APPROVAL_TOO_LARGE;
	if (r < 0) {
		*err_out = -r;
		return APPROVAL_IO_ERROR;
	}
	parse_answer(text, out);
	if (out->pinned_sha256[0] && strcmp(out->pinned_sha256, current_sha256) != 0)
		return APPROVAL_STALE;
	if (kind == APPROVAL_OVERRIDE && !out->reason)
		return APPROVAL_EMPTY;
	if (!out->pinned_sha256[0] && !covers(out, current_sha256, script_uid, seen))
		return APPROVAL_UNSEEN;
	return APPROVAL_OK;
}

/* Moves name aside (quarantine.h) and says where in out->moved_to. */
static void set_aside(int dirfd, const char *name, struct approval *out)
{
	_cleanup_free_ char *detail = NULL, *shown = names_printable(name);
	int r = quarantine_move(dirfd, name, &out->moved_to, &detail);
	if (r < 0 && r != -ENOENT)
		log_warnx("the refused answer %s stays where it is: %s", shown, detail);
	else if (r == 0)
		log_info("the refused answer %s was moved aside to %s", shown, out->moved_to);
}

/* Removes name if it still is the inode that was judged (read); a file
 * renamed over it since is a new answer and stays. A directory named like
 * an answer is removed when empty, else moved aside. */
static void consume(int dirfd, const char *name, const struct stat *judged, struct approval *out)
{
	struct stat now;
	if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 || now.st_dev != judged->st_dev ||
	    now.st_ino != judged->st_ino)
		return;
	if (unlinkat(dirfd, name, S_ISDIR(now.st_mode) ? AT_REMOVEDIR : 0) == 0)
		return;
	if (errno == ENOTEMPTY || errno == EEXIST)
		set_aside(dirfd, name, out);
	else
		log_warn("cannot remove the consumed answer %s", name);
}

enum approval_status approval_take(int dirfd, const char *script, enum approval_kind kind,
				   const char *current_sha256, const struct approvers *who,
				   uid_t script_uid, const struct approval_seen *seen,
				   struct approval *out, int *err_out)
{
	_cleanup_free_ char *name = answer_name(script, kind);
	struct stat st;
	enum approval_status s;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	*err_out = 0;
	/* Look first: a FIFO or a device is never opened. */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return APPROVAL_NONE;
		*err_out = errno;
		return APPROVAL_IO_ERROR;
	}
	s = judge(&st, who, script_uid, out);
	if (s == APPROVAL_OK) {
		/* The file opened is judged again: it may have been replaced. */
		_cleanup_close_ int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
							     O_NOCTTY | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT)
			return APPROVAL_NONE;
		if (fd < 0 && errno == ELOOP) {
			s = APPROVAL_NOT_REGULAR;
		} else if (fd < 0 || fstat(fd, &st) < 0) {
			*err_out = errno;
			s = APPROVAL_IO_ERROR;
		} else {
			s = judge(&st, who, script_uid, out);
			if (s == APPROVAL_OK) {
				written_time(fd, &st, &out->written);
				s = read_answer(fd, kind, current_sha256, script_uid, seen, out,
						err_out);
			}
		}
	}
	if (approval_set_aside(s))
		set_aside(dirfd, name, out);
	else
		consume(dirfd, name, &st, out);
	if (s != APPROVAL_OK && s != APPROVAL_EMPTY && s != APPROVAL_STALE && s != APPROVAL_UNSEEN) {
		/* Who it was stays known for the record; nothing read is kept. */
		struct approval keep = { .kind = kind, .has_uid = out->has_uid, .uid = out->uid,
					 .links = out->links, .moved_to = out->moved_to };
		out->moved_to = NULL;
		approval_clear(out);
		*out = keep;
	}
	return s;
}

int approval_write(const char *dir, const char *script, enum approval_kind kind,
		   const char *sha256, const char *reason, char **err)
{
	_cleanup_free_ char *name = answer_name(script, kind);
	_cleanup_free_ char *shown = NULL, *detail = NULL;
	_cleanup_free_ char *text = xasprintf("%s%s%s%s%s", sha256 ? PIN_PREFIX " " : "",
					      sha256 ? sha256 : "", sha256 ? "\n" : "",
					      reason ? reason : "", reason ? "\n" : "");
	size_t len = strlen(text);

	if (len > APPROVAL_MAX_SIZE) {
		*err = xasprintf("the reason is too long (%zu bytes, at most %d)", len,
				 APPROVAL_MAX_SIZE);
		return -EFBIG;
	}
	_cleanup_close_ int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* 0644: the agent must read it, and no one else may change it (a
	 * writable answer is refused); the explanation is no secret (it goes
	 * into the audit log anyway). */
	int r = dfd < 0 ? -errno
			: dirwrite_replace(dfd, name, text, len, 0644,
					   DIRWRITE_DURABLE | DIRWRITE_REPLACE_FOREIGN, &detail);
	if (r < 0) {
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
		shown = names_printable(path);
		*err = xasprintf("cannot write %s: %s", shown, detail ? detail : strerror(-r));
	}
	return r;
}
