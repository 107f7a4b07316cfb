/* Native assessment of Python sources: findings, metrics and a level.
 *
 * The assessor reads a snapshot (bytes) and never runs Python. Rules are data
 * (the `rules:` list of config/security.yaml); thresholds come from the same
 * file (keys `thresholds.medium/high/blocked`). */
#ifndef MAI_ASSESS_H
#define MAI_ASSESS_H

#include <jansson.h>
#include <stdbool.h>
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

/* What the sandbox a script would run in does to a finding's capability
 * (a rule's `contained:`): a contained finding counts at most MEDIUM and
 * says why; intent is never contained. */
enum assess_containment {
	ASSESS_CONTAINED_NONE,
	ASSESS_CONTAINED_NETWORK,     /* the level's network is none */
	ASSESS_CONTAINED_FILESYSTEM,  /* read-only root: the working directory and /tmp only */
	ASSESS_CONTAINED_PROCESS,     /* a program or code that runs in the same container */
	ASSESS_CONTAINED_PRIVILEGES,  /* no capabilities: no owner or identity change */
	ASSESS_CONTAINED_ENVIRONMENT, /* the container's environment is the agent's */
	ASSESS_CONTAINED_LIMITS,      /* the pids and memory limits stop it */
	ASSESS_CONTAINED_WINDOWS,     /* a Windows library on a Linux sandbox */
	ASSESS_CONTAINED_COUNT,
};
/* "network", "filesystem", ... (the rules' spelling); NULL for none. */
const char *assess_containment_to_string(enum assess_containment c);
/* "contained: the sandbox has no network", ...; NULL for none. */
const char *assess_containment_describe(enum assess_containment c);
/* Parses assess_containment_to_string()'s names. 0 or -EINVAL. */
int assess_containment_from_string(const char *s, enum assess_containment *out);

/* How a Bandit finding was weighed (none for the native analyzer's). */
enum assess_weighed {
	ASSESS_WEIGHED_NONE,
	ASSESS_WEIGHED_EVIDENCE, /* Bandit only: counted at its severity and confidence */
	ASSESS_WEIGHED_NATIVE,   /* the native analyzer judges this check: not counted */
};
/* "evidence", "native"; NULL for none. */
const char *assess_weighed_to_string(enum assess_weighed w);

/* What the sandbox of each trust level allows (sandbox.yaml), as the
 * assessor needs it: cmd/ fills it from the configuration. */
struct assess_sandbox {
	bool network[TRUST_COUNT]; /* network: allowlist (false: none) */
};

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
	enum assess_containment contained; /* what the sandbox does to it; none: counted in full */
	enum assess_weighed weighed;       /* Bandit's findings: how they count */
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
	/* HIGH or BLOCKED: the one reason a person should look ("line 4:
	 * decodes data ... [MAI015]"); NULL at the levels that run. */
	char *reason;
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
/* The sandbox scripts run in. Until set, every level has network: none
 * (sandbox.yaml's default). A rule's `contained: network` counts at most
 * MEDIUM while the standard level (where a MEDIUM script runs) has none. */
void assess_rules_set_sandbox(struct assess_rules *rules, const struct assess_sandbox *sandbox);

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
/* The severity a finding counts at: a contained one at most MEDIUM, a
 * Bandit finding that the native analyzer judges LOW. */
enum assess_severity assess_finding_counted_severity(const struct assess_finding *f);
/* The finding's message and what qualifies it: where its arguments come
 * from, what the sandbox does to it, how a Bandit finding was weighed
 * ("... (arguments: literal; contained: the sandbox has no network)").
 * Caller frees. */
char *assess_finding_describe(const struct assess_finding *f);
/* Adds a note (copies it). */
void assess_result_add_note(struct assess_result *r, const char *note);

#endif
