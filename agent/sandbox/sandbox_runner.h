/* Runs of the sandbox beyond plain jobs (the self-test's probes, parsing a
 * PEP 723 block's TOML): how such a run differs, and the sandbox's run
 * handed to the parts that need runs of their own, so that they do not
 * call back into sandbox.c. Value types. */
#ifndef MAI_SANDBOX_RUNNER_H
#define MAI_SANDBOX_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "sandbox_job.h"
#include "sandbox_result.h"

/* How a run differs from what the job says. */
struct sandbox_run_mode {
	/* A floor under the wall-clock timeout: the self-test's probes must not
	 * fail because a loaded machine starts python slowly. */
	int64_t min_timeout_ms;
	/* No network whatever the level says (self-test probes, TOML parsing). */
	bool no_network;
	const char *image;   /* NULL: the image the job calls for */
	const char *program; /* NULL: the bootstrap */
};

/* A run in a fresh container, with sandbox_run()'s contract. */
struct sandbox_runner {
	int (*run)(void *ctx, const struct sandbox_job *job, const struct sandbox_run_mode *mode,
		   struct sandbox_result *out);
	void *ctx;
};

#endif
