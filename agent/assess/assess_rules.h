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
	char *kwarg;
	int dynamic, in_loop, write_mode; /* -1: any */
	int path;                         /* 0 any, 1 outside, 2 local */
	int partial_path;                 /* -1: any */
	unsigned line, col;               /* where the rule was (last) defined */
};

struct assess_rule_index;

struct assess_rules {
	struct assess_rule *r;
	size_t n;
	double medium, high, blocked;
	/* origin_weights of the built-in file: the default of every rule */
	double origin_weight[4];
	char *source; /* file the user rules came from, for messages */
	struct assess_rule_index *index; /* rebuilt by assess_rules_apply() */
};

/* agent/assess/assess_rules.yaml, embedded at build time. */
extern const char assess_default_yaml[];
extern const size_t assess_default_yaml_len;

/* Applies the `rules:` list of a parsed security.yaml on top of rules. */
int assess_rules_apply(struct assess_rules *rules, const char *name, const struct yt_node *seq,
		       char **err) _must_check_;
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
/* The class of a chmod's mode bits that the `mode:` match names. */
const char *assess_mode_class(const struct pya_event *ev);

#endif
