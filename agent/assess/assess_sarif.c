/* SARIF 2.1.0 output of one or more assessments (one run, one result per
 * finding, the rules that fired in tool.driver.rules). */
#include <string.h>

#include "assess_sarif.h"

static const char *sarif_level(enum assess_severity s)
{
	return s >= ASSESS_SEV_HIGH ? "error" : s == ASSESS_SEV_MEDIUM ? "warning" : "note";
}

/* artifactLocation.uri is a URI reference: percent-encode what is not
 * unreserved, keeping '/'. */
static char *uri_encode(const char *path)
{
	size_t n = strlen(path), o = 0;
	char *out = xmalloc(n * 3 + 1);

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)path[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/", c)) {
			out[o++] = (char)c;
		} else {
			snprintf(out + o, 4, "%%%02X", c);
			o += 3;
		}
	}
	out[o] = '\0';
	return out;
}

void assess_sarif_init(struct assess_sarif *s)
{
	memset(s, 0, sizeof(*s));
	s->rules = json_array();
	s->results = json_array();
	s->notifications = json_array();
	s->rule_index = json_object();
}

static size_t rule_index(struct assess_sarif *s, const struct assess_finding *f)
{
	json_t *idx = json_object_get(s->rule_index, f->rule_id);
	if (idx)
		return (size_t)json_integer_value(idx);
	json_t *r = json_object(), *props = json_object();
	json_object_set_new(r, "id", json_string(f->rule_id));
	json_object_set_new(r, "shortDescription", json_pack("{s:s}", "text", f->message));
	json_object_set_new(r, "defaultConfiguration",
			    json_pack("{s:s}", "level", sarif_level(f->severity)));
	if (f->bandit_id)
		json_object_set_new(props, "bandit_id", json_string(f->bandit_id));
	if (f->cwe) {
		char *tag = xasprintf("CWE-%u", f->cwe);
		json_object_set_new(props, "tags", json_pack("[s]", tag));
		free(tag);
	}
	json_object_set_new(r, "properties", props);
	json_array_append_new(s->rules, r);
	size_t i = json_array_size(s->rules) - 1;
	json_object_set_new(s->rule_index, f->rule_id, json_integer((json_int_t)i));
	return i;
}

void assess_sarif_add(struct assess_sarif *s, const char *path, const struct assess_result *r)
{
	char *uri = uri_encode(path);

	for (size_t i = 0; i < r->n_findings; i++) {
		const struct assess_finding *f = &r->findings[i];
		size_t ri = rule_index(s, f);
		json_t *res = json_pack(
			"{s:s, s:I, s:s, s:{s:s}, s:[{s:{s:{s:s}, s:{s:I, s:I}}}], s:{s:s, s:s, s:f, s:s}}",
			"ruleId", f->rule_id, "ruleIndex", (json_int_t)ri, "level", sarif_level(f->severity),
			"message", "text", f->message,
			"locations", "physicalLocation", "artifactLocation", "uri", uri,
			"region", "startLine", (json_int_t)(f->line ? f->line : 1),
			"startColumn", (json_int_t)(f->col ? f->col : 1),
			"properties", "severity", assess_severity_to_string(f->severity),
			"confidence", assess_severity_to_string(f->confidence), "score", f->score,
			"source", f->source);
		if (f->bandit_id)
			json_object_set_new(json_object_get(res, "properties"), "bandit_id",
					    json_string(f->bandit_id));
		if (f->origin != ASSESS_ORIGIN_NONE) {
			/* In the message too: viewers show it, not the properties. */
			char *text = xasprintf("%s (arguments: %s)", f->message,
					       assess_origin_describe(f->origin));
			json_object_set_new(json_object_get(res, "message"), "text", json_string(text));
			json_object_set_new(json_object_get(res, "properties"), "origin",
					    json_string(assess_origin_to_string(f->origin)));
			free(text);
		}
		json_array_append_new(s->results, res);
	}
	if (r->rejection) {
		char *msg = xasprintf("%s: rejected at byte %zu: %s", path, r->rejection_offset,
				      r->rejection);
		json_array_append_new(s->notifications,
				      json_pack("{s:s, s:{s:s}}", "level", "error", "message", "text", msg));
		free(msg);
	}
	for (size_t i = 0; i < r->n_notes; i++)
		json_array_append_new(s->notifications,
				      json_pack("{s:s, s:{s:s}}", "level", "note", "message", "text",
						r->notes[i]));
	free(uri);
}

json_t *assess_sarif_finish(struct assess_sarif *s)
{
	json_t *driver = json_pack("{s:s, s:s, s:s, s:o}", "name", "mai-agent", "version", MAI_VERSION,
				   "informationUri", "https://example.invalid/mai-agent",
				   "rules", s->rules);
	json_t *inv = json_pack("{s:b, s:o}", "executionSuccessful", 1,
				"toolExecutionNotifications", s->notifications);
	json_t *doc = json_pack("{s:s, s:s, s:[{s:{s:o}, s:o, s:[o]}]}",
				"$schema", "https://json.schemastore.org/sarif-2.1.0.json",
				"version", "2.1.0", "runs", "tool", "driver", driver,
				"results", s->results, "invocations", inv);
	json_decref(s->rule_index);
	memset(s, 0, sizeof(*s));
	return doc;
}
