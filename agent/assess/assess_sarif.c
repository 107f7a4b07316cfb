/* SARIF 2.1.0 output of one or more assessments (assess_sarif.h).
 *
 * Code scanning reads a log as follows, and each choice here answers one of
 * its needs: a rule needs a name, a full description and help (it shows them
 * beside every alert), the `security` tag and a `security-severity` (without
 * them an alert counts as code quality); a result needs a full region and a
 * fingerprint that survives edits elsewhere in the file (else an alert is
 * closed and opened again at every commit that moves its line); an artifact
 * needs a path relative to a base (an absolute path is meaningless in a
 * repository); and what it ignores (notifications) must not be the only
 * trace of a file that was not assessed. */
#include <ctype.h>
#include <string.h>

#include "assess_rule_doc.h"
#include "assess_sarif.h"
#include "hash.h"

#define SRCROOT "SRCROOT"
/* A source line longer than this is not quoted in contextRegion. */
#define SNIPPET_MAX 1000u

/* The results about a file rather than about its code. */
#define RULE_REJECTED "MAI900"
#define RULE_UNREADABLE "MAI901"

static const char *const tool_name[ASSESS_SARIF_TOOLS] = { "mai-agent", "Bandit", "Semgrep" };
/* The agent's documentation is its manual page, installed with it. */
static const char *const tool_uri[ASSESS_SARIF_TOOLS] = {
	"man:mai-agent(1)", "https://bandit.readthedocs.io/", "https://semgrep.dev/",
};

static const char *sarif_level(enum assess_severity s)
{
	return s >= ASSESS_SEV_HIGH ? "error" : s == ASSESS_SEV_MEDIUM ? "warning" : "note";
}

/* GitHub's scale: 9.0 and above critical, 7.0 high, 4.0 medium, else low. */
static const char *security_severity(enum assess_severity s)
{
	return s >= ASSESS_SEV_CRITICAL ? "9.5" : s == ASSESS_SEV_HIGH ? "8.0"
						: s == ASSESS_SEV_MEDIUM ? "5.5" : "3.0";
}

static const char *precision(enum assess_severity confidence)
{
	return confidence >= ASSESS_SEV_HIGH ? "high" : confidence == ASSESS_SEV_MEDIUM ? "medium" : "low";
}

static enum assess_sarif_tool tool_of(const struct assess_finding *f)
{
	if (f->source && !strcmp(f->source, "bandit"))
		return ASSESS_SARIF_BANDIT;
	if (f->source && !strcmp(f->source, "semgrep"))
		return ASSESS_SARIF_SEMGREP;
	return ASSESS_SARIF_NATIVE;
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

/* path made absolute against base (which ends with '/') with "." and ".."
 * segments resolved by name, as a reader of the log would resolve them. */
static char *absolute_path(const char *base, const char *path)
{
	char *joined = path[0] == '/' ? xstrdup(path) : xasprintf("%s%s", base, path);
	size_t n = strlen(joined), o = 0;
	char *out = xmalloc(n + 2);

	for (size_t i = 0; i < n;) {
		while (i < n && joined[i] == '/')
			i++;
		size_t start = i;
		while (i < n && joined[i] != '/')
			i++;
		size_t len = i - start;
		if (len == 0 || (len == 1 && joined[start] == '.'))
			continue;
		if (len == 2 && joined[start] == '.' && joined[start + 1] == '.') {
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;
			continue;
		}
		out[o++] = '/';
		memcpy(out + o, joined + start, len);
		o += len;
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(joined);
	return out;
}

/* {uri, uriBaseId} relative to SRCROOT when the file is below it, else an
 * absolute file: URI. */
static json_t *artifact_location(const struct assess_sarif *s, const char *path)
{
	char *abs = absolute_path(s->base, path);
	size_t bl = strlen(s->base);
	json_t *loc;

	if (!strncmp(abs, s->base, bl) && abs[bl]) {
		char *uri = uri_encode(abs + bl);
		loc = json_pack("{s:s, s:s}", "uri", uri, "uriBaseId", SRCROOT);
		free(uri);
	} else {
		char *enc = uri_encode(abs), *uri = xasprintf("file://%s", enc);
		loc = json_pack("{s:s}", "uri", uri);
		free(enc);
		free(uri);
	}
	free(abs);
	return loc;
}

/* s as a sentence: with a final period. */
static char *sentence(const char *s)
{
	size_t n = strlen(s);
	return n && strchr(".!?", s[n - 1]) ? xstrdup(s) : xasprintf("%s.", s);
}

/* Text for a markdown paragraph: the characters markdown would read as
 * markup (os.exec*, __subclasses__) are escaped. */
static char *markdown_escape(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++) {
		if (strchr("\\`*_{}[]<>#|", s[i]))
			out[o++] = '\\';
		out[o++] = s[i];
	}
	out[o] = '\0';
	return out;
}

/* SARIF's friendly name: one Pascal-case word made of the last part of a
 * dotted id or of a name in words ("subprocess-shell-true" ->
 * "SubprocessShellTrue"). NULL when that is the id itself (Bandit's "B602"),
 * since a name equal to the id must be left out. */
static char *friendly_name(const char *id, const char *name)
{
	const char *dot = strrchr(name, '.');
	const char *p = dot && dot[1] ? dot + 1 : name;
	char *out = xmalloc(strlen(p) + 1);
	size_t o = 0;
	int upper = 1;

	for (; *p; p++) {
		if (!isalnum((unsigned char)*p)) {
			upper = 1;
			continue;
		}
		out[o++] = upper ? (char)toupper((unsigned char)*p) : *p;
		upper = 0;
	}
	out[o] = '\0';
	if (o == 0 || !strcmp(out, id)) {
		free(out);
		return NULL;
	}
	return out;
}

struct rule_text {
	const char *id, *name, *short_text, *full, *remedy;
	enum assess_severity severity, confidence;
	unsigned cwe;
	const char *bandit_id;
	int security; /* a security rule (tags, security-severity) */
};

/* help.text and help.markdown: the description, what to do, then the facts
 * (severity, confidence, CWE, the Bandit test of the same check). */
static void rule_help(const struct rule_text *t, const char *full, char **text, char **markdown)
{
	const char *cwe_name = t->cwe ? assess_cwe_name(t->cwe) : NULL;
	const char *sev = assess_severity_to_string(t->severity);
	const char *conf = assess_severity_to_string(t->confidence);
	size_t size;
	FILE *f = open_memstream(text, &size);

	if (!f)
		abort(); /* out of memory: the xmalloc policy */
	fprintf(f, "%s\n\n%s\n\nSeverity %s, confidence %s.", full, t->remedy, sev, conf);
	if (t->cwe)
		fprintf(f, " CWE-%u%s%s.", t->cwe, cwe_name ? ": " : "", cwe_name ? cwe_name : "");
	if (t->bandit_id)
		fprintf(f, " The same check as Bandit's %s.", t->bandit_id);
	fclose(f);

	_cleanup_free_ char *full_md = markdown_escape(full), *remedy_md = markdown_escape(t->remedy);
	_cleanup_free_ char *cwe_md = cwe_name ? markdown_escape(cwe_name) : NULL;
	f = open_memstream(markdown, &size);
	if (!f)
		abort();
	fprintf(f, "%s\n\n**What to do:** %s\n\n- Severity: %s, confidence: %s\n", full_md,
		remedy_md, sev, conf);
	if (t->cwe)
		fprintf(f, "- [CWE-%u](https://cwe.mitre.org/data/definitions/%u.html)%s%s\n", t->cwe,
			t->cwe, cwe_md ? ": " : "", cwe_md ? cwe_md : "");
	if (t->bandit_id)
		fprintf(f, "- The same check as Bandit's %s\n", t->bandit_id);
	fclose(f);
}

static json_t *rule_descriptor(const struct rule_text *t)
{
	_cleanup_free_ char *shortd = sentence(t->short_text), *full = sentence(t->full);
	_cleanup_free_ char *help = NULL, *help_md = NULL;
	_cleanup_free_ char *name = friendly_name(t->id, t->name);
	json_t *props = json_object(), *tags = json_array();

	rule_help(t, full, &help, &help_md);
	if (t->security) {
		json_array_append_new(tags, json_string("security"));
		json_object_set_new(props, "security-severity",
				    json_string(security_severity(t->severity)));
	}
	if (t->cwe) {
		char *tag = xasprintf("external/cwe/cwe-%03u", t->cwe);
		json_array_append_new(tags, json_string(tag));
		free(tag);
	}
	json_object_set_new(props, "tags", tags);
	json_object_set_new(props, "precision", json_string(precision(t->confidence)));
	if (t->bandit_id)
		json_object_set_new(props, "bandit_id", json_string(t->bandit_id));
	json_t *r = json_pack("{s:s, s:{s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:s}, s:o}",
			      "id", t->id, "shortDescription", "text", shortd,
			      "fullDescription", "text", full, "help", "text", help, "markdown", help_md,
			      "defaultConfiguration", "level", sarif_level(t->severity),
			      "properties", props);
	if (name)
		json_object_set_new(r, "name", json_string(name));
	if (t->cwe) {
		char *url = xasprintf("https://cwe.mitre.org/data/definitions/%u.html", t->cwe);
		json_object_set_new(r, "helpUri", json_string(url));
		free(url);
	}
	return r;
}

/* The index of the rule in its run, adding its descriptor at first use. */
static size_t rule_index(struct assess_sarif_run *run, const char *id, const struct rule_text *t)
{
	json_t *idx = json_object_get(run->rule_index, id);
	if (idx)
		return (size_t)json_integer_value(idx);
	json_array_append_new(run->rules, rule_descriptor(t));
	size_t i = json_array_size(run->rules) - 1;
	json_object_set_new(run->rule_index, id, json_integer((json_int_t)i));
	return i;
}

static size_t finding_rule_index(struct assess_sarif_run *run, enum assess_sarif_tool tool,
				 const struct assess_finding *f)
{
	static const char *const remedy[ASSESS_SARIF_TOOLS] = {
		"A rule of security.yaml. Read what the line does before the script runs: a HIGH script waits for 'mai-agent approve', a BLOCKED one for 'mai-agent override --reason'.",
		"Reported by Bandit; its documentation of the test says more. Read what the line does before the script runs.",
		"Reported by Semgrep; the rule's documentation says more. Read what the line does before the script runs.",
	};
	const struct assess_rule_doc *doc = tool == ASSESS_SARIF_NATIVE ? assess_rule_doc_find(f->rule_id)
									: NULL;
	struct rule_text t = {
		.id = f->rule_id, .name = doc ? doc->name : f->rule_id,
		.short_text = f->message, .full = doc ? doc->description : f->message,
		.remedy = doc ? doc->remedy : remedy[tool], .severity = f->severity,
		.confidence = f->confidence, .cwe = f->cwe, .security = 1,
		.bandit_id = tool == ASSESS_SARIF_NATIVE ? f->bandit_id : NULL,
	};
	return rule_index(run, f->rule_id, &t);
}

/* Walks the snapshot's lines forward; findings come sorted by line. */
struct source {
	const char *data;
	size_t len, off; /* off: start of line `line` */
	unsigned line;
};

/* The bytes of line `line` (1-based, without its end of line); -1 past the end. */
static int source_line(struct source *src, unsigned line, const char **start, size_t *n)
{
	if (!src->data || line == 0)
		return -1;
	if (line < src->line) {
		src->off = 0;
		src->line = 1;
	}
	while (src->line < line) {
		const char *nl = memchr(src->data + src->off, '\n', src->len - src->off);
		if (!nl)
			return -1;
		src->off = (size_t)(nl - src->data) + 1;
		src->line++;
	}
	const char *p = src->data + src->off;
	const char *nl = memchr(p, '\n', src->len - src->off);
	size_t k = nl ? (size_t)(nl - p) : src->len - src->off;
	if (k > 0 && p[k - 1] == '\r')
		k--;
	*start = p;
	*n = k;
	return 0;
}

/* Byte offset of the col-th code point (1-based) of a line; n when past it. */
static size_t byte_of_column(const char *p, size_t n, unsigned col)
{
	size_t b = 0;
	for (unsigned c = 1; c < col && b < n; c++)
		for (b++; b < n && ((unsigned char)p[b] & 0xC0) == 0x80; b++)
			;
	return b;
}

static unsigned code_points(const char *p, size_t n)
{
	unsigned c = 0;
	for (size_t i = 0; i < n; i++)
		c += ((unsigned char)p[i] & 0xC0) != 0x80;
	return c;
}

static int is_name_byte(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '.' || c >= 0x80;
}

/* The region of a finding: from its column over the (dotted) name there,
 * with the name and the whole line as snippets; just the line when the
 * snapshot has no such place. *context gets the line's region or NULL. */
static json_t *finding_region(struct source *src, unsigned line, unsigned col, json_t **context)
{
	const char *p;
	size_t n;

	*context = NULL;
	if (line == 0)
		line = 1;
	if (col == 0)
		col = 1;
	if (source_line(src, line, &p, &n) < 0)
		return json_pack("{s:I}", "startLine", (json_int_t)line);
	size_t b = byte_of_column(p, n, col), e = b;
	if (b >= n)
		return json_pack("{s:I}", "startLine", (json_int_t)line);
	while (e < n && is_name_byte((unsigned char)p[e]))
		e++;
	while (e > b + 1 && p[e - 1] == '.')
		e--;
	if (e == b) /* not a name: the one character there */
		for (e++; e < n && ((unsigned char)p[e] & 0xC0) == 0x80; e++)
			;
	json_t *region = json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)line,
				   "startColumn", (json_int_t)col, "endLine", (json_int_t)line,
				   "endColumn", (json_int_t)(col + code_points(p + b, e - b)));
	json_t *snippet = json_stringn(p + b, e - b);
	if (snippet)
		json_object_set_new(region, "snippet", json_pack("{s:o}", "text", snippet));
	json_t *text = n <= SNIPPET_MAX ? json_stringn(p, n) : NULL;
	if (text)
		*context = json_pack("{s:I, s:I, s:{s:o}}", "startLine", (json_int_t)line,
				     "endLine", (json_int_t)line, "snippet", "text", text);
	return region;
}

/* partialFingerprints.primaryLocationLineHash: a hash of the rule and of the
 * line's text with its white space folded, and which occurrence of that pair
 * in the file this is ("hash:N"). Lines added or removed elsewhere, or a
 * re-indentation, leave it alone; editing the line itself changes it. */
static char *line_fingerprint(struct source *src, const char *rule, unsigned line, json_t *seen)
{
	const char *p = "";
	size_t n = 0;
	char hex[HASH_SHA256_HEX_LEN + 1];

	if (source_line(src, line ? line : 1, &p, &n) < 0)
		p = "", n = 0;
	char *buf = xmalloc(strlen(rule) + 1 + n + 1);
	size_t o = (size_t)sprintf(buf, "%s\n", rule);
	int space = 0;
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)p[i])) {
			space = 1;
			continue;
		}
		if (space && buf[o - 1] != '\n')
			buf[o++] = ' ';
		space = 0;
		buf[o++] = p[i];
	}
	hash_sha256_hex(buf, o, hex);
	free(buf);
	hex[16] = '\0';
	json_int_t count = json_integer_value(json_object_get(seen, hex)) + 1;
	json_object_set_new(seen, hex, json_integer(count));
	return xasprintf("%s:%lld", hex, (long long)count);
}

static json_t *location(json_t *artifact, json_t *region, json_t *context)
{
	json_t *phys = json_pack("{s:O}", "artifactLocation", artifact);
	if (region)
		json_object_set_new(phys, "region", region);
	if (context)
		json_object_set_new(phys, "contextRegion", context);
	return json_pack("{s:o}", "physicalLocation", phys);
}

static void add_notification(struct assess_sarif_run *run, const char *level, const char *path,
			     const char *text, json_t *artifact)
{
	size_t pl = strlen(path);
	char *msg = !strncmp(text, path, pl) && text[pl] == ':' ? xstrdup(text)
								 : xasprintf("%s: %s", path, text);
	json_array_append_new(run->notifications,
			      json_pack("{s:s, s:{s:s}, s:[o]}", "level", level, "message", "text", msg,
					"locations", location(artifact, NULL, NULL)));
	free(msg);
}

void assess_sarif_init(struct assess_sarif *s, const char *base_dir, int bandit, int semgrep)
{
	memset(s, 0, sizeof(*s));
	size_t n = strlen(base_dir);
	s->base = xasprintf("%s%s", base_dir, n && base_dir[n - 1] == '/' ? "" : "/");
	for (int i = 0; i < ASSESS_SARIF_TOOLS; i++) {
		struct assess_sarif_run *run = &s->runs[i];
		run->rules = json_array();
		run->results = json_array();
		run->notifications = json_array();
		run->rule_index = json_object();
	}
	s->runs[ASSESS_SARIF_NATIVE].enabled = 1;
	s->runs[ASSESS_SARIF_NATIVE].version = xstrdup(MAI_VERSION);
	s->runs[ASSESS_SARIF_BANDIT].enabled = bandit;
	s->runs[ASSESS_SARIF_SEMGREP].enabled = semgrep;
}

void assess_sarif_set_version(struct assess_sarif *s, enum assess_sarif_tool tool,
			      const char *version)
{
	free(s->runs[tool].version);
	s->runs[tool].version = version ? xstrdup(version) : NULL;
}

/* A result about the whole file rather than its code (rejected, unreadable):
 * an error of the native run at region (taken; may be NULL), also a
 * notification, and the run did not assess everything it was given. */
static void add_file_result(struct assess_sarif *s, const struct rule_text *t, const char *path,
			    json_t *artifact, json_t *region, const char *msg)
{
	struct assess_sarif_run *run = &s->runs[ASSESS_SARIF_NATIVE];
	size_t ri = rule_index(run, t->id, t);
	char *fp = xasprintf("%s:1", t->id);

	json_array_append_new(run->results,
			      json_pack("{s:s, s:I, s:s, s:{s:s}, s:[o], s:{s:s}}", "ruleId", t->id,
					"ruleIndex", (json_int_t)ri, "level", "error", "message", "text",
					msg, "locations", location(artifact, region, NULL),
					"partialFingerprints", "primaryLocationLineHash", fp));
	add_notification(run, "error", path, msg, artifact);
	run->failed = 1;
	free(fp);
}

static void add_rejection(struct assess_sarif *s, const char *path, const char *data, size_t len,
			  const struct assess_result *r, json_t *artifact)
{
	static const struct rule_text t = {
		.id = RULE_REJECTED, .name = "rejected-file",
		.short_text = "not Python source text: the agent refuses to run it",
		.full = "The file is not Python source text the assessor can read (invalid UTF-8, a NUL byte, an undecodable encoding), so it was not assessed, and the agent does not run it: the file is BLOCKED.",
		.remedy = "Save the file as UTF-8 text; the result names the first byte that is not.",
		.severity = ASSESS_SEV_CRITICAL, .confidence = ASSESS_SEV_HIGH, .security = 1,
	};
	size_t off = r->rejection_offset < len ? r->rejection_offset : len;
	unsigned line = 1;
	size_t line_start = 0;
	for (size_t i = 0; i < off; i++)
		if (data[i] == '\n')
			line++, line_start = i + 1;
	unsigned col = 1 + code_points(data + line_start, off - line_start);
	char *msg = xasprintf("Rejected: %s at byte %zu; the file was not assessed and does not run.",
			      r->rejection, r->rejection_offset);
	json_t *region = json_pack("{s:I, s:I, s:I, s:I}", "startLine", (json_int_t)line,
				   "startColumn", (json_int_t)col, "endLine", (json_int_t)line,
				   "endColumn", (json_int_t)col + 1);
	add_file_result(s, &t, path, artifact, region, msg);
	free(msg);
}

void assess_sarif_add(struct assess_sarif *s, const char *path, const char *data, size_t len,
		      const struct assess_result *r)
{
	json_t *artifact = artifact_location(s, path);
	json_t *seen = json_object();
	struct source src = { data, len, 0, 1 };

	for (size_t i = 0; i < r->n_findings; i++) {
		const struct assess_finding *f = &r->findings[i];
		enum assess_sarif_tool tool = tool_of(f);
		struct assess_sarif_run *run = &s->runs[tool];
		run->enabled = 1;
		size_t ri = finding_rule_index(run, tool, f);
		json_t *context;
		json_t *region = finding_region(&src, f->line, f->col, &context);
		char *fp = line_fingerprint(&src, f->rule_id, f->line, seen);
		char *msg = sentence(f->message);
		json_t *res = json_pack(
			"{s:s, s:I, s:s, s:{s:s}, s:[o], s:{s:s}, s:{s:s, s:s, s:f}}",
			"ruleId", f->rule_id, "ruleIndex", (json_int_t)ri,
			"level", sarif_level(assess_finding_counted_severity(f)),
			"message", "text", msg, "locations", location(artifact, region, context),
			"partialFingerprints", "primaryLocationLineHash", fp,
			"properties", "severity", assess_severity_to_string(f->severity),
			"confidence", assess_severity_to_string(f->confidence), "score", f->score);
		if (f->bandit_id)
			json_object_set_new(json_object_get(res, "properties"), "bandit_id",
					    json_string(f->bandit_id));
		/* What the origin, the sandbox and the weighing of a Bandit
		 * finding say goes in the message too: viewers show it, not
		 * the properties. */
		char *with = assess_finding_describe(f);
		if (strcmp(with, f->message) != 0) {
			char *text = sentence(with);
			json_object_set_new(json_object_get(res, "message"), "text", json_string(text));
			free(text);
		}
		free(with);
		json_t *props = json_object_get(res, "properties");
		if (f->origin != ASSESS_ORIGIN_NONE)
			json_object_set_new(props, "origin", json_string(assess_origin_to_string(f->origin)));
		if (f->contained != ASSESS_CONTAINED_NONE)
			json_object_set_new(props, "contained",
					    json_string(assess_containment_to_string(f->contained)));
		if (f->weighed != ASSESS_WEIGHED_NONE)
			json_object_set_new(props, "weighed", json_string(assess_weighed_to_string(f->weighed)));
		json_array_append_new(run->results, res);
		free(fp);
		free(msg);
	}
	if (r->rejection)
		add_rejection(s, path, data, len, r, artifact);
	for (size_t i = 0; i < r->n_notes; i++) {
		const char *note = r->notes[i];
		/* An analyzer's note says it could not do its work on this file. */
		if (!strncmp(note, "bandit: ", 8) || !strncmp(note, "semgrep: ", 9)) {
			struct assess_sarif_run *run =
				&s->runs[note[0] == 'b' ? ASSESS_SARIF_BANDIT : ASSESS_SARIF_SEMGREP];
			run->enabled = 1;
			run->failed = 1;
			add_notification(run, "error", path, note, artifact);
		} else {
			add_notification(&s->runs[ASSESS_SARIF_NATIVE], "note", path, note, artifact);
		}
	}
	json_decref(seen);
	json_decref(artifact);
}

void assess_sarif_add_unreadable(struct assess_sarif *s, const char *path, const char *reason)
{
	static const struct rule_text t = {
		.id = RULE_UNREADABLE, .name = "unreadable-file",
		.short_text = "the file could not be read, so it was not assessed",
		.full = "The file could not be read (missing, no permission, not a regular file or larger than 256 MiB), so nothing about it was assessed.",
		.remedy = "Check the path and the file's permissions and type; 'mai-agent check' reads regular files only.",
		.severity = ASSESS_SEV_HIGH, .confidence = ASSESS_SEV_HIGH,
	};
	json_t *artifact = artifact_location(s, path);
	char *msg = xasprintf("Cannot read the file: %s; it was not assessed.", reason);

	add_file_result(s, &t, path, artifact, json_pack("{s:i}", "startLine", 1), msg);
	free(msg);
	json_decref(artifact);
}

json_t *assess_sarif_finish(struct assess_sarif *s)
{
	json_t *runs = json_array();
	char *enc = uri_encode(s->base), *base_uri = xasprintf("file://%s", enc);

	for (int i = 0; i < ASSESS_SARIF_TOOLS; i++) {
		struct assess_sarif_run *run = &s->runs[i];
		if (run->enabled) {
			json_t *driver = json_pack("{s:s, s:O}", "name", tool_name[i], "rules", run->rules);
			if (run->version)
				json_object_set_new(driver, "version", json_string(run->version));
			if (tool_uri[i])
				json_object_set_new(driver, "informationUri", json_string(tool_uri[i]));
			json_array_append_new(runs, json_pack(
				"{s:{s:o}, s:[{s:b, s:O}], s:{s:{s:s}}, s:s, s:O}",
				"tool", "driver", driver,
				"invocations", "executionSuccessful", !run->failed,
				"toolExecutionNotifications", run->notifications,
				"originalUriBaseIds", SRCROOT, "uri", base_uri,
				"columnKind", "unicodeCodePoints", "results", run->results));
		}
		json_decref(run->rules);
		json_decref(run->results);
		json_decref(run->notifications);
		json_decref(run->rule_index);
		free(run->version);
	}
	json_t *doc = json_pack("{s:s, s:s, s:o}",
				"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
				"version", "2.1.0", "runs", runs);
	free(enc);
	free(base_uri);
	free(s->base);
	memset(s, 0, sizeof(*s));
	return doc;
}
