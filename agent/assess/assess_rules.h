/* Internal to the assessor: the compiled rule set and its matching. */
#ifndef MAI_ASSESS_RULES_H
#define MAI_ASSESS_RULES_H

#include "assess.h"
#include "pyanalyze.h"
#include "yamltree.h"

struct assess_strv {
	char **v;
	size_t n;
};

struct assess_rule {
	char *id;
	char *bandit_id;
	char *message;
	enum assess_severity severity;
	enum assess_severity confidence;
	unsigned cwe;
	int block;
	int enabled;
	double weight;
	double origin_weight[4];          /* by enum pya_origin; literal and none stay 1 */
	/* match */
	struct assess_strv call, import, special, unless_kwarg, arg_contains, arg_ref;
	struct assess_strv not_call, kwarg_true, has_kwarg, lacks_kwarg, mode, arg_glob, string;
	struct assess_strv not_arg_ref, program;
	char *kwarg;
	int dynamic, in_loop, write_mode; /* -1: any */
	int path;                         /* 0 any, 1 outside, 2 local, 3 absolute */
	int partial_path;                 /* -1: any */
	unsigned taint;                   /* enum pya_taint: an argument holds one; 0 any */
	int decoded;                      /* -1: any; 1: an argument is decoded data */
	enum assess_containment contained; /* what the sandbox does to what it finds */
	unsigned line, col;               /* where the rule was (last) defined */
};

/* How a Bandit check's findings count (`bandit_checks:`). */
enum assess_bandit_judged {
	ASSESS_BANDIT_EVIDENCE, /* counted at Bandit's severity and confidence */
	ASSESS_BANDIT_NATIVE,   /* the native analyzer judges it: not counted */
	ASSESS_BANDIT_PYTHON2,  /* its premise is Python 2's: dropped with a note */
};

struct assess_bandit_check {
	char *id;                          /* "B322" */
	enum assess_bandit_judged judged;
	enum assess_containment contained; /* evidence: what the sandbox does to it */
	char *why;                         /* said in the note of a dropped finding */
};

struct assess_rule_index;

/* A match key that takes a name or a list of names ("call") and the
 * offset of its struct assess_strv in struct assess_rule. */
struct assess_strv_key {
	const char *key;
	size_t off;
};
#define ASSESS_STRV_KEYS 15
extern const struct assess_strv_key assess_strv_keys[ASSESS_STRV_KEYS];
/* The list of key k (an index of assess_strv_keys) in a rule. */
struct assess_strv *assess_rule_strv(const struct assess_rule *r, size_t k);
void assess_strv_free(struct assess_strv *s);
/* Frees what a rule holds (not the rule itself). */
void assess_rule_clear(struct assess_rule *r);
/* The classes of chmod's mode bits that the `mode:` match names. */
#define ASSESS_MODE_CLASSES 4
extern const char *const assess_mode_classes[ASSESS_MODE_CLASSES];

struct assess_rules {
	struct assess_rule *r;
	size_t n;
	double medium, high, blocked;
	size_t max_findings; /* security.max_findings: findings listed in the JSON */
	/* origin_weights of the built-in file: the default of every rule */
	double origin_weight[4];
	char *source; /* file the user rules came from, for messages */
	struct assess_sandbox sandbox;     /* assess_rules_set_sandbox() */
	struct assess_bandit_check *bandit; /* bandit_checks: by id, in file order */
	size_t n_bandit;
	struct assess_rule_index *index; /* assess_rules_index_build() */
};

/* An empty rule set with the default thresholds and weights. */
struct assess_rules *assess_rules_new(void);
/* Applies a YAML file's `rules:`, `bandit_checks:` and `thresholds:` on top
 * of rules (assess_rules_yaml.c); builtin: also its top-level
 * `origin_weights:`, the defaults of every rule. Does not build the index.
 * 0, or -errno with *err "FILE:LINE:COL: what; expected ...". */
int assess_rules_apply_yaml(struct assess_rules *rules, const char *path, bool builtin,
			    char **err) _must_check_;
/* agent/assess/assess_rules.yaml as assess_rules_gen compiled it at build
 * time (assess_builtin_rules.c): the rules, bandit_checks, thresholds and
 * origin weights; no index. assess_rules_load() starts from a copy. */
extern const struct assess_rules assess_builtin_rules;
/* (Re)builds rules->index from the rules (assess_rules_index.c); frees it. */
void assess_rules_index_build(struct assess_rules *rules);
void assess_rules_index_free(struct assess_rules *rules);
typedef void (*assess_match_fn)(void *ctx, const struct assess_rule *rule,
				const struct pya_event *ev);
/* Calls fn for every rule the event satisfies, in rule order; the same
 * rules as assess_rule_matches() on each rule would find. Read-only: any
 * number of threads may call it at once. */
void assess_rules_each_match(const struct assess_rules *rules, const struct pya_event *ev,
			     assess_match_fn fn, void *ctx);
/* What the analyzer must report for these rules (assess_rules_index.c). */
void assess_rules_filter(const struct assess_rules *rules, struct pya_filter *f);
/* Does the event satisfy the rule's match? */
int assess_rule_matches(const struct assess_rule *rule, const struct pya_event *ev);
/* severity x confidence factors, the score of one finding of weight 1; the
 * same scale for native rules and for Bandit's and Semgrep's findings. */
double assess_score(enum assess_severity severity, enum assess_severity confidence);
double assess_rule_score(const struct assess_rule *rule);
/* The entry of bandit_checks for a Bandit test id, or NULL. */
const struct assess_bandit_check *assess_bandit_check(const struct assess_rules *rules,
						      const char *id);
/* Does the sandbox of the run contain what this containment names? */
bool assess_rules_contains(const struct assess_rules *rules, enum assess_containment c);
/* The class of a chmod's mode bits that the `mode:` match names. */
const char *assess_mode_class(const struct pya_event *ev);

#endif
