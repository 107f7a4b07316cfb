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

#include "approvers.h"
#include "config.h"
#include "daemon_stages.h"
#include "daemon_status.h"
#include "macro.h"

/* In mount mode, the notes of the scripts open for writing, in
 * agent.state_dir (dropfs.h "Incomplete content"). */
#define DAEMON_WRITING_DIR "writing"
/* What the agent moved aside (quarantine.h), in agent.state_dir. */
#define DAEMON_QUARANTINE_DIR "quarantine"

/* As root the agent gives each script's sidecars to its writer and marks
 * them as its own with an extended attribute (dirwrite.h; in mount mode
 * another keeps what users see of the directory): on a file system that
 * keeps none every answer given away would look like someone else's file
 * (moved aside at the next start, never replaced). -ENOTSUP with *err
 * (caller frees) saying what to do when cfg's drop directory is on one;
 * else 0 (a drop directory that cannot be opened, missing or a stale
 * mount, is the source's to report). daemon_new() checks it too; 'mai-agent
 * run' first, before the sandbox's seconds of setup. */
int daemon_check_drop_fs(const struct mai_config *cfg, char **err);

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

/* The approvers of cfg's security.yaml (approvers.h), for the daemon and
 * the commands that check a caller. The caller drops the reference
 * (approvers_unref). */
struct approvers *daemon_approvers_from_config(const struct mai_config *cfg);

#endif
