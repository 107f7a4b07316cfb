#include "audit_event.h"

#include <errno.h>
#include <string.h>

#include "audit_format.h"
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
	[AUDIT_EVENT_JOB_ACCEPTED] = { "job_accepted", { "file", "sha256", "history", "uid", "writer" } },
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
	[AUDIT_EVENT_RETRY] = { "retry", { "job", "attempt", "reason" } },
	[AUDIT_EVENT_MOVED_ASIDE] = { "moved_aside", { "file", "moved_to", "what", "script" } },
	[AUDIT_EVENT_ANSWER_RESTORED] = { "answer_restored", { "file", "sha256", "sidecars", "placed" } },
	[AUDIT_EVENT_ENGINE_NODES] = { "engine_nodes", { "name", "host", "nodes" } },
	[AUDIT_EVENT_RENAMED] = { "renamed", { "file", "from", "uid", "renamed_by", "author" } },
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
	if (e == AUDIT_EVENT_JOB_ACCEPTED) {
		const json_t *w = json_object_get(fields, "writer");
		if (!json_is_object(w) || !json_is_integer(json_object_get(w, "uid")) ||
		    !json_is_integer(json_object_get(w, "gid")) ||
		    !json_is_string(json_object_get(w, "from"))) {
			*err = xstrdup("audit event job_accepted needs writer {uid, gid (integers), "
				       "from (a string)}");
			return -EINVAL;
		}
	}
	if (e == AUDIT_EVENT_RENAMED) {
		const json_t *a = json_object_get(fields, "author");
		if (!json_is_object(json_object_get(fields, "renamed_by")) || !json_is_object(a) ||
		    !json_is_integer(json_object_get(a, "uid")) ||
		    !json_is_integer(json_object_get(fields, "uid"))) {
			*err = xstrdup("audit event renamed needs uid (an integer), renamed_by and "
				       "author {uid} (objects)");
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

/* The largest part of json that can be cut (a string of 1 KiB or more, an
 * array of two or more items), its path (dotted) and encoded size. */
struct part {
	json_t *parent;   /* object or array that holds it */
	const char *key;  /* in an object */
	size_t index;     /* in an array */
	json_t *value;
	char *path;
	size_t size;
};

/* Where a value sits, built into a dotted path only for the one chosen. */
struct where {
	const struct where *up;
	const char *key;  /* NULL: index */
	size_t index;
};

static char *where_path(const struct where *w)
{
	if (!w || (!w->up && !w->key))
		return xstrdup("");
	_cleanup_free_ char *up = where_path(w->up);
	const char *dot = *up ? "." : "";
	return w->key ? xasprintf("%s%s%s", up, dot, w->key) : xasprintf("%s%s%zu", up, dot, w->index);
}

static void largest_part(json_t *parent, const struct where *w, json_t *value, struct part *best)
{
	size_t size = 0;
	if ((json_is_string(value) && json_string_length(value) >= 1024) ||
	    (json_is_array(value) && json_array_size(value) >= 2))
		size = audit_canonical_size(value);
	if (size > best->size) {
		free(best->path);
		*best = (struct part){ parent, w->key, w->index, value, where_path(w), size };
	}
	const char *k;
	json_t *v;
	size_t i;
	if (json_is_object(value)) {
		json_object_foreach(value, k, v) {
			struct where sub = { w, k, 0 };
			largest_part(value, &sub, v, best);
		}
	} else if (json_is_array(value)) {
		json_array_foreach(value, i, v) {
			struct where sub = { w, NULL, i };
			largest_part(value, &sub, v, best);
		}
	}
}

/* Cuts part down by about shrink encoded bytes: a string to a shorter
 * prefix (whole UTF-8 characters), an array to its first items. Says so in
 * cuts[path]: the original length and what is kept. */
static void cut_part(struct part *p, size_t shrink, json_t *cuts)
{
	json_t *said = json_object_get(cuts, p->path), *now;
	if (json_is_string(p->value)) {
		const char *s = json_string_value(p->value);
		size_t len = json_string_length(p->value);
		/* Escaping makes a byte take up to six: cut in proportion. */
		size_t keep = shrink >= p->size ? 0 : (size_t)((double)len * (double)(p->size - shrink) / (double)p->size);
		while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
			keep--;
		if (!said)
			json_object_set_new(cuts, p->path, json_pack("{s:I}", "bytes", (json_int_t)len));
		now = json_stringn(s, keep);
		json_object_set_new(json_object_get(cuts, p->path), "kept", json_integer((json_int_t)keep));
	} else {
		size_t n = json_array_size(p->value);
		size_t drop = (size_t)((double)n * (double)shrink / (double)p->size) + 1;
		size_t keep = drop >= n ? 0 : n - drop;
		if (!said)
			json_object_set_new(cuts, p->path, json_pack("{s:I}", "items", (json_int_t)n));
		now = json_array();
		for (size_t i = 0; i < keep; i++)
			json_array_append(now, json_array_get(p->value, i));
		json_object_set_new(json_object_get(cuts, p->path), "kept", json_integer((json_int_t)keep));
	}
	if (p->key)
		json_object_set_new(p->parent, p->key, now);
	else
		json_array_set_new(p->parent, p->index, now);
}

json_t *audit_event_fit(enum audit_event e, const json_t *fields, size_t max)
{
	json_t *fit = json_deep_copy(fields), *cuts = json_object();
	/* What saying so adds, with room to spare. */
	const size_t note = 4096;
	for (int round = 0; round < 16; round++) {
		size_t size = audit_canonical_size(fit) + note + 64 * json_object_size(cuts);
		if (size <= max)
			break;
		struct part p = { 0 };
		struct where top = { NULL, NULL, 0 };
		largest_part(NULL, &top, fit, &p);
		if (!p.value || !p.parent) {
			free(p.path);
			break;
		}
		cut_part(&p, size - max + 1024, cuts);
		free(p.path);
	}
	if (audit_canonical_size(fit) + note + 64 * json_object_size(cuts) > max) {
		/* Nothing left to cut that would do: the fields the type needs. */
		json_t *bare = json_object();
		for (size_t i = 0; e < AUDIT_EVENT_COUNT && i < ARRAY_SIZE(events[e].required) && events[e].required[i]; i++) {
			json_t *v = json_object_get(fit, events[e].required[i]);
			if (v && audit_canonical_size(v) < 4096)
				json_object_set(bare, events[e].required[i], v);
		}
		json_decref(fit);
		fit = bare;
		json_decref(cuts);
		cuts = json_string("the fields were too large for one record; only those its type needs are kept");
	}
	json_object_set_new(fit, "cut", cuts);
	json_object_set_new(fit, "record_max", json_integer((json_int_t)AUDIT_RECORD_MAX));
	return fit;
}

static int event_append(struct audit_log *log, enum audit_event e, json_t *fields, bool wait,
			struct audit_position *pos, char **err)
{
	int (*add)(struct audit_log *, const char *, json_t *, struct audit_position *) =
		wait ? audit_append : audit_append_queued;
	int r = audit_event_check(e, fields, err);
	if (r < 0)
		return r;
	/* Fields that cannot fit are not encoded first (under the log's lock)
	 * only to learn that. */
	if (audit_canonical_size(fields) <= AUDIT_RECORD_MAX) {
		r = add(log, events[e].name, fields, pos);
		if (r != -EMSGSIZE)
			return r;
	}
	/* Too large for one record: the largest parts (an output, findings, a
	 * diff) are cut, and the record says which and how much. */
	json_t *fit = audit_event_fit(e, fields, AUDIT_RECORD_MAX - 1024);
	r = add(log, events[e].name, fit, pos);
	json_decref(fit);
	return r;
}

int audit_event_append(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		       char **err)
{
	return event_append(log, e, fields, true, pos, err);
}

int audit_event_queue(struct audit_log *log, enum audit_event e, json_t *fields, struct audit_position *pos,
		      char **err)
{
	return event_append(log, e, fields, false, pos, err);
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
