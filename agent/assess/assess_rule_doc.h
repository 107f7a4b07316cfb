/* What a reader of a report needs to know about each rule: a name, a full
 * description and what to do about a finding (SARIF's reportingDescriptor
 * `name`, `fullDescription` and `help`; code scanning shows them beside every
 * alert). The rules themselves are in assess_rules.yaml; this is only their
 * documentation, kept apart so that a rule's matching and its prose change
 * independently. */
#ifndef MAI_ASSESS_RULE_DOC_H
#define MAI_ASSESS_RULE_DOC_H

struct assess_rule_doc {
	const char *id;          /* "MAI001" */
	const char *name;        /* "shell-command": lower case, words joined by '-' */
	const char *description; /* one or two sentences: what is found, why it matters */
	const char *remedy;      /* what to do about a finding */
};

/* The entry of a built-in rule, or NULL (a rule from security.yaml, Bandit's
 * or Semgrep's). Static storage. */
const struct assess_rule_doc *assess_rule_doc_find(const char *id);

/* The name of CWE number cwe ("Improper Neutralization of ..."), or NULL for a
 * CWE this table does not know. Static storage. */
const char *assess_cwe_name(unsigned cwe);

#endif
