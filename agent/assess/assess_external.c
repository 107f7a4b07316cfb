/* Bandit and Semgrep adapters: spawn with a deadline, read the JSON report
 * from a pipe, map each result onto a finding. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "assess_external.h"
#include "assess_rules.h"
#include "bandit_worker.h"
#include "fileio.h"
#include "log.h"
#include "stagetime.h"
#include "subprocess.h"

/* Reports are small; a larger one is cut and refused as not JSON. */
#define REPORT_MAX (16u << 20)

static enum assess_severity level_of(const char *s)
{
	if (!s)
		return ASSESS_SEV_LOW;
	if (!strcasecmp(s, "HIGH") || !strcasecmp(s, "ERROR"))
		return ASSESS_SEV_HIGH;
	if (!strcasecmp(s, "MEDIUM") || !strcasecmp(s, "WARNING"))
		return ASSESS_SEV_MEDIUM;
	return ASSESS_SEV_LOW;
}

/* The "results" list of a tool's JSON report; *doc keeps it alive (caller
 * decrefs). NULL with *err when the text is not such a report. */
static json_t *report_results(const char *tool, const char *text, size_t len, json_t **doc,
			      char **err)
{
	json_error_t je;
	json_t *results;

	*doc = json_loadb(text, len, 0, &je);
	results = json_object_get(*doc, "results");
	if (!json_is_array(results)) {
		*err = xasprintf("not a %s JSON report (%s)", tool, *doc ? "no results list" : je.text);
		json_decref(*doc);
		*doc = NULL;
		return NULL;
	}
	return results;
}

int assess_bandit_parse(const char *text, size_t len, struct assess_result *r, char **err)
{
	json_t *doc, *it;
	json_t *results = report_results("Bandit", text, len, &doc, err);
	size_t i;

	if (!results)
		return -EINVAL;
	json_array_foreach(results, i, it) {
		const char *id = json_string_value(json_object_get(it, "test_id"));
		if (!id)
			continue;
		struct assess_finding f = {
			.rule_id = (char *)id, .bandit_id = (char *)id,
			.severity = level_of(json_string_value(json_object_get(it, "issue_severity"))),
			.confidence = level_of(json_string_value(json_object_get(it, "issue_confidence"))),
			.cwe = (unsigned)json_integer_value(json_object_get(json_object_get(it, "issue_cwe"), "id")),
			.line = (unsigned)json_integer_value(json_object_get(it, "line_number")),
			.col = (unsigned)json_integer_value(json_object_get(it, "col_offset")) + 1,
			.message = (char *)json_string_value(json_object_get(it, "issue_text")),
			.source = "bandit",
		};
		f.score = assess_score(f.severity, f.confidence);
		assess_result_add(r, &f);
	}
	json_decref(doc);
	return 0;
}

int assess_semgrep_parse(const char *text, size_t len, struct assess_result *r, char **err)
{
	json_t *doc, *it;
	json_t *results = report_results("Semgrep", text, len, &doc, err);
	size_t i;

	if (!results)
		return -EINVAL;
	json_array_foreach(results, i, it) {
		json_t *extra = json_object_get(it, "extra"), *start = json_object_get(it, "start");
		json_t *meta = json_object_get(extra, "metadata"), *cwe = json_object_get(meta, "cwe");
		const char *id = json_string_value(json_object_get(it, "check_id"));
		const char *cwe_text = json_is_array(cwe) ? json_string_value(json_array_get(cwe, 0))
							  : json_string_value(cwe);
		if (!id)
			continue;
		struct assess_finding f = {
			.rule_id = (char *)id,
			.severity = level_of(json_string_value(json_object_get(extra, "severity"))),
			.confidence = level_of(json_string_value(json_object_get(meta, "confidence"))),
			.line = (unsigned)json_integer_value(json_object_get(start, "line")),
			.col = (unsigned)json_integer_value(json_object_get(start, "col")),
			.message = (char *)json_string_value(json_object_get(extra, "message")),
			.source = "semgrep",
		};
		if (!json_object_get(meta, "confidence"))
			f.confidence = ASSESS_SEV_MEDIUM;
		if (cwe_text && !strncasecmp(cwe_text, "CWE-", 4))
			f.cwe = (unsigned)strtoul(cwe_text + 4, NULL, 10);
		f.score = assess_score(f.severity, f.confidence);
		assess_result_add(r, &f);
	}
	json_decref(doc);
	return 0;
}

static char *write_snapshot(const uint8_t *data, size_t len)
{
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/mai-assess-XXXXXX.py", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemps(path, 3);

	if (fd < 0 || fileio_write_all(fd, data, len) < 0) {
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

typedef int (*parse_fn)(const char *, size_t, struct assess_result *, char **);

/* What a run of the tool ended with (rc and out as subprocess_capture()
 * gives them) becomes findings in r, or a note. */
static int run_outcome(const char *tool, const struct assess_external *x, int rc,
		       const char *out, size_t len, parse_fn parse, struct assess_result *r)
{
	char *err = NULL, *note = NULL, *found = NULL;

	/* ENOENT from a program that is there: its #! interpreter is not (a
	 * virtualenv moved or removed), which reinstalling the tool repairs. */
	if (rc == -ENOENT && (found = subprocess_find_program(x->program)))
		note = xasprintf("%s: cannot run '%s': the interpreter on its #! line is not there "
				 "(reinstall it); native findings only", tool, found);
	else if (rc == -ENOENT)
		note = xasprintf("%s: not installed ('%s' not found in PATH); native findings only",
				 tool, x->program);
	else if (rc == -ETIMEDOUT)
		note = xasprintf("%s: timed out after %u ms; native findings only (raise "
				 "analyzers.%s.timeout in security.yaml)", tool, x->timeout_ms, tool);
	else if (rc < 0)
		note = xasprintf("%s: cannot run '%s': %s", tool, x->program, strerror(-rc));
	else if (parse(out, len, r, &err) < 0)
		note = xasprintf("%s: exit status %d and no report: %s", tool, rc, err), rc = -EIO;
	else
		rc = 0;
	if (note) {
		assess_result_add_note(r, note);
		log_debug("%s", note);
	}
	free(note);
	free(err);
	free(found);
	return rc == -ENOENT || rc == -ETIMEDOUT || rc == -EIO ? rc : rc < 0 ? -EIO : 0;
}

static int run_tool(const char *tool, char *const argv[], const struct assess_external *x,
		    parse_fn parse, struct assess_result *r)
{
	char *out = NULL;
	size_t len = 0;
	int rc = subprocess_capture(argv, x->timeout_ms, REPORT_MAX, false, &out, &len);

	rc = run_outcome(tool, x, rc, out, len, parse, r);
	free(out);
	return rc;
}

int assess_bandit_run(const struct assess_external *x, const uint8_t *data, size_t len,
		      struct assess_result *r)
{
	char *snap = write_snapshot(data, len);
	if (!snap) {
		assess_result_add_note(r, "bandit: cannot write the snapshot to $TMPDIR");
		return -EIO;
	}
	char *argv[] = { (char *)x->program, "-q", "-f", "json", snap, NULL };
	int rc = run_tool("bandit", argv, x, assess_bandit_parse, r);
	unlink(snap);
	free(snap);
	return rc;
}

int assess_bandit_run_resident(struct bandit_worker *w, const struct assess_external *x,
			       const uint8_t *data, size_t len, struct assess_result *r)
{
	_cleanup_free_ char *out = NULL, *err = NULL;
	size_t out_len = 0;
	int rc = bandit_worker_report(w, x->program, x->timeout_ms, data, len, REPORT_MAX, &out,
				      &out_len);

	if (rc == -ETIMEDOUT)
		return run_outcome("bandit", x, rc, NULL, 0, assess_bandit_parse, r);
	/* a report that does not parse adds nothing to r: the one-shot run
	 * then says what is wrong, as it would have without the worker */
	if (rc == 0 && assess_bandit_parse(out, out_len, r, &err) == 0)
		return 0;
	if (rc == 0)
		log_warnx("bandit worker: its report does not parse (%s); a one-shot %s runs", err,
			  x->program);
	return assess_bandit_run(x, data, len, r);
}

char *assess_external_version(const char *program, unsigned timeout_ms)
{
	char *argv[] = { (char *)program, "--version", NULL };
	_cleanup_free_ char *out = NULL;
	size_t len = 0;

	if (subprocess_capture(argv, timeout_ms, 4096, false, &out, &len) != 0)
		return NULL;
	/* "bandit 1.6.2\n  python version = ..." or "1.45.0\n": the first
	 * word of the first line that starts with a digit */
	out[strcspn(out, "\n")] = '\0';
	for (char *w = strtok(out, " \t"); w; w = strtok(NULL, " \t"))
		if (w[0] >= '0' && w[0] <= '9')
			return xstrdup(w);
	return NULL;
}

int assess_semgrep_run(const struct assess_external *x, const uint8_t *data, size_t len,
		       struct assess_result *r)
{
	char *snap = write_snapshot(data, len);
	if (!snap) {
		assess_result_add_note(r, "semgrep: cannot write the snapshot to $TMPDIR");
		return -EIO;
	}
	char *argv[] = { (char *)x->program, "--json", "--quiet", "--config",
			 (char *)(x->rules && *x->rules ? x->rules : "auto"), snap, NULL };
	int rc = run_tool("semgrep", argv, x, assess_semgrep_parse, r);
	unlink(snap);
	free(snap);
	return rc;
}

static void add_analyzers(const struct config_analyzers *a, struct bandit_worker *bandit,
			  const struct assess_rules *rules, const uint8_t *data, size_t len,
			  struct assess_result *res)
{
	const struct config_analyzer *b = &a->bandit, *s = &a->semgrep;

	if (!b->enabled && !s->enabled)
		return;
	if (b->enabled) {
		struct assess_external x = { b->path, NULL, (unsigned)b->timeout_ms };
		if (bandit)
			assess_bandit_run_resident(bandit, &x, data, len, res);
		else
			assess_bandit_run(&x, data, len, res);
	}
	if (s->enabled) {
		struct assess_external x = { s->path, s->rules, (unsigned)s->timeout_ms };
		assess_semgrep_run(&x, data, len, res);
	}
	assess_result_finish(rules, res);
}

int assess_with_analyzers(const struct assess_rules *rules, const struct config_analyzers *a,
			  struct bandit_worker *bandit, const char *name, const uint8_t *data,
			  size_t len, struct assess_result *res)
{
	int r = assess_source(rules, name, data, len, res);

	stagetime_mark(STAGE_ASSESS);
	if (r == 0 && a) {
		add_analyzers(a, bandit, rules, data, len, res);
		stagetime_mark(STAGE_ANALYZERS);
	}
	return r;
}
