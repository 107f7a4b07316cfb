/* Native assessment of Python sources: findings, metrics and a level.
 *
 * The assessor reads a snapshot (bytes) and never runs Python. Rules are data
 * (the `rules:` list of config/security.yaml); thresholds come from the same
 * file (keys `thresholds.medium/high/blocked`). */
#ifndef MAI_ASSESS_H
#define MAI_ASSESS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "pymetrics.h"
#include "macro.h"

/* Severity and confidence of a rule, Bandit's scale plus CRITICAL for the
 * hidden-execution rules. Their numeric values are the score factors. */
enum assess_severity {
	ASSESS_SEV_LOW = 1,
	ASSESS_SEV_MEDIUM = 2,
	ASSESS_SEV_HIGH = 3,
	ASSESS_SEV_CRITICAL = 4,
};
const char *assess_severity_to_string(enum assess_severity s);

/* Where the arguments of the call behind a finding come from (see
 * enum pya_origin): none for findings that are not about a call. */
enum assess_origin {
	ASSESS_ORIGIN_NONE,
	ASSESS_ORIGIN_LITERAL,
	ASSESS_ORIGIN_UNRESOLVED,
	ASSESS_ORIGIN_OUTSIDE,
};
/* "literal", "unresolved", "outside", or NULL for none. */
const char *assess_origin_to_string(enum assess_origin o);
/* The same for people: "literal", "unresolved", "from outside the script". */
const char *assess_origin_describe(enum assess_origin o);

struct assess_finding {
	char *rule_id;          /* "MAI012" (or "BANDIT" for Bandit-only findings) */
	char *bandit_id;        /* "B602" or NULL */
	enum assess_severity severity;
	enum assess_severity confidence; /* LOW..HIGH */
	unsigned cwe;           /* 0: none */
	unsigned line, col;     /* 1-based; col counts code points */
	char *message;
	char *source;           /* "mai", "bandit" or "semgrep" */
	double score;           /* severity x confidence x weight (x origin weight) */
	int block;              /* the rule forces BLOCKED */
	enum assess_origin origin;
};

struct assess_result {
	enum level level;
	double score;                    /* highest finding + min(9.9, others / 10),
					  * kept below the next threshold the
					  * highest alone does not reach */
	struct assess_finding *findings; /* sorted by line, col */
	size_t n_findings;
	struct py_metrics metrics;
	/* Set when the file is rejected (not valid source text: invalid UTF-8,
	 * NUL byte, undecodable encoding): the reason and the byte offset. A
	 * rejected file is BLOCKED. */
	char *rejection;
	size_t rejection_offset;
	/* Notes of the external analyzers, e.g. "bandit: not installed". */
	char **notes;
	size_t n_notes;
	/* The most findings the JSON lists (the rules' max_findings); 0: all. */
	size_t max_findings;
};

struct assess_rules;

/* Loads the `rules:` list and the `thresholds:` of security.yaml. On error
 * returns -EINVAL (or -errno when unreadable) and sets *err to
 * "FILE:LINE:COL: what; expected ..." (caller frees). The caller frees *out
 * with assess_rules_free(). */
int assess_rules_load(const char *security_yaml, struct assess_rules **out, char **err) _must_check_;
void assess_rules_free(struct assess_rules *rules);
/* Number of enabled rules. */
size_t assess_rules_count(const struct assess_rules *rules);

/* security.max_findings: the JSON of a result lists at most max findings
 * (the most severe; the level and score still count them all) and says how
 * many it left out. 0: no cap. The default is ASSESS_MAX_FINDINGS_DEFAULT. */
#define ASSESS_MAX_FINDINGS_DEFAULT 200
void assess_rules_set_max_findings(struct assess_rules *rules, size_t max);

/* Assesses one snapshot. name is used in messages only. Always fills *out
 * (clear it with assess_result_clear()); returns 0, or -EINVAL when the file
 * was rejected (out->rejection says why, the level is BLOCKED). */
int assess_source(const struct assess_rules *rules, const char *name, const uint8_t *data,
		  size_t len, struct assess_result *out);

/* The result as a JSON object (new reference; the caller decrefs):
 * {level, score, findings:[{rule_id, bandit_id, severity, confidence, cwe,
 * line, col, message, source, score, origin?}], metrics:{...}, rejection?,
 * rejection_offset?, notes:[...]}; beyond max_findings, the most severe
 * findings in line order and findings_total, findings_dropped,
 * max_findings. */
json_t *assess_result_to_json(const struct assess_result *r);

/* Frees everything the result holds and zeroes it. */
void assess_result_clear(struct assess_result *r);

/* Adds a finding (copies the strings); used by the analyzers' adapters. */
void assess_result_add(struct assess_result *r, const struct assess_finding *f);
/* Sorts and deduplicates the findings (same rule and place; a Bandit
 * finding with the line and Bandit id of a native one), then computes the
 * score (highest finding plus a tenth of the others, at most 9.9) and the level. Called by
 * assess_source(); again after adding the external analyzers' findings. */
void assess_result_finish(const struct assess_rules *rules, struct assess_result *r);
/* Adds a note (copies it). */
void assess_result_add_note(struct assess_result *r, const char *note);

#endif
