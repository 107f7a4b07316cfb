#include "account.h"

#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Buffers for the *_r lookups grow until the entry fits. */
#define BUF_START 1024
#define BUF_MAX (1 << 20)

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* A decimal id that fits in 32 bits and is not (uid_t)-1. */
static int parse_id(const char *s, unsigned long *out)
{
	if (!all_digits(s) || strlen(s) > 10)
		return -EINVAL;
	unsigned long v = strtoul(s, NULL, 10);
	if (v >= UINT32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

bool account_name_valid(const char *s)
{
	size_t n = strlen(s);
	unsigned long id;

	if (parse_id(s, &id) == 0)
		return true;
	/* Digits only but no id (too large, or (uid_t)-1): neither. */
	if (n == 0 || n > 32 || s[0] == '-' || all_digits(s))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
			  (c == '$' && i + 1 == n && n > 1);
		if (!ok)
			return false;
	}
	return true;
}

/* getpwuid_r or getpwnam_r into a growing buffer: 0, or -ENOENT. */
static int lookup_user(const char *name, uid_t uid, struct passwd *pw, char **buf)
{
	size_t size = BUF_START;
	for (;;) {
		struct passwd *res = NULL;
		*buf = xrealloc(*buf, size);
		int r = name ? getpwnam_r(name, pw, *buf, size, &res)
			     : getpwuid_r(uid, pw, *buf, size, &res);
		if (r == ERANGE && size < BUF_MAX) {
			size *= 2;
			continue;
		}
		return res ? 0 : -ENOENT;
	}
}

char *account_user_name(uid_t uid)
{
	struct passwd pw;
	_cleanup_free_ char *buf = NULL;
	if (lookup_user(NULL, uid, &pw, &buf) < 0)
		return NULL;
	return xstrdup(pw.pw_name);
}

char *account_user_label(uid_t uid)
{
	_cleanup_free_ char *name = account_user_name(uid);
	if (!name)
		return xasprintf("uid %lu", (unsigned long)uid);
	return xasprintf("%s (uid %lu)", name, (unsigned long)uid);
}

int account_parse_user(const char *s, uid_t *out)
{
	unsigned long id;
	struct passwd pw;
	_cleanup_free_ char *buf = NULL;

	if (parse_id(s, &id) == 0) {
		*out = (uid_t)id;
		return 0;
	}
	if (!account_name_valid(s))
		return -EINVAL;
	if (lookup_user(s, 0, &pw, &buf) < 0)
		return -ENOENT;
	*out = pw.pw_uid;
	return 0;
}

int account_parse_group(const char *s, gid_t *out)
{
	unsigned long id;
	size_t size = BUF_START;
	_cleanup_free_ char *buf = NULL;

	if (parse_id(s, &id) == 0) {
		*out = (gid_t)id;
		return 0;
	}
	if (!account_name_valid(s))
		return -EINVAL;
	for (;;) {
		struct group gr, *res = NULL;
		buf = xrealloc(buf, size);
		int r = getgrnam_r(s, &gr, buf, size, &res);
		if (r == ERANGE && size < BUF_MAX) {
			size *= 2;
			continue;
		}
		if (!res)
			return -ENOENT;
		*out = gr.gr_gid;
		return 0;
	}
}

bool account_in_group(uid_t uid, gid_t gid)
{
	struct passwd pw;
	_cleanup_free_ char *buf = NULL;

	if (lookup_user(NULL, uid, &pw, &buf) < 0)
		return false;
	if (pw.pw_gid == gid)
		return true;
	int n = 64;
	for (int tries = 0; tries < 8; tries++) {
		_cleanup_free_ gid_t *groups = xcalloc((size_t)n, sizeof(gid_t));
		int got = n;
		if (getgrouplist(pw.pw_name, pw.pw_gid, groups, &got) < 0) {
			/* got holds the number needed. */
			n = got > n ? got : 2 * n;
			continue;
		}
		for (int i = 0; i < got; i++)
			if (groups[i] == gid)
				return true;
		return false;
	}
	return false;
}
