#include "audit_event.h"

#include <errno.h>
#include <string.h>

#include "diff.h"
#include "fileio.h"
#include "hash.h"
#include "macro.h"

#define SCRIPT_MAX ((size_t)16 << 20)

static const struct {
	const char *name;
	const char *required[5];
} events[AUDIT_EVENT_COUNT] = {
	[AUDIT_EVENT_AGENT_START] = { "agent_start", { NULL } },
	[AUDIT_EVENT_AGENT_STOP] = { "agent_stop", { NULL } },
	[AUDIT_EVENT_CONFIG_LOADED] = { "config_loaded", { "config_sha256" } },
	[AUDIT_EVENT_JOB_ACCEPTED] = { "job_accepted", { "job", "file", "sha256" } },
	[AUDIT_EVENT_ASSESSMENT] = { "assessment", { "job", "level", "score", "findings" } },
	[AUDIT_EVENT_DECISION] = { "decision", { "job", "decision", "by" } },
	[AUDIT_EVENT_APPROVAL] = { "approval", { "job", "explanation", "uid" } },
	[AUDIT_EVENT_OVERRIDE] = { "override", { "job", "explanation", "uid" } },
	[AUDIT_EVENT_EXECUTION] = { "execution", { "job", "verdict", "usage", "limits" } },
	[AUDIT_EVENT_SCRIPT_DIFF] = { "script_diff", { "file", "previous_sha256", "sha256", "diff", "truncated" } },
	[AUDIT_EVENT_VERIFICATION] = { "verification", { "ok", "entries", "head", "checkpoint" } },
	[AUDIT_EVENT_TORN_TAIL] = { "audit_torn_tail", { "segment", "offset", "bytes", "quarantine" } },
};

const char *audit_event_to_string(enum audit_event e)
{
	return e < AUDIT_EVENT_COUNT ? events[e].name : "unknown";
}

int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err)
{
	if (e >= AUDIT_EVENT_COUNT) {
		*err = xstrdup("unknown audit event type");
		return -EINVAL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(events[e].required) && events[e].required[i]; i++) {
		if (!fields || !json_object_get(fields, events[e].required[i])) {
			*err = xasprintf("audit event %s needs the field \"%s\"", events[e].name, events[e].required[i]);
			return -EINVAL;
		}
	}
	if (e == AUDIT_EVENT_OVERRIDE) {
		const char *why = json_string_value(json_object_get(fields, "explanation"));
		if (!why || !*why) {
			*err = xstrdup("audit event override needs a non-empty explanation");
			return -EINVAL;
		}
	}
	return audit_append(log, events[e].name, fields, pos);
}

int audit_script_history(const char *state_dir, const char *name, const char *content, size_t len,
			 size_t diff_max, json_t **fields, char **err)
{
	char sha[HASH_SHA256_HEX_LEN + 1], name_sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(content, len, sha);
	hash_sha256_hex(name, strlen(name), name_sha);
	_cleanup_free_ char *objects = xasprintf("%s/scripts/objects", state_dir);
	_cleanup_free_ char *names = xasprintf("%s/scripts/names", state_dir);
	_cleanup_free_ char *obj = xasprintf("%s/%s", objects, sha), *ptr = xasprintf("%s/%s", names, name_sha);
	*fields = NULL;
	int r = fileio_mkdir_p(objects, 0700);
	if (r == 0)
		r = fileio_mkdir_p(names, 0700);
	if (r < 0) {
		*err = xasprintf("%s/scripts: cannot create the script store: %s", state_dir, strerror(-r));
		return r;
	}
	_cleanup_free_ char *prev_sha = NULL, *prev = NULL;
	size_t plen = 0;
	if (fileio_read_path(ptr, 256, &prev_sha, &plen) == 0) {
		prev_sha[strcspn(prev_sha, "\n")] = '\0';
		_cleanup_free_ char *prev_obj = xasprintf("%s/%s", objects, prev_sha);
		if (strlen(prev_sha) == HASH_SHA256_HEX_LEN && strcmp(prev_sha, sha) != 0 &&
		    fileio_read_path(prev_obj, SCRIPT_MAX, &prev, &plen) == 0) {
			int truncated = 0;
			_cleanup_free_ char *d = diff_unified(name, prev, plen, content, len, diff_max, &truncated);
			*fields = json_pack("{s:s, s:s, s:s, s:s, s:b}", "file", name, "previous_sha256", prev_sha,
					    "sha256", sha, "diff", d, "truncated", truncated);
		}
	}
	if (access(obj, F_OK) != 0 && (r = fileio_write_atomic(obj, content, len, 0600)) < 0) {
		*err = xasprintf("%s: cannot store the script: %s", obj, strerror(-r));
		json_decref(*fields);
		*fields = NULL;
		return r;
	}
	_cleanup_free_ char *line = xasprintf("%s\n", sha);
	if ((r = fileio_write_atomic(ptr, line, strlen(line), 0600)) < 0) {
		*err = xasprintf("%s: cannot record the latest version of %s: %s", ptr, name, strerror(-r));
		json_decref(*fields);
		*fields = NULL;
		return r;
	}
	return 0;
}
