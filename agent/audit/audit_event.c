#include "audit_event.h"

#include <errno.h>
#include <string.h>

#include "blobstore.h"
#include "diff.h"
#include "hash.h"
#include "macro.h"

#define SCRIPT_MAX ((size_t)16 << 20)

static const struct {
	const char *name;
	const char *required[7];
} events[AUDIT_EVENT_COUNT] = {
	[AUDIT_EVENT_AGENT_START] = { "agent_start", { NULL } },
	[AUDIT_EVENT_AGENT_STOP] = { "agent_stop", { NULL } },
	[AUDIT_EVENT_CONFIG_LOADED] = { "config_loaded", { "config_sha256" } },
	[AUDIT_EVENT_JOB_ACCEPTED] = { "job_accepted", { "file", "sha256", "history" } },
	[AUDIT_EVENT_ASSESSMENT] = { "assessment", { "job", "level", "rejected" } },
	[AUDIT_EVENT_DECISION] = { "decision", { "job", "action", "by" } },
	[AUDIT_EVENT_APPROVAL] = { "approval", { "job", "file", "sha256", "uid", "explanation", "accepted", "consumed" } },
	[AUDIT_EVENT_OVERRIDE] = { "override", { "job", "file", "sha256", "uid", "explanation", "accepted", "consumed" } },
	[AUDIT_EVENT_EXECUTION] = { "execution", { "job", "verdict" } },
	[AUDIT_EVENT_SCRIPT_DIFF] = { "script_diff", { "job", "file", "previous_sha256", "sha256", "diff", "truncated" } },
	[AUDIT_EVENT_VERIFICATION] = { "verification", { "ok", "entries", "head", "checkpoint" } },
	[AUDIT_EVENT_TORN_TAIL] = { "audit_torn_tail", { "segment", "offset", "bytes", "quarantine" } },
	[AUDIT_EVENT_CHECKPOINT] = { "checkpoint", { "size", "root" } },
	[AUDIT_EVENT_INTAKE_REJECTED] = { "intake_rejected", { "file", "reason" } },
};

const char *audit_event_to_string(enum audit_event e)
{
	return e < AUDIT_EVENT_COUNT ? events[e].name : "unknown";
}

int audit_event_check(enum audit_event e, const json_t *fields, char **err)
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
	if (e == AUDIT_EVENT_APPROVAL || e == AUDIT_EVENT_OVERRIDE) {
		const json_t *accepted = json_object_get(fields, "accepted");
		if (!json_is_boolean(accepted) || !json_is_string(json_object_get(fields, "explanation")) ||
		    !json_is_string(json_object_get(fields, "consumed"))) {
			*err = xasprintf("audit event %s needs accepted (a boolean), explanation and "
					 "consumed (strings)", events[e].name);
			return -EINVAL;
		}
		/* A refused, empty override is recorded too; an accepted one says why. */
		const char *why = json_string_value(json_object_get(fields, "explanation"));
		if (e == AUDIT_EVENT_OVERRIDE && json_is_true(accepted) && !*why) {
			*err = xstrdup("audit event override needs a non-empty explanation when it is accepted");
			return -EINVAL;
		}
	}
	return 0;
}

int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err)
{
	int r = audit_event_check(e, fields, err);
	return r < 0 ? r : audit_append(log, events[e].name, fields, pos);
}

const char *audit_script_history_to_string(enum audit_script_history h)
{
	switch (h) {
	case AUDIT_SCRIPT_NEW: return "new";
	case AUDIT_SCRIPT_UNCHANGED: return "unchanged";
	case AUDIT_SCRIPT_CHANGED: return "changed";
	case AUDIT_SCRIPT_UNKNOWN: return "unknown";
	}
	return "unknown";
}

/* The script_diff fields of content against the stored version prev_hex
 * (but "file" and "job"). 0 or -errno with *err. */
static int diff_fields(struct blobstore *store, const char *name, const char *prev_hex,
		       const char *content, size_t len, size_t diff_max, json_t **fields, char **err)
{
	char new_hex[HASH_SHA256_HEX_LEN + 1];
	_cleanup_free_ char *prev = NULL;
	size_t plen = 0;
	int r = blobstore_get(store, prev_hex, SCRIPT_MAX, &prev, &plen, err);
	if (r < 0)
		return r;
	struct diff_options opts;
	struct diff_result d;
	hash_sha256_hex(content, len, new_hex);
	diff_options_init(&opts, name);
	opts.max_bytes = diff_max;
	diff_unified(prev, plen, content, len, &opts, &d);
	*fields = json_pack("{s:s, s:s, s:s%, s:b, s:b, s:I, s:I}", "previous_sha256",
			    prev_hex, "sha256", new_hex, "diff", d.text, d.len, "truncated", d.truncated,
			    "whole_replaced", d.capped, "lines_added", (json_int_t)d.lines_added,
			    "lines_removed", (json_int_t)d.lines_removed);
	if (!*fields) /* not UTF-8: the hashes still name both versions */
		*fields = json_pack("{s:s, s:s, s:s, s:b, s:s}", "previous_sha256",
				    prev_hex, "sha256", new_hex, "diff", "", "truncated", 1, "omitted",
				    "the script is not UTF-8 text");
	diff_result_clear(&d);
	return 0;
}

int audit_script_compare(const char *state_dir, const char *name, const char *content, size_t len,
			 size_t diff_max, enum audit_script_history *history, json_t **fields, char **err)
{
	struct blobstore *store = NULL;
	char prev_hex[HASH_SHA256_HEX_LEN + 1], new_hex[HASH_SHA256_HEX_LEN + 1];
	*fields = NULL;
	*history = AUDIT_SCRIPT_UNKNOWN;
	int r = blobstore_open(state_dir, &store, err);
	if (r < 0)
		return r;
	r = blobstore_previous(store, name, prev_hex, err);
	if (r == -ENOENT) {
		*history = AUDIT_SCRIPT_NEW;
		blobstore_free(store);
		return 0;
	}
	hash_sha256_hex(content, len, new_hex);
	if (r == 0 && strcmp(prev_hex, new_hex) == 0) {
		*history = AUDIT_SCRIPT_UNCHANGED;
	} else if (r == 0 && (r = diff_fields(store, name, prev_hex, content, len, diff_max, fields,
					      err)) == 0) {
		*history = AUDIT_SCRIPT_CHANGED;
	}
	blobstore_free(store);
	return r;
}

int audit_script_since_ran(const char *state_dir, const char *name, const char *content,
			   size_t len, size_t diff_max, json_t **fields, char **err)
{
	struct blobstore *store = NULL;
	char ran_hex[HASH_SHA256_HEX_LEN + 1];
	*fields = NULL;
	int r = blobstore_open(state_dir, &store, err);
	if (r < 0)
		return r;
	r = blobstore_last_ran(store, name, ran_hex, err);
	if (r == 0)
		r = diff_fields(store, name, ran_hex, content, len, diff_max, fields, err);
	blobstore_free(store);
	return r == -ENOENT && !*err ? 0 : r;
}

int audit_script_mark_ran(const char *state_dir, const char *name, const char *sha256, char **err)
{
	struct blobstore *store = NULL;
	int r = blobstore_open(state_dir, &store, err);
	if (r == 0)
		r = blobstore_mark_ran(store, name, sha256, err);
	blobstore_free(store);
	return r;
}

int audit_script_remember(const char *state_dir, const char *name, const char *content, size_t len,
			  char **err)
{
	struct blobstore *store = NULL;
	char hex[HASH_SHA256_HEX_LEN + 1];
	int r = blobstore_open(state_dir, &store, err);
	if (r == 0)
		r = blobstore_put(store, name, content, len, hex, err);
	blobstore_free(store);
	return r;
}
