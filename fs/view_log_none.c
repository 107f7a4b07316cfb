/* The view in a build that does not have the audit library yet (it comes
 * with issue #5 [audit]): every log file answers with a message saying so,
 * and verify says FAIL rather than pretend. Dropped once the library lands. */
#include "view_log.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "macro.h"

#define NO_AUDIT "this build of maiaudit has no audit library (it comes with issue #5 [audit]); rebuild after merging it"

struct view_log {
	char *dir;
	char *pubkey;
};

bool view_log_available(void) { return false; }

struct view_log *view_log_new(const char *log_dir, const char *pubkey_path)
{
	struct view_log *log = xcalloc(1, sizeof(*log));
	log->dir = xstrdup(log_dir);
	log->pubkey = xstrdup(pubkey_path ? pubkey_path : "");
	return log;
}

void view_log_free(struct view_log *log)
{
	if (!log)
		return;
	free(log->dir);
	free(log->pubkey);
	free(log);
}

char *view_log_pubkey_path(const struct view_log *log)
{
	return log->pubkey[0] ? xstrdup(log->pubkey) : xasprintf("%s/audit.pub", log->dir);
}
const char *view_log_dir(const struct view_log *log) { return log->dir; }

int view_log_range(struct view_log *log, bool refresh, uint64_t *first, uint64_t *count,
		   char **err)
{
	*err = xstrdup(NO_AUDIT);
	return -ENOSYS;
}

int view_log_entry(struct view_log *log, uint64_t seq, char **text, size_t *len, char **err)
{
	*err = xstrdup(NO_AUDIT);
	return -ENOSYS;
}

int view_log_head(struct view_log *log, char **text, size_t *len, char **err)
{
	*err = xstrdup(NO_AUDIT);
	return -ENOSYS;
}

int view_log_checkpoint(struct view_log *log, char **text, size_t *len, char **err)
{
	*err = xstrdup(NO_AUDIT);
	return -ENOSYS;
}

void view_log_verify(struct view_log *log, bool json, char **text, size_t *len)
{
	if (json) {
		json_t *j = json_pack("{s:b, s:s}", "ok", 0, "reason", NO_AUDIT);
		char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
		json_decref(j);
		*text = xasprintf("%s\n", s);
		free(s);
	} else {
		*text = xstrdup("FAIL " NO_AUDIT "\n");
	}
	*len = strlen(*text);
}
