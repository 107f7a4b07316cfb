/* SARIF 2.1.0 for `mai-agent check --format sarif`. */
#ifndef MAI_ASSESS_SARIF_H
#define MAI_ASSESS_SARIF_H

#include <jansson.h>

#include "assess.h"

struct assess_sarif {
	json_t *rules, *results, *notifications, *rule_index;
};

void assess_sarif_init(struct assess_sarif *s);
/* Adds one file's findings, rejection and notes. */
void assess_sarif_add(struct assess_sarif *s, const char *path, const struct assess_result *r);
/* The whole log (new reference); s is emptied. */
json_t *assess_sarif_finish(struct assess_sarif *s);

#endif
