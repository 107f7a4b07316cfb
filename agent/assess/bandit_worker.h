/* The daemon's resident Bandit: one Python process that imported Bandit
 * once (agent/assess/bandit_worker.py, compiled in) and answers Bandit's JSON
 * report for each snapshot sent to it over a socket, instead of a new
 * `bandit` process (an interpreter start and its plugin loading, ~150 ms)
 * per job. `mai-agent check` holds one per assessing thread. */
#ifndef MAI_BANDIT_WORKER_H
#define MAI_BANDIT_WORKER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bandit_worker;

/* A handle with no process yet: the first report starts it. */
struct bandit_worker *bandit_worker_new(void);
/* Kills the process, if one runs, and frees w. NULL is a no-op. */
void bandit_worker_free(struct bandit_worker *w);

/* Bandit's report on data, the text `PROGRAM -q -f json FILE` prints for
 * it, from the worker. The worker is started when none runs (or it died,
 * or program changed) with the interpreter on the #! line of program
 * (looked up in PATH like the one-shot run); the start and the request
 * each have timeout_ms. One request at a time: callers wait for the lock.
 * Returns 0 with *report (NUL-terminated, at most max bytes; caller frees)
 * and *report_len;
 * -ETIMEDOUT: the worker was killed (the next call starts another);
 * -ENOEXEC: no worker can run for program (not found, no #! line, Bandit
 *  not importable by that interpreter); not tried again for a minute;
 * -EIO: the worker failed on this snapshot, or died, or sent something
 *  else than a message (it is then stopped).
 * On -ENOEXEC and -EIO the caller runs the one-shot `bandit` instead. */
int bandit_worker_report(struct bandit_worker *w, const char *program, unsigned timeout_ms,
			 const uint8_t *data, size_t len, size_t max, char **report,
			 size_t *report_len);

/* Starts the worker for program now when none runs, without waiting for
 * it: Bandit's import (a second or more on a loaded machine) then happens
 * while the agent waits for its first drop, not inside that drop's
 * assessment. A failed start is not tried again for a minute, as a
 * report's; the first report reads the worker's "ready" (timeout_ms). */
void bandit_worker_prestart(struct bandit_worker *w, const char *program);

/* The worker's process id, -1 when none runs (tests kill it). */
pid_t bandit_worker_pid(struct bandit_worker *w);

/* agent/assess/bandit_worker.py, compiled in by tools/embed_text.py. */
extern const char bandit_worker_py[];
extern const size_t bandit_worker_py_len;

#endif
