/* The audit log for the view, over the core library's reader and verifier.
 * See view_log.h. */
#include "view_log.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "audit_reader.h"
#include "audit_verify.h"
#include "log.h"
#include "macro.h"

struct view_log {
	char *dir;
	char *pubkey;
	/* One reader shared by all FUSE threads; the lock covers it. Records
	 * are immutable once written, so a record read under the lock stays
	 * right after it is released. */
	pthread_mutex_t lock;
	struct audit_reader *reader;
};

struct view_log *view_log_new(const char *log_dir, const char *pubkey_path)
{
	struct view_log *log = xcalloc(1, sizeof(*log));
	log->dir = xstrdup(log_dir);
	log->pubkey = pubkey_path ? xstrdup(pubkey_path) : NULL;
	pthread_mutex_init(&log->lock, NULL);
	return log;
}

void view_log_free(struct view_log *log)
{
	if (!log)
		return;
	if (log->reader)
		audit_reader_close(log->reader);
	pthread_mutex_destroy(&log->lock);
	free(log->dir);
	free(log->pubkey);
	free(log);
}

char *view_log_pubkey_path(const struct view_log *log)
{
	static const char *const names[] = VIEW_LOG_PUBKEY_NAMES;
	if (log->pubkey)
		return xstrdup(log->pubkey);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *path = xasprintf("%s/%s", log->dir, names[i]);
		if (access(path, F_OK) == 0)
			return path;
		free(path);
	}
	return xasprintf("%s/%s", log->dir, names[0]);
}

const char *view_log_dir(const struct view_log *log)
{
	return log->dir;
}

/* With the lock held: opens the reader when it is not open yet, or brings
 * it up to date. */
static int reader_ready(struct view_log *log, bool refresh, char **err)
{
	if (!log->reader) {
		char *why = NULL;
		int r = audit_reader_open(log->dir, &log->reader, &why);
		if (r < 0) {
			*err = xasprintf("cannot open the audit log in %s: %s", log->dir,
					 why ? why : strerror(-r));
			free(why);
			log->reader = NULL;
			return r;
		}
		return 0;
	}
	if (refresh) {
		int r = audit_reader_refresh(log->reader);
		if (r < 0) {
			*err = xasprintf("cannot re-read the audit log in %s: %s", log->dir,
					 strerror(-r));
			/* Start afresh next time: a rotation may have moved segments. */
			audit_reader_close(log->reader);
			log->reader = NULL;
			return r;
		}
	}
	return 0;
}

int view_log_range(struct view_log *log, bool refresh, uint64_t *first, uint64_t *count,
		   char **err)
{
	*err = NULL;
	pthread_mutex_lock(&log->lock);
	int r = reader_ready(log, refresh, err);
	if (r == 0) {
		*first = audit_reader_first(log->reader);
		*count = audit_reader_count(log->reader);
	}
	pthread_mutex_unlock(&log->lock);
	return r;
}

/* Copies len bytes and appends a newline unless the text has one or is
 * empty. */
static void with_newline(const char *s, size_t n, char **text, size_t *len)
{
	bool nl = n == 0 || s[n - 1] == '\n';
	char *out = xmalloc(n + 2);
	memcpy(out, s, n);
	if (!nl)
		out[n++] = '\n';
	out[n] = '\0';
	*text = out;
	*len = n;
}

int view_log_entry(struct view_log *log, uint64_t seq, char **text, size_t *len, char **err)
{
	*err = NULL;
	pthread_mutex_lock(&log->lock);
	int r = reader_ready(log, false, err);
	if (r == 0 && seq >= audit_reader_count(log->reader))
		r = reader_ready(log, true, err);
	if (r == 0) {
		char *rec = NULL;
		size_t n = 0;
		r = audit_reader_get_json(log->reader, seq, &rec, &n);
		if (r == 0) {
			with_newline(rec, n, text, len);
			free(rec);
		} else if (r != -ENOENT) {
			*err = xasprintf("cannot read record %llu of the audit log in %s: %s",
					 (unsigned long long)seq, log->dir, strerror(-r));
		}
	}
	pthread_mutex_unlock(&log->lock);
	return r;
}

int view_log_head(struct view_log *log, char **text, size_t *len, char **err)
{
	*err = NULL;
	char hex[65];
	pthread_mutex_lock(&log->lock);
	int r = reader_ready(log, true, err);
	if (r == 0) {
		r = audit_reader_head_hex(log->reader, hex);
		if (r < 0)
			*err = xasprintf("cannot read the head of the audit log in %s: %s",
					 log->dir, strerror(-r));
	}
	pthread_mutex_unlock(&log->lock);
	if (r == 0)
		with_newline(hex, strnlen(hex, 64), text, len);
	return r;
}

int view_log_checkpoint(struct view_log *log, char **text, size_t *len, char **err)
{
	*err = NULL;
	char *ckpt = NULL;
	pthread_mutex_lock(&log->lock);
	int r = reader_ready(log, true, err);
	if (r == 0) {
		r = audit_reader_checkpoint(log->reader, &ckpt);
		if (r < 0)
			*err = xasprintf("cannot read the checkpoint of the audit log in %s: %s",
					 log->dir, strerror(-r));
	}
	pthread_mutex_unlock(&log->lock);
	if (r == 0) {
		with_newline(ckpt, strlen(ckpt), text, len);
		free(ckpt);
	}
	return r;
}

void view_log_verify(struct view_log *log, bool json, char **text, size_t *len)
{
	/* The verifier opens the log itself and shares nothing with the reader:
	 * no lock, so that a slow verification does not hold up entries/. */
	struct audit_verify_report rep;
	_cleanup_free_ char *pubkey = view_log_pubkey_path(log);
	memset(&rep, 0, sizeof(rep));
	int r = audit_verify_log(log->dir, pubkey, &rep);
	if (r < 0 && !rep.reason) {
		/* Not even read: no sequence number to blame. */
		_cleanup_free_ char *why = xasprintf("cannot read the audit log in %s: %s; check "
						     "--state-dir or --log-dir", log->dir,
						     strerror(-r));
		if (json) {
			json_t *j = json_pack("{s:b, s:s, s:s}", "ok", 0, "log_dir", log->dir,
					      "reason", why);
			char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
			json_decref(j);
			if (!s)
				abort(); /* only on allocation failure, as xmalloc */
			with_newline(s, strlen(s), text, len);
			free(s);
		} else {
			*text = xasprintf("FAIL %s\n", why);
			*len = strlen(*text);
		}
		audit_verify_report_clear(&rep);
		return;
	}
	if (json) {
		json_t *j = audit_verify_report_json(&rep);
		char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
		if (!s)
			abort(); /* jansson fails only on allocation: same policy as xmalloc */
		with_newline(s, strlen(s), text, len);
		free(s);
		json_decref(j);
	} else {
		char *line = audit_verify_report_line(&rep);
		with_newline(line, strlen(line), text, len);
		free(line);
	}
	audit_verify_report_clear(&rep);
}
