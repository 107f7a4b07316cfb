/* Retries of names whose job ended in an error that may pass (Docker down,
 * the audit log unwritable): each name is taken again after a delay that
 * doubles from a base up to a cap (agent.docker.retry_backoff_max). Every
 * function is thread-safe: workers schedule, the loop takes what is due. */
#ifndef MAI_DAEMON_RETRY_H
#define MAI_DAEMON_RETRY_H

#include <stddef.h>
#include <stdint.h>

struct daemon_retries;

/* NULL never (allocation aborts). */
struct daemon_retries *daemon_retries_new(unsigned base_ms, uint64_t max_ms);
void daemon_retries_free(struct daemon_retries *rt);
/* A reload's new cap, for the delays computed afterwards. */
void daemon_retries_set_max(struct daemon_retries *rt, uint64_t max_ms);
/* name is due again after the next delay of its backoff. */
void daemon_retries_schedule(struct daemon_retries *rt, const char *name);
/* name reached a final result: its backoff starts afresh next time. */
void daemon_retries_clear(struct daemon_retries *rt, const char *name);
/* Names waiting for a retry. */
size_t daemon_retries_count(struct daemon_retries *rt);
/* Moves up to max names that are due at now_ms into names (each the
 * caller's to free); they keep their attempt count but are not due again
 * until scheduled. *next_ms is the due time of the earliest name still
 * waiting (UINT64_MAX: none). Returns how many were taken. */
size_t daemon_retries_take_due(struct daemon_retries *rt, uint64_t now_ms, char **names,
			       size_t max, uint64_t *next_ms);

#endif
