/* External analyzers: Bandit and Semgrep, run on the snapshot (never on the
 * user's path) under a time budget; their findings join the native ones. */
#ifndef MAI_ASSESS_EXTERNAL_H
#define MAI_ASSESS_EXTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "assess.h"
#include "bandit_worker.h"
#include "config.h"

struct assess_external {
	const char *program;   /* "bandit", "semgrep" or an absolute path */
	const char *rules;     /* semgrep: its --config value */
	unsigned timeout_ms;
};

/* Writes the snapshot to a private temporary file, runs Bandit on it with
 * JSON output and adds its findings (source "bandit") to r. When Bandit is
 * missing, times out or fails, adds a note saying so ("bandit: not
 * installed ...") and returns -ENOENT, -ETIMEDOUT or -EIO; 0 otherwise.
 * Call assess_result_finish() afterwards to merge and rescore. */
int assess_bandit_run(const struct assess_external *x, const uint8_t *data, size_t len,
		      struct assess_result *r);
/* The same through the resident worker w (see bandit_worker.h), with the
 * same findings and notes; where the worker cannot be started or fails on
 * this snapshot, through assess_bandit_run(). */
int assess_bandit_run_resident(struct bandit_worker *w, const struct assess_external *x,
			       const uint8_t *data, size_t len, struct assess_result *r);
/* The same for Semgrep (--json --config RULES). */
int assess_semgrep_run(const struct assess_external *x, const uint8_t *data, size_t len,
		       struct assess_result *r);

/* What both `mai-agent check` and the daemon's assess stage do after
 * assess_source() succeeded: runs each analyzer that a is enabled for
 * (analyzers.bandit / analyzers.semgrep in security.yaml) on the snapshot,
 * then merges and rescores with assess_result_finish(). A missing or timed
 * out analyzer is a note in res, not an error. Nothing is done when none is
 * enabled (res stays as assess_source() finished it). Bandit runs through
 * the resident worker bandit (the daemon's) or, when NULL, as one process
 * (`mai-agent check`). */
void assess_external_add(const struct config_analyzers *a, struct bandit_worker *bandit,
			 const struct assess_rules *rules, const uint8_t *data, size_t len,
			 struct assess_result *res);

/* The version an analyzer reports with --version ("1.6.2"), or NULL when it
 * does not run or says none. Caller frees. */
char *assess_external_version(const char *program, unsigned timeout_ms);

/* Adds the findings of a Bandit or Semgrep JSON report to r. 0, or -EINVAL
 * with *err (caller frees) when the text is not such a report. */
int assess_bandit_parse(const char *json, size_t len, struct assess_result *r, char **err);
int assess_semgrep_parse(const char *json, size_t len, struct assess_result *r, char **err);

#endif
