/* Where a job's time goes, stage by stage: result.json's "stages_ms", and
 * the --stages line of tests/bench/agent_latency.sh, so that a slower drop
 * shows which stage grew. A worker binds a record to its thread for the
 * job's life (stagetime_bind); code of any layer that runs on that thread
 * ends a stage with stagetime_mark(), which adds the time since the last
 * mark to that stage. Without a bound record a mark does nothing, so the
 * same code runs unchanged outside a job (the benchmarks, `check`). A mark
 * costs one read of the monotonic clock. */
#ifndef MAI_STAGETIME_H
#define MAI_STAGETIME_H

#include <jansson.h>
#include <stdint.h>

/* In the order a job meets them. */
enum stage {
	STAGE_INTAKE,        /* snapshot read and hashed (the loop's thread) */
	STAGE_QUEUE,         /* accepted until a worker took it */
	STAGE_AUDIT,         /* the job's audit appends, durable (fsync) on return */
	STAGE_HISTORY,       /* the script's history in the state directory (diffs) */
	STAGE_ASSESS,        /* the native assessor */
	STAGE_ANALYZERS,     /* the Bandit worker (and Semgrep when enabled) */
	STAGE_RESULT,        /* result.json writes before the final one (queued, running) */
	STAGE_RUN_NOTE,      /* the note of a run in flight, written and removed */
	STAGE_CONTAINER,     /* a warm container taken (or one created and started) */
	STAGE_SCRIPT,        /* the script sent until its end marker came back */
	STAGE_END,           /* the marker until the container's init has exited */
	STAGE_OUTPUT,        /* the output closed, the exit status and usage read */
	STAGE_REMOVAL,       /* the container handed to removal (done in the background) */
	STAGE_SIDECAR,       /* the .audit sidecar: checkpoint, proof, written */
	STAGE_OTHER,         /* the daemon's own work between them (JSON, policy, locks) */
	STAGE_COUNT
};

struct stagetime {
	int64_t last_ns;
	int64_t ns[STAGE_COUNT];
};

/* The stage's key in "stages_ms" ("intake", ...). */
const char *stage_to_string(enum stage s);
/* Nanoseconds of the monotonic clock. */
int64_t stagetime_now_ns(void);
/* Binds st (the caller's, zeroed or carried over) to this thread, its clock
 * starting now; NULL unbinds. */
void stagetime_bind(struct stagetime *st);
/* The time since the last mark (or the bind) goes to stage s. A stage's
 * code is bracketed: stagetime_mark(STAGE_OTHER) before, so that the work
 * since the last stage is not charged to it, stagetime_mark(s) after. */
void stagetime_mark(enum stage s);
/* {"intake": 0.12, ...} in milliseconds with 2 decimals, the stages that
 * took any time; a new reference. */
json_t *stagetime_to_json(const struct stagetime *st);

#endif
