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
	struct blobstore *store = NULL;
	char prev_hex[HASH_SHA256_HEX_LEN + 1], new_hex[HASH_SHA256_HEX_LEN + 1];
	_cleanup_free_ char *prev = NULL;
	size_t plen = 0;
	*fields = NULL;
	int r = blobstore_open(state_dir, &store, err);
	if (r < 0)
		return r;
	r = blobstore_previous(store, name, prev_hex, err);
	int have_prev = r == 0;
	if (r == -ENOENT)
		r = 0;
	/* The previous version is read before the new one replaces it as latest. */
	if (r == 0 && have_prev && (r = blobstore_get(store, prev_hex, SCRIPT_MAX, &prev, &plen, err)) < 0)
		have_prev = 0;
	if (r == 0)
		r = blobstore_put(store, name, content, len, new_hex, err);
	if (r == 0 && have_prev && strcmp(prev_hex, new_hex) != 0) {
		struct diff_options opts;
		struct diff_result d;
		diff_options_init(&opts, name);
		opts.max_bytes = diff_max;
		diff_unified(prev, plen, content, len, &opts, &d);
		*fields = json_pack("{s:s, s:s, s:s, s:s%, s:b, s:I, s:I}", "file", name, "previous_sha256", prev_hex,
				    "sha256", new_hex, "diff", d.text, d.len, "truncated", d.truncated || d.capped,
				    "lines_added", (json_int_t)d.lines_added, "lines_removed",
				    (json_int_t)d.lines_removed);
		diff_result_clear(&d);
	}
	blobstore_free(store);
	return r;
}
