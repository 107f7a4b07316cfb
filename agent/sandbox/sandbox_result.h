/* What a run of the sandbox gives: the verdict, the output, the resources
 * used and the limits applied (value types), and the "execution" object of
 * result.json made from it (sandbox_result.c). */
#ifndef MAI_SANDBOX_RESULT_H
#define MAI_SANDBOX_RESULT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "level.h"
#include "sandbox_options.h"

enum sandbox_verdict {
	SANDBOX_VERDICT_EXITED,        /* exit code or signal in the result */
	SANDBOX_VERDICT_TIMEOUT,       /* killed by the agent's wall-clock timer */
	SANDBOX_VERDICT_OOM_KILLED,    /* the memory limit's OOM killer struck */
	SANDBOX_VERDICT_OUTPUT_LIMIT,  /* stdout or stderr went past its cap: killed */
	SANDBOX_VERDICT_PIDS_LIMIT,    /* the cgroup's pids counter hit the limit */
	SANDBOX_VERDICT_SANDBOX_ERROR, /* Docker failed; message has its words */
};
const char *sandbox_verdict_to_string(enum sandbox_verdict v);

struct sandbox_output {
	char *data;         /* NUL terminated, at most the cap; owned by the result */
	size_t len;         /* bytes in data */
	uint64_t total;     /* bytes the script wrote */
	bool truncated;
};

struct sandbox_result {
	enum sandbox_verdict verdict;
	int exit_code;      /* -1 when killed by the agent */
	int signal;         /* the signal that ended the script, 0 if none */
	struct sandbox_output out, err;
	int64_t wall_ms, cpu_ms;
	int64_t peak_memory_bytes;
	int64_t pids_peak;
	struct sandbox_limits limits; /* as applied */
	enum trust trust;
	char *runtime, *image, *image_id, *docker_version, *container_id;
	int cgroup_version;
	char *message;      /* one line; NULL for a clean exit 0 */
	/* The end came from the kernel (the init's pidfd, with all output in),
	 * not from Docker's end of stream: see sandbox_attach.h. */
	bool ended_by_kernel;
	/* The engine that ran it (sandbox_engine.h): its name ("docker",
	 * "swarm"), where it answers, the node it placed the run on (NULL: the
	 * engine's own host), and where the usage came from ("cgroup",
	 * "engine_stats", "task"; static). */
	char *engine, *endpoint, *node;
	const char *usage_source;
	/* Who the script ran as and what filtered its system calls, as the
	 * engine applied them: the run's own uid and gid from the uid range (0:
	 * not known), and the seccomp profile ("mai-1": the agent's, applied by
	 * the host's kernel; "gvisor": runsc, whose kernel the script meets;
	 * NULL: the engine's own default, as on Swarm nodes). Static. */
	uint32_t run_uid;
	const char *seccomp;
	/* For a job with dependencies: what pip did ({"ok", "installed": [{name,
	 * version, url, hashes}], ...}); NULL otherwise. Owned. */
	json_t *dependencies;
};

/* The "execution" object of result.json; the caller owns the reference. */
json_t *sandbox_result_to_json(const struct sandbox_result *r);
void sandbox_result_clear(struct sandbox_result *r);

#endif
