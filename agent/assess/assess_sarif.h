/* SARIF 2.1.0 for `mai-agent check --format sarif`, shaped for code scanning
 * (GitHub's and the SARIF Multitool's GitHub rules): one run per tool
 * (the native analyzer, Bandit, Semgrep), documented rules with CWE tags and a
 * security-severity, full regions with snippets, partial fingerprints that
 * survive unrelated edits, paths relative to the %SRCROOT% base, and rejected
 * or unreadable files as error results. */
#ifndef MAI_ASSESS_SARIF_H
#define MAI_ASSESS_SARIF_H

#include <jansson.h>
#include <stddef.h>

#include "assess.h"

enum assess_sarif_tool {
	ASSESS_SARIF_NATIVE,
	ASSESS_SARIF_BANDIT,
	ASSESS_SARIF_SEMGREP,
	ASSESS_SARIF_TOOLS,
};

struct assess_sarif_run {
	int enabled;
	int failed;   /* executionSuccessful is false */
	char *version; /* the tool's, or NULL */
	json_t *rules, *rule_index, *results, *notifications;
};

struct assess_sarif {
	char *base;   /* absolute directory with a trailing '/' */
	struct assess_sarif_run runs[ASSESS_SARIF_TOOLS];
};

/* base_dir: the directory that relative URIs are relative to (the SRCROOT
 * uriBaseId; `check` passes its working directory). bandit and semgrep: those
 * analyzers ran, so their runs are in the log even when they found nothing. */
void assess_sarif_init(struct assess_sarif *s, const char *base_dir, int bandit, int semgrep);
/* The version of an analyzer (copied), for its run's tool.driver. */
void assess_sarif_set_version(struct assess_sarif *s, enum assess_sarif_tool tool,
			      const char *version);
/* Adds one file's findings, rejection and notes; data/len is the snapshot
 * that was assessed (for regions, snippets and fingerprints). */
void assess_sarif_add(struct assess_sarif *s, const char *path, const char *data, size_t len,
		      const struct assess_result *r);
/* Adds a file that could not be read (reason: "No such file or directory"):
 * an error result and notification; the native run did not succeed. */
void assess_sarif_add_unreadable(struct assess_sarif *s, const char *path, const char *reason);
/* The whole log (new reference); s is emptied. */
json_t *assess_sarif_finish(struct assess_sarif *s);

#endif
