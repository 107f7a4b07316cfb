/* The trust levels of a sandbox: per level the base limits and whether
 * they scale (what a reload changes), the runtime and whether it joins the
 * allowlist network (fixed); with the machine's share of each worker, the
 * limits a job gets. */
#ifndef MAI_SANDBOX_TRUST_H
#define MAI_SANDBOX_TRUST_H

#include <stdbool.h>
#include <stdint.h>

#include "level.h"
#include "sandbox_job.h"
#include "sandbox_options.h"

struct sandbox_trust;

/* Copies what it needs of opts (the runtimes' names too; NULL: "runc") and
 * probes the machine (sandbox_limits.h) for workers concurrent runs (0: 1).
 * Freed with sandbox_trust_free(). */
struct sandbox_trust *sandbox_trust_new(const struct sandbox_trust_options opts[TRUST_COUNT],
					unsigned workers);
void sandbox_trust_free(struct sandbox_trust *tt);

/* A reload: takes the base limits and scaling of every level from opts
 * (the rest stays as made). Whether anything changed. Thread-safe. */
bool sandbox_trust_reload(struct sandbox_trust *tt,
			  const struct sandbox_trust_options opts[TRUST_COUNT]);

/* The limits of a job at level t with these metrics on this machine; m
 * NULL: the level's base unscaled, as a warm container is made with.
 * Thread-safe. */
void sandbox_trust_limits(struct sandbox_trust *tt, enum trust t,
			  const struct sandbox_code_metrics *m, struct sandbox_limits *out);

const char *sandbox_trust_runtime(const struct sandbox_trust *tt, enum trust t);
/* Whether level t runs under gVisor (runtime runsc): its jobs meet
 * gVisor's kernel, and gVisor's own threads share their pids cgroup. */
bool sandbox_trust_is_gvisor(const struct sandbox_trust *tt, enum trust t);
/* The first trust level that runs under runc (the host kernel), or -1. */
int sandbox_trust_runc_level(const struct sandbox_trust *tt);
/* The PidsLimit Docker gets for pids at level t (more under gVisor). */
int64_t sandbox_trust_host_pids(const struct sandbox_trust *tt, enum trust t, int64_t pids);
/* Whether level t is configured for the allowlist network. */
bool sandbox_trust_allowlist(const struct sandbox_trust *tt, enum trust t);

#endif
