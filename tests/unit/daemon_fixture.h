/* The fixture of the daemon's unit tests: a drop, state and configuration
 * directory in a temporary directory, the real loop on a thread, and TEST
 * STAGES that stand in for the assessor, the sandbox and the audit log: they
 * read the level and the exit status from comments in the script
 * ("# level: HIGH", "# exit: 3", "# sleep: 500") and keep every record
 * appended, checked as the real log's event API checks it. */
#ifndef MAI_DAEMON_FIXTURE_H
#define MAI_DAEMON_FIXTURE_H

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
	uint64_t down_until_ms;    /* and every run until then (monoclock_ms) */
	unsigned halted;           /* runs stopped by the daemon's halt flag */
	enum audit_health health;  /* what the stand-in log says of itself */
	const char *health_why;
	unsigned retry_base_ms;    /* 0: 50 */
};

void sleep_ms(unsigned ms);
/* Writes dir/name atomically. */
void put(const char *dir, const char *name, const char *text);
/* The records of type about file, in the order they were appended (a new
 * array). */
json_t *records_of(struct ctx *c, const char *file, const char *type);
json_int_t num(json_t *o, const char *key);
const char *str(json_t *o, const char *key);
/* cmocka setup and teardown: *state becomes a struct ctx. */
int setup(void **state);
int teardown(void **state);
/* The loop on its thread, with the test stages or none; stop() waits for it. */
void start(struct ctx *c, bool with_stages);
void stop(struct ctx *c);
/* Waits (up to ms; 5 s) until the sidecar says state; returns it (decref). */
json_t *wait_state_for(struct ctx *c, const char *sidecar, const char *state, int ms);
json_t *wait_state(struct ctx *c, const char *sidecar, const char *state);

#endif
