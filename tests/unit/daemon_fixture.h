/* The daemon's test fixture (test_daemon.c, test_daemon_trust.c): a real
 * daemon loop with real inotify, files, config loader and worker threads in
 * a temporary directory, and a TEST STAGE that stands in for the assessor,
 * the sandbox and the audit log. It reads the level, the exit status and
 * how long a run takes from comments in the script ("# level: HIGH",
 * "# exit: 3", "# sleep: 500") and keeps
 * every record it is given, checked as the real log's event API checks
 * them, so that the daemon's own work can be checked (test_daemon_bounds.c
 * too). */
#ifndef MAI_TEST_DAEMON_FIXTURE_H
#define MAI_TEST_DAEMON_FIXTURE_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "daemon.h"

struct ctx {
	char *root, *drop, *state, *conf;
	struct mai_config *cfg;
	struct daemon *d;
	pthread_t thread;
	struct daemon_stages stages;
	pthread_mutex_t lock;
	unsigned executed, assessed, audited;
	bool audit_fails;
	int audit_fails_for;  /* 1 + an audit_event whose appends fail; 0: none */
	json_t *records;      /* what was appended: the fields plus type and seq */
	unsigned execute_failures; /* fail this many runs as if Docker were down */
	unsigned assess_failures;  /* fail this many assessments (the assessor failing) */
	uint64_t down_until_ms;    /* and every run until then (monoclock_ms) */
	unsigned halted;           /* runs stopped by the daemon's halt flag */
	enum audit_health health;  /* what the stand-in log says of itself */
	const char *health_why;
	bool last_write_failed;    /* the last record was refused: the log says unwritable */
	unsigned retry_base_ms;    /* 0: 50 */
	/* With queue, the stand-in log also queues records (audit_queue) and
	 * makes them durable on audit_sync, which answers sync_result and
	 * keeps the seq it was asked for in synced. */
	bool queue;
	int sync_result;
	uint64_t synced;
};

void sleep_ms(unsigned ms);
/* Writes dir/name atomically. */
void put(const char *dir, const char *name, const char *text);
/* The records of type about file, in the order they were appended (a new
 * array). */
json_t *records_of(struct ctx *c, const char *file, const char *type);
json_int_t num(json_t *o, const char *key);
const char *str(json_t *o, const char *key);
/* cmocka setup and teardown: a temporary directory with drop/, state/ and
 * conf/ (agent.yaml; security.yaml allows self-approval, since one uid
 * writes every file here). */
int setup(void **state);
int teardown(void **state);
/* The daemon on its own thread, with the test stage or with none. */
void start(struct ctx *c, bool with_stages);
void stop(struct ctx *c);
/* Waits (up to ms, or 5 s) until sidecar says state; returns it (a new
 * reference). */
json_t *wait_state_for(struct ctx *c, const char *sidecar, const char *state, int ms);
json_t *wait_state(struct ctx *c, const char *sidecar, const char *state);

#endif
