/* libFuzzer target for the lexer and the analyzer: any bytes must give a
 * result (or a rejection) without a crash, leak or sanitizer report. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "assess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct assess_rules *rules;
	struct assess_result r;

	if (!rules) {
		char *err = NULL;
		if (assess_rules_load(NULL, &rules, &err) < 0)
			abort(); /* the built-in rules always load */
	}
	assess_source(rules, "fuzz.py", data, size, &r);
	if (r.level > LEVEL_BLOCKED)
		abort();
	json_decref(assess_result_to_json(&r));
	assess_result_clear(&r);
	return 0;
}
