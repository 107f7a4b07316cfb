/* Runs in flight: a note in state_dir/running/ for each script whose
 * container may be running, written (and synced) before it starts and
 * removed once its execution record is durable. A worker thread notes its
 * runs in its own slot file (slot-<tid>.json), rewritten in place: one
 * fdatasync before a run, where a new file took two syncs; a note that does
 * not fit, a second run noted from the same thread, and a note that keeps
 * a pending record get a file of their own (<job>.json). A note left behind means
 * the agent was killed (or lost power) during that run: at the next start
 * the run gets its execution record, verdict "interrupted", before the
 * drop directory is scanned and the script runs again. A run whose record
 * the audit log could not take when it ended keeps that record in its note
 * ("pending"), so that it is written even if the agent is stopped while it
 * waits for room. Thread-safe: a slot is its thread's, each other note its
 * own file; a run's begin, pending, end and sync are called from one thread. */
#ifndef MAI_DAEMON_INFLIGHT_H
#define MAI_DAEMON_INFLIGHT_H

#include <jansson.h>
#include <stdint.h>

#include "daemon_stages.h"

#define DAEMON_INFLIGHT_DIR "running"

/* Notes that job (the seq of its job_accepted record) of name at sha256
 * starts running. 0 or -errno with *err (caller frees): then it must not
 * run. */
int daemon_inflight_begin(const char *state_dir, uint64_t job, const char *name, const char *sha256,
			  char **err);
/* Keeps the execution record's fields in the note (best effort). */
void daemon_inflight_pending(const char *state_dir, uint64_t job, const json_t *fields);
/* The run's record is durable: the note goes. The removal is synced to
 * disk by daemon_inflight_sync(), which a finished job calls once its
 * answer is written: a process killed afterwards finds no note either way,
 * and only a power loss in those milliseconds could bring the note back
 * (its run then gets a second, "interrupted" record), as it could before
 * its sync at any time. */
void daemon_inflight_end(const char *state_dir, uint64_t job);
/* Syncs the removals of notes (the directory). */
void daemon_inflight_sync(const char *state_dir);

/* At start, before any job: appends the record of every run a note was
 * left for (its pending record, or "interrupted") through stages->audit
 * and removes the note. Returns how many were recorded, or -errno with
 * *err (caller frees) when one could not be: nothing may run then. */
int daemon_inflight_recover(const char *state_dir, const struct daemon_stages *stages, char **err);

#endif
