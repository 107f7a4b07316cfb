/* A job for the sandbox: one snapshot of a script and what the assessor
 * knows of it. Value types. */
#ifndef MAI_SANDBOX_JOB_H
#define MAI_SANDBOX_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "level.h"

/* From the assessor: the shape of the code, used to scale the limits. */
struct sandbox_code_metrics {
	size_t bytes, lines, loops, imports, max_nesting;
};

struct sandbox_job {
	const char *job_id;     /* goes into the mai.job label */
	const char *file_name;  /* what tracebacks show, e.g. "foo.py" */
	const uint8_t *code;
	size_t len;
	enum trust trust;
	struct sandbox_code_metrics metrics;
	/* PEP 723 dependencies (requirement strings, checked by
	 * pep723_check_dependencies) installed with pip before the script runs;
	 * only at a trust level with network_allowlist. */
	const char *const *dependencies;
	size_t n_dependencies;
};

#endif
