#include "approval.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "log.h"
#include "names.h"

#define PIN_PREFIX "sha256:"

const char *approval_kind_to_string(enum approval_kind k)
{
	return k == APPROVAL_OVERRIDE ? "override" : "approve";
}

const char *approval_status_to_string(enum approval_status s)
{
	switch (s) {
	case APPROVAL_OK: return "ok";
	case APPROVAL_NONE: return "none";
	case APPROVAL_EMPTY: return "empty";
	case APPROVAL_STALE: return "stale";
	case APPROVAL_NOT_REGULAR: return "not_regular";
	case APPROVAL_TOO_LARGE: return "too_large";
	case APPROVAL_IO_ERROR: return "io_error";
	}
	return "unknown";
}

const char *approval_consumed_to_string(enum approval_status s)
{
	switch (s) {
	case APPROVAL_OK: return "removed";
	case APPROVAL_NONE: return "none";
	case APPROVAL_EMPTY: return "refused: empty";
	case APPROVAL_STALE: return "refused: stale content";
	case APPROVAL_NOT_REGULAR: return "refused: not a regular file";
	case APPROVAL_TOO_LARGE: return "refused: too large";
	case APPROVAL_IO_ERROR: return "refused: unreadable";
	}
	return "refused";
}

static char *answer_name(const char *script, enum approval_kind k)
{
	_cleanup_free_ char *suffix = xasprintf(".%s", approval_kind_to_string(k));
	return names_sidecar(script, suffix);
}

char *approval_status_message(enum approval_status s, enum approval_kind k, const char *script)
{
	_cleanup_free_ char *raw = answer_name(script, k);
	_cleanup_free_ char *file = names_printable(raw);

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
	case APPROVAL_NOT_REGULAR:
		return xasprintf("%s was not a regular file and has been removed", file);
	case APPROVAL_TOO_LARGE:
		return xasprintf("%s was larger than %d bytes and has been consumed", file,
				 APPROVAL_MAX_SIZE);
	case APPROVAL_IO_ERROR:
		return xasprintf("%s could not be read (see the agent log)", file);
	}
	return xasprintf("%s: unknown status", file);
}

void approval_clear(struct approval *a)
{
	if (!a)
		return;
	free(a->reason);
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

enum approval_status approval_take(int dirfd, const char *script, enum approval_kind kind,
				   const char *current_sha256, struct approval *out, int *err_out)
{
	_cleanup_free_ char *name = answer_name(script, kind);
	_cleanup_free_ char *taken = NULL;
	_cleanup_free_ char *text = NULL;
	const char *slash = strrchr(name, '/');
	struct stat st;
	size_t len = 0;
	int r;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	*err_out = 0;
	/* The hidden name sits in the same directory as the answer. */
	if (slash)
		taken = xasprintf("%.*s/.%s.taken.%ld", (int)(slash - name), name, slash + 1,
				  (long)getpid());
	else
		taken = xasprintf(".%s.taken.%ld", name, (long)getpid());

	if (renameat(dirfd, name, dirfd, taken) < 0) {
		if (errno == ENOENT)
			return APPROVAL_NONE;
		*err_out = errno;
		return APPROVAL_IO_ERROR;
	}
	_cleanup_close_ int fd = openat(dirfd, taken,
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	enum approval_status s = APPROVAL_OK;
	if (fd < 0) {
		if (errno == ELOOP) {
			s = APPROVAL_NOT_REGULAR;
		} else {
			*err_out = errno;
			s = APPROVAL_IO_ERROR;
		}
	} else if (fstat(fd, &st) < 0) {
		*err_out = errno;
		s = APPROVAL_IO_ERROR;
	} else if (!S_ISREG(st.st_mode)) {
		s = APPROVAL_NOT_REGULAR;
	} else {
		out->uid = st.st_uid;
		r = fileio_read_fd(fd, APPROVAL_MAX_SIZE, &text, &len);
		if (r == -EFBIG) {
			s = APPROVAL_TOO_LARGE;
		} else if (r < 0) {
			*err_out = -r;
			s = APPROVAL_IO_ERROR;
		} else {
			parse_answer(text, out);
			if (out->pinned_sha256[0] &&
			    strcmp(out->pinned_sha256, current_sha256) != 0)
				s = APPROVAL_STALE;
			else if (kind == APPROVAL_OVERRIDE && !out->reason)
				s = APPROVAL_EMPTY;
		}
	}
	/* Consumed whatever it held; a directory named foo.approve is removed
	 * only when empty. */
	if (unlinkat(dirfd, taken, 0) < 0 && unlinkat(dirfd, taken, AT_REMOVEDIR) < 0)
		log_warn("cannot remove the consumed answer %s", taken);
	if (s != APPROVAL_OK && s != APPROVAL_EMPTY && s != APPROVAL_STALE)
		approval_clear(out);
	return s;
}

int approval_write(const char *dir, const char *script, enum approval_kind kind,
		   const char *sha256, const char *reason, char **err)
{
	_cleanup_free_ char *name = answer_name(script, kind);
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
	_cleanup_free_ char *text = xasprintf("%s%s%s%s%s", sha256 ? PIN_PREFIX " " : "",
					      sha256 ? sha256 : "", sha256 ? "\n" : "",
					      reason ? reason : "", reason ? "\n" : "");
	size_t len = strlen(text);

	if (len > APPROVAL_MAX_SIZE) {
		*err = xasprintf("the reason is too long (%zu bytes, at most %d)", len,
				 APPROVAL_MAX_SIZE);
		return -EFBIG;
	}
	/* 0644: the agent must read it; the explanation is no secret (it goes
	 * into the audit log anyway). */
	int r = fileio_write_atomic(path, text, len, 0644);
	if (r < 0) {
		_cleanup_free_ char *p = names_printable(path);
		*err = xasprintf("cannot write %s: %s", p, strerror(-r));
	}
	return r;
}
