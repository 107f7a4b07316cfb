/* The daemon: one event loop (inotify through watch, signals through a
 * signalfd, a wakeup eventfd and timers) that takes each settled drop in
 * (intake), hands it to the bounded worker pool (jobs), and answers with
 * foo.result.json (result) after assessment, policy and execution.
 *
 * Assessment, execution and audit come from other modules (assess, sandbox,
 * audit); the daemon reaches them through struct daemon_stages so that it
 * builds and is testable while they land. A stage that is NULL is "not in
 * this build": a script then gets state "error" naming what is missing,
 * never a silent pass. */
#ifndef MAI_DAEMON_H
#define MAI_DAEMON_H

#include <signal.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "audit.h"
#include "audit_event.h"
#include "config.h"
#include "intake.h"
#include "macro.h"
#include "policy.h"
#include "result.h"

struct daemon_assessment {
	enum level level;
	bool rejected;   /* not valid source text, or inline metadata that cannot be honoured */
	const char *reject_reason; /* static id of the rejection; NULL: "not_text" */
	char *detail;    /* for a rejection: what is wrong and what to do; freed by the daemon */
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
	 * (state error, retried). Called on worker threads. */
	int (*assess)(void *ctx, const char *name, const struct intake_snapshot *snap,
		      struct daemon_assessment *out);
	/* Runs a snapshot at a trust level. 0 with a verdict, or -errno when
	 * the sandbox could not be used (Docker down: state error, retried).
	 * *detail_out (may be set on failure) says what failed. */
	int (*execute)(void *ctx, const char *name, const struct intake_snapshot *snap,
		       const struct daemon_assessment *a, enum trust trust,
		       struct daemon_execution *out, char **detail_out);
	/* Appends one audit record of type e (fields borrowed; they must carry
	 * what audit_event_check asks of e) and returns its sequence number;
	 * durable on return. -errno means nothing may run. */
	int (*audit)(void *ctx, enum audit_event e, json_t *fields, uint64_t *seq);
	/* Writes the .audit sidecar of a job (its records plus an inclusion
	 * proof) to path and fills *pos (the checkpoint size proved against,
	 * the last record's entry hash). May be NULL. 0 or -errno. */
	int (*audit_sidecar)(void *ctx, const uint64_t *seqs, size_t n, const char *path,
			     struct audit_sidecar_info *pos);
	/* Kills every running execution (SIGTERM/SIGINT); each worker then
	 * records its job as ended. May be NULL. */
	void (*cancel_all)(void *ctx);
	/* Whether Docker answered when last checked, for status.json; never
	 * waits on Docker. false: not known (yet). Otherwise *reachable, when
	 * (wall clock) and, when not reachable, *why (caller frees; may be
	 * NULL). May be NULL: not known. */
	bool (*docker_health)(void *ctx, bool *reachable, struct timespec *checked, char **why);
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

struct daemon_options {
	const struct mai_config *cfg; /* borrowed for the daemon's lifetime */
	const char *config_dir;       /* reloaded on SIGHUP; NULL: no reload */
	const struct daemon_stages *stages; /* borrowed; NULL: none in this build */
	bool handle_signals;          /* block and handle SIGHUP, SIGTERM, SIGINT */
	unsigned retry_base_ms;       /* first retry after an error; 0: 1000 */
};

struct daemon;

/* Sets up watch, jobs and the loop's descriptors. 0 or -errno with *err
 * (caller frees). daemon_free() releases it. */
int daemon_new(const struct daemon_options *o, struct daemon **out, char **err) _must_check_;
/* Runs the loop until daemon_request_stop() or SIGTERM/SIGINT; then stops
 * the workers (running jobs finish or are killed by the sandbox) and writes
 * the last status. 0 or -errno. */
int daemon_run(struct daemon *d);
/* Thread- and signal-safe. */
void daemon_request_stop(struct daemon *d);
/* Blocks SIGHUP, SIGTERM and SIGINT in the calling thread (threads started
 * afterwards inherit it) and returns them in *set for a signalfd. */
void daemon_block_signals(sigset_t *set);
void daemon_free(struct daemon *d);

/* Path of status.json in the state directory. */
#define DAEMON_STATUS_NAME "status.json"

/* How alive the agent that wrote status.json is, from the pid in it and the
 * file's age in seconds: it rewrites the file every second, so a file older
 * than DAEMON_STATUS_STALE_S from a live pid means that process is stuck
 * (or is not the agent). mai-agent status and the view's status.json both
 * judge by this. */
enum daemon_liveness {
	DAEMON_RUNNING,
	DAEMON_GONE,  /* no such process: killed, or ended without cleaning up */
	DAEMON_STUCK, /* alive, but status.json is stale */
};
#define DAEMON_STATUS_STALE_S 30
enum daemon_liveness daemon_liveness(long long pid, long long age_s);

#endif
