/* What the daemon calls the stages of a job with (daemon.h): the assessor,
 * the sandbox and the audit log come from other folders, wired in by cmd/
 * (cmd_run.c), so that the daemon depends on none of them and its tests can
 * stand in for them. Types only, shared by the loop (daemon.c) and a job
 * (daemon_job.c). */
#ifndef MAI_DAEMON_STAGES_H
#define MAI_DAEMON_STAGES_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "audit.h"
#include "audit_event.h"
#include "config.h"
#include "intake.h"
#include "level.h"
#include "result.h"

struct daemon_assessment {
	enum level level;
	bool rejected;   /* not valid source text, or inline metadata that cannot be honoured */
	const char *reject_reason; /* static id of the rejection; NULL: "not_text" */
	/* With a failed assessment (-errno): static id of why, as the error's
	 * reason ("sandbox_unavailable": what it needs of Docker is missing);
	 * NULL: "assessor_failed". */
	const char *fail_reason;
	/* For a rejection or a failed assessment: what is wrong and what to do;
	 * freed by the daemon. */
	char *detail;
	json_t *json;    /* new reference, taken over by the daemon */
	/* The shape of the code, for the sandbox's limits. */
	size_t bytes, lines, loops, imports, max_nesting;
};

struct daemon_execution {
	enum result_verdict verdict;
	int exit_code, signal;
	/* Static id when the run ended for a reason of its own (the script's
	 * dependencies could not be installed); NULL otherwise. */
	const char *reason;
	char *detail;    /* for sandbox_error; freed by the daemon */
	json_t *json;    /* new reference, taken over by the daemon */
};

struct daemon_stages {
	/* Assesses a snapshot. 0, or -errno when the assessor itself failed
	 * or what it needs is missing (state error with out->fail_reason and
	 * out->detail when set, retried). Called on worker threads. */
	int (*assess)(void *ctx, const char *name, const struct intake_snapshot *snap,
		      struct daemon_assessment *out);
	/* Runs a snapshot at a trust level. 0 with a verdict, or -errno when
	 * the sandbox could not be used (Docker down: state error, retried).
	 * Once halt is set the run is stopped and -ECANCELED returned: the
	 * daemon sets it when the audit log cannot take records and when the
	 * agent stops. *detail_out (may be set on failure) says what failed. */
	int (*execute)(void *ctx, const char *name, const struct intake_snapshot *snap,
		       const struct daemon_assessment *a, enum trust trust, const atomic_bool *halt,
		       struct daemon_execution *out, char **detail_out);
	/* Appends one audit record of type e (fields borrowed; they must carry
	 * what audit_event_check asks of e) and returns its sequence number;
	 * durable on return. -errno means nothing may run. */
	int (*audit)(void *ctx, enum audit_event e, json_t *fields, uint64_t *seq);
	/* As audit, but returns once the record has its place in the log,
	 * before it is durable; *epoch is what audit_sync needs. Nothing may
	 * run or cite the record until a later audit (of any thread) or
	 * audit_sync has made it durable: a job's records before its decision
	 * reach the disk with one fsync. May be NULL: the daemon uses audit. */
	int (*audit_queue)(void *ctx, enum audit_event e, json_t *fields, uint64_t *seq,
			   uint64_t *epoch);
	/* Until the record seq appended in epoch, and every earlier one of
	 * that epoch, is durable: 0, or -errno when a failed write dropped it
	 * first. Set whenever audit_queue is. */
	int (*audit_sync)(void *ctx, uint64_t seq, uint64_t epoch);
	/* The .audit sidecar of a job (its records plus an inclusion proof)
	 * as text (caller frees; the daemon places it in the drop directory),
	 * and *pos (the checkpoint size proved against, the last record's
	 * entry hash). May be NULL. 0 or -errno. */
	int (*audit_sidecar)(void *ctx, const uint64_t *seqs, size_t n, char **text, size_t *len,
			     struct audit_sidecar_info *pos);
	/* Whether the audit log takes records (audit_health()); *why (caller
	 * frees) when not. May be NULL: the daemon learns only from appends. */
	enum audit_health (*audit_health)(void *ctx, char **why);
	/* The job on this thread has written its answer (or given up): what
	 * was put off so as not to delay it may be done now (the sandbox's
	 * pool refill and container removal, the audit log's queued checkpoint
	 * record). Called after every job; may be NULL. */
	void (*answered)(void *ctx);
	/* Kills every running execution (SIGTERM/SIGINT); each worker then
	 * records its job as ended. May be NULL. */
	void (*cancel_all)(void *ctx);
	/* Whether Docker answered when last checked, for status.json; never
	 * waits on Docker. false: not known (yet). Otherwise *reachable, when
	 * (wall clock) and, when not reachable, *why (caller frees; may be
	 * NULL). May be NULL: not known. */
	bool (*docker_health)(void *ctx, bool *reachable, struct timespec *checked, char **why);
	/* Warm containers per trust level the sandbox keeps now, for
	 * status.json; 0 while there is no sandbox. May be NULL. */
	unsigned (*pool_size)(void *ctx);
	/* The runtime each trust level runs with, for status.json: names[t]
	 * ("runc", "runsc", or "auto" while Docker has not answered yet) and,
	 * when "auto" had to fall back to runc, *warning (NULL otherwise).
	 * Strings stay valid while the agent runs. May be NULL. */
	void (*runtimes)(void *ctx, const char *names[TRUST_COUNT], const char **warning);
	/* The engine the sandbox runs on, for status.json: {name, host, nodes}
	 * (nodes: what each node's probe proved, or absent for a single
	 * engine); NULL while there is no sandbox. New reference. May be NULL. */
	json_t *(*engine)(void *ctx);
	/* SIGHUP: applies what a newly loaded configuration changes in the
	 * stages (the assessor's rules and thresholds from config_dir, the
	 * sandbox's limits per trust level and output caps) to the jobs that
	 * start afterwards; jobs already running finish with what they started
	 * with. Values are copied: cfg is borrowed for the call only. 0, or
	 * -errno with *err (caller frees): the reload is refused and nothing
	 * changed. May be NULL. Called on the loop's thread. */
	int (*reload)(void *ctx, const struct mai_config *cfg, const char *config_dir,
		      char **err);
	void *ctx;
};

#endif
