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

/* The one assessment that both `mai-agent check` and the daemon's assess
 * stage make: assess_source(), then, when it succeeded and a is not NULL,
 * each analyzer that a enables (analyzers.bandit / analyzers.semgrep in
 * security.yaml) on the snapshot, merged and rescored with
 * assess_result_finish(). A missing or timed out analyzer is a note in res,
 * not an error. Bandit runs through the resident worker bandit (the
 * daemon's) or, when NULL, as one process (`mai-agent check`). Returns what
 * assess_source() returned (0, or -EINVAL for a rejected file). */
int assess_with_analyzers(const struct assess_rules *rules, const struct config_analyzers *a,
			  struct bandit_worker *bandit, const char *name, const uint8_t *data,
			  size_t len, struct assess_result *res);

/* The version an analyzer reports with --version ("1.6.2"), or NULL when it
 * does not run or says none. Caller frees. */
char *assess_external_version(const char *program, unsigned timeout_ms);

/* Adds the findings of a Bandit or Semgrep JSON report to r. 0, or -EINVAL
 * with *err (caller frees) when the text is not such a report. */
int assess_bandit_parse(const char *json, size_t len, struct assess_result *r, char **err);
int assess_semgrep_parse(const char *json, size_t len, struct assess_result *r, char **err);

#endif
