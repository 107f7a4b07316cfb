/* The daemon's part in "nothing runs unrecorded" and "retries recorded
 * compactly", with the stand-in stages of daemon_fixture.h:
 *  - jobs that wait for Docker record job_accepted, the assessment and the
 *    decision once, then a small retry record per failed attempt;
 *  - a run in progress when the audit log stops taking records is stopped,
 *    its record written once the log takes records again, and it runs
 *    again;
 *  - a run left in flight by a killed agent is recorded as interrupted at
 *    the next start, before the script runs again;
 *  - a log changed behind the writer: no job starts, status.json says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "daemon_fixture.h"
#include "daemon_inflight.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "monoclock.h"

static size_t count(struct ctx *c, const char *type)
{
	size_t n = 0, i;
	json_t *rec;
	pthread_mutex_lock(&c->lock);
	json_array_foreach(c->records, i, rec)
		n += strcmp(json_string_value(json_object_get(rec, "type")), type) == 0;
	pthread_mutex_unlock(&c->lock);
	return n;
}

/* How many files have a record of type. */
static size_t files_with(struct ctx *c, const char *type)
{
	json_t *seen = json_object(), *rec;
	size_t i;
	pthread_mutex_lock(&c->lock);
	json_array_foreach(c->records, i, rec)
		if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0)
			json_object_set_new(seen, json_string_value(json_object_get(rec, "file")), json_true());
	pthread_mutex_unlock(&c->lock);
	size_t n = json_object_size(seen);
	json_decref(seen);
	return n;
}

/* 200 drops while Docker is down, until every job met the outage: each job
 * records job_accepted, its assessment and its decision once, a retry
 * record per attempt that failed, and its execution once Docker is back;
 * each sidecar cites all of its own records and nothing else. */
static void test_docker_outage_recorded_compactly(void **state)
{
	struct ctx *c = *state;
	const unsigned n = 200;
	char name[32];
	c->down_until_ms = UINT64_MAX;
	start(c, true);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "o%03u.py", i);
		put(c->drop, name, "# level: LOW\n");
	}
	for (int i = 0; i < 3000 && files_with(c, "retry") < n; i++)
		sleep_ms(10);
	assert_int_equal(files_with(c, "retry"), n);
	pthread_mutex_lock(&c->lock);
	c->down_until_ms = 0;
	pthread_mutex_unlock(&c->lock);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "o%03u.result.json", i);
		json_decref(wait_state_for(c, name, "completed", 15000));
	}
	stop(c);
	assert_int_equal(c->executed, n);
	assert_int_equal(count(c, "job_accepted"), n);
	assert_int_equal(count(c, "assessment"), n);
	assert_int_equal(count(c, "decision"), n);
	assert_int_equal(count(c, "execution"), n);
	size_t retries = count(c, "retry");
	print_message("200 jobs across the outage: %zu records, %zu of them retries\n",
		      json_array_size(c->records), retries);
	/* One job's sidecar: its records, in order, retries included. */
	json_t *o = wait_state(c, "o007.result.json", "completed");
	json_t *seqs = json_object_get(json_object_get(o, "audit"), "seqs");
	json_t *mine = records_of(c, "o007.py", "retry");
	assert_true(json_array_size(mine) >= 1);
	assert_int_equal(json_array_size(seqs), 4 + json_array_size(mine));
	json_int_t job = json_integer_value(json_array_get(seqs, 0));
	size_t i;
	json_t *rec;
	json_array_foreach(mine, i, rec) {
		assert_int_equal(num(rec, "job"), job);
		assert_int_equal(num(rec, "attempt"), (json_int_t)i + 1);
		assert_int_equal(json_integer_value(json_array_get(seqs, 3 + i)), num(rec, "seq"));
	}
	json_decref(mine);
	json_decref(o);
}

/* A run is going when the audit log stops taking records (another job's
 * record is refused): the run is stopped, its result says that its record
 * waits, and once the log takes records again the run is recorded as
 * interrupted and runs again, under the same job. */
static void test_run_stopped_when_the_log_fails_and_recorded_when_it_works(void **state)
{
	struct ctx *c = *state;
	start(c, true);
	put(c->drop, "long.py", "# level: LOW\n# until halted: 60000\n");
	json_decref(wait_state(c, "long.result.json", "running"));
	sleep_ms(100);
	pthread_mutex_lock(&c->lock);
	c->audit_fails = true;
	pthread_mutex_unlock(&c->lock);
	put(c->drop, "other.py", "# level: LOW\n"); /* its job_accepted is refused */
	json_t *o = NULL;
	for (int i = 0; i < 300; i++) {
		json_decref(o);
		o = wait_state(c, "long.result.json", "error");
		if (str(o, "message") && strstr(str(o, "message"), "its record is written as soon as the log takes it"))
			break;
		sleep_ms(10);
	}
	assert_string_equal(str(o, "reason"), "audit_unwritable");
	assert_non_null(strstr(str(o, "message"), "the run ended but the audit log cannot be written"));
	/* An error that runs again shows no run: the one stopped is not the answer. */
	assert_null(json_object_get(o, "execution"));
	assert_null(json_object_get(o, "verdict"));
	json_decref(o);
	assert_int_equal(c->halted, 1);
	assert_int_equal(c->executed, 1);
	_cleanup_free_ char *notes = xasprintf("%s/" DAEMON_INFLIGHT_DIR, c->state);
	sleep_ms(300); /* still waiting, and nothing else was recorded for it */
	json_t *none = records_of(c, "long.py", "execution");
	assert_int_equal(json_array_size(none), 0);
	json_decref(none);

	pthread_mutex_lock(&c->lock);
	c->audit_fails = false;
	pthread_mutex_unlock(&c->lock);
	o = wait_state_for(c, "long.result.json", "completed", 10000);
	json_decref(o);
	json_decref(wait_state(c, "other.result.json", "completed"));
	stop(c);
	json_t *runs = records_of(c, "long.py", "execution");
	json_t *acc = records_of(c, "long.py", "job_accepted");
	json_t *retries = records_of(c, "long.py", "retry");
	assert_int_equal(json_array_size(acc), 1);
	assert_int_equal(json_array_size(runs), 2);
	json_t *first = json_array_get(runs, 0), *second = json_array_get(runs, 1);
	assert_string_equal(str(first, "verdict"), "interrupted");
	assert_string_equal(str(first, "reason"), "audit_unwritable");
	assert_string_equal(str(second, "verdict"), "exited");
	assert_int_equal(num(first, "job"), num(json_array_get(acc, 0), "seq"));
	assert_int_equal(num(second, "job"), num(json_array_get(acc, 0), "seq"));
	assert_int_equal(json_array_size(retries), 1);
	assert_string_equal(str(json_array_get(retries, 0), "reason"), "audit_unwritable");
	assert_true(num(first, "seq") < num(json_array_get(retries, 0), "seq"));
	assert_int_equal(c->executed, 3); /* long twice, other once */
	/* No note of a run is left once its record is in. */
	struct stat st;
	_cleanup_free_ char *left = xasprintf("%s/%020d.json", notes, (int)num(json_array_get(acc, 0), "seq"));
	assert_int_equal(stat(left, &st), -1);
	json_decref(runs);
	json_decref(acc);
	json_decref(retries);
}

/* The note a killed agent left for a run in flight: the next start records
 * the run as interrupted (or, when the note kept its record, that record)
 * before the script's new job. A thread's first note is in its slot,
 * rewritten in place, a second one in a file of its own; slots left idle or
 * cut short are removed, and a slot's note of a job that has its own file
 * (a crash between the two) is not recorded twice. */
static void test_run_left_in_flight_recorded_at_start(void **state)
{
	struct ctx *c = *state;
	const char *text = "# level: LOW\n";
	char sha[HASH_SHA256_HEX_LEN + 1];
	_cleanup_free_ char *err = NULL, *body = NULL;
	_cleanup_free_ char *notes = xasprintf("%s/" DAEMON_INFLIGHT_DIR, c->state);
	_cleanup_free_ char *slot = xasprintf("%s/slot-%d.json", notes, (int)gettid());
	_cleanup_free_ char *own41 = xasprintf("%s/%020d.json", notes, 41);
	_cleanup_free_ char *own42 = xasprintf("%s/%020d.json", notes, 42);
	size_t len;
	struct stat st;
	hash_sha256_hex(text, strlen(text), sha);
	put(c->drop, "k.py", text);
	assert_int_equal(daemon_inflight_begin(c->state, 41, "k.py", sha, &err), 0);
	assert_int_equal(fileio_read_path(slot, 1 << 16, &body, &len), 0);
	assert_int_equal(len, 4096);
	assert_non_null(strstr(body, "\"job\":41"));
	assert_int_equal(stat(own41, &st), -1);
	assert_int_equal(daemon_inflight_begin(c->state, 42, "p.py", sha, &err), 0);
	assert_int_equal(stat(own42, &st), 0);
	json_t *kept = json_pack("{s:s, s:{s:i}}", "verdict", "exited", "execution", "exit_code", 0);
	daemon_inflight_pending(c->state, 42, kept);
	json_decref(kept);
	/* another thread's slot: idle, cut short, and one noting job 42 */
	put(notes, "slot-1.json", "{}   \n");
	put(notes, "slot-2.json", "{\"file\":\"k.py\",\"jo");
	_cleanup_free_ char *dup = xasprintf("{\"file\":\"p.py\",\"job\":42,\"sha256\":\"%s\"}", sha);
	put(notes, "slot-3.json", dup);
	/* a file there that is no note (put by hand): left alone, not run */
	put(notes, "00000000000000000099.json", "not a note");
	start(c, true);
	json_decref(wait_state(c, "k.result.json", "completed"));
	stop(c);
	json_t *runs = records_of(c, "k.py", "execution"), *acc = records_of(c, "k.py", "job_accepted");
	assert_int_equal(json_array_size(runs), 2);
	json_t *first = json_array_get(runs, 0);
	assert_string_equal(str(first, "verdict"), "interrupted");
	assert_string_equal(str(first, "reason"), "agent_killed");
	assert_int_equal(num(first, "job"), 41);
	assert_string_equal(str(first, "sha256"), sha);
	assert_true(num(first, "seq") < num(json_array_get(acc, 0), "seq"));
	json_t *late = records_of(c, "p.py", "execution");
	assert_int_equal(json_array_size(late), 1);
	assert_string_equal(str(json_array_get(late, 0), "verdict"), "exited");
	assert_true(json_is_true(json_object_get(json_array_get(late, 0), "recorded_late")));
	json_decref(late);
	json_decref(runs);
	json_decref(acc);
	_cleanup_free_ char *stray = xasprintf("%s/00000000000000000099.json", notes);
	assert_int_equal(stat(stray, &st), 0);
	assert_int_equal(unlink(stray), 0);
	assert_int_equal(rmdir(notes), 0); /* empty */
}

/* The writer found its log changed: no job starts, every drop is answered
 * with why, and status.json says what the writer said. */
static void test_changed_log_stops_jobs_and_shows_in_status(void **state)
{
	struct ctx *c = *state;
	c->health = AUDIT_HEALTH_TAMPERED;
	c->health_why = "the audit log /x was changed after the agent wrote it: seq 7; to recover, quarantine it";
	start(c, true);
	put(c->drop, "t.py", "# level: LOW\n");
	json_t *o = wait_state(c, "t.result.json", "error");
	assert_string_equal(str(o, "reason"), "audit_tampered");
	assert_non_null(strstr(str(o, "message"), "the audit log was changed after the agent wrote it"));
	json_decref(o);
	/* status.json is rewritten every second: the first one written after
	 * the writer's word says it, within 30 s on a loaded machine. */
	_cleanup_free_ char *sp = xasprintf("%s/status.json", c->state);
	json_t *st = NULL, *audit = NULL;
	for (int i = 0; i < 600; i++) {
		json_decref(st);
		st = json_load_file(sp, 0, NULL);
		audit = json_object_get(st, "audit");
		if (json_is_string(json_object_get(audit, "state")) &&
		    strcmp(str(audit, "state"), "tampered") == 0)
			break;
		sleep_ms(50);
	}
	assert_string_equal(str(audit, "state"), "tampered");
	assert_string_equal(str(audit, "message"), c->health_why);
	json_decref(st);
	stop(c);
	assert_int_equal(c->executed, 0);
	assert_int_equal(count(c, "job_accepted"), 0);
}

/* A job waiting for Docker whose file is then removed: its retry finds it
 * gone and nothing of it is kept (the agent's memory does not grow with
 * the files that came and went). */
static void test_waiting_job_forgotten_with_its_file(void **state)
{
	struct ctx *c = *state;
	c->down_until_ms = UINT64_MAX;
	start(c, true);
	put(c->drop, "gone.py", "# level: LOW\n");
	json_decref(wait_state(c, "gone.result.json", "error"));
	_cleanup_free_ char *path = xasprintf("%s/gone.py", c->drop), *sp = xasprintf("%s/status.json", c->state);
	assert_int_equal(unlink(path), 0);
	json_int_t retrying = -1;
	for (int i = 0; i < 50 && retrying != 0; i++) {
		sleep_ms(100);
		json_t *st = json_load_file(sp, 0, NULL);
		retrying = num(json_object_get(st, "queue"), "retrying");
		json_decref(st);
	}
	assert_int_equal(retrying, 0);
	stop(c);
	assert_int_equal(c->executed, 0);
}

int main(void)
{
	log_init("test_daemon_bounds", LOG_LEVEL_ERROR);
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_docker_outage_recorded_compactly),
		T(test_run_stopped_when_the_log_fails_and_recorded_when_it_works),
		T(test_run_left_in_flight_recorded_at_start),
		T(test_changed_log_stops_jobs_and_shows_in_status),
		T(test_waiting_job_forgotten_with_its_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
