/* The daemon's loop with real inotify, real files, the real config loader and
 * real worker threads, in a temporary directory.
 *
 * The assessor, the sandbox and the audit log are other modules that have not
 * landed on this branch yet. The first test runs the daemon as this build
 * really is (no stages: a script is answered "error: the assessor is not part
 * of this build"). The others plug in a TEST STAGE that is a stand-in, not
 * the real thing: it reads the level and the exit status from a comment in
 * the script ("# level: HIGH", "# exit: 3") so that the daemon's own work
 * (policy, answers, ordering, sidecars, idempotence, audit failure) can be
 * checked now. The end-to-end tests with the real assessor, Docker and audit
 * log belong in tests/integration once those modules are merged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "approval.h"
#include "config.h"
#include "dirwrite.h"
#include "daemon.h"
#include "fileio.h"
#include "log.h"
#include "testdir.h"
#include "monoclock.h"
#include "names.h"
#include "hash.h"

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
	unsigned retry_base_ms;    /* 0: 50 */
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static void put(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(p, text, strlen(text), 0644), 0);
}

/* --- the test stage (see the comment at the top) --- */

static int marker(const struct intake_snapshot *s, const char *key, int dflt)
{
	const char *p = strstr((const char *)s->data, key);
	return p ? atoi(p + strlen(key)) : dflt;
}

static int stage_assess(void *arg, const char *name, const struct intake_snapshot *snap,
			struct daemon_assessment *out)
{
	struct ctx *c = arg;
	static const char *const levels[] = { "LOW", "MEDIUM", "HIGH", "BLOCKED" };
	const char *p = strstr((const char *)snap->data, "# level: ");
	out->level = LEVEL_LOW;
	for (int i = 0; p && i < 4; i++)
		if (strncmp(p + 9, levels[i], strlen(levels[i])) == 0)
			out->level = (enum level)i;
	out->json = json_pack("{s:s}", "level", levels[out->level]);
	pthread_mutex_lock(&c->lock);
	c->assessed++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static int stage_execute(void *arg, const char *name, const struct intake_snapshot *snap,
			 const struct daemon_assessment *a, enum trust trust, struct daemon_execution *out, char **detail)
{
	struct ctx *c = arg;
	pthread_mutex_lock(&c->lock);
	bool down = c->execute_failures > 0;
	if (down)
		c->execute_failures--;
	else
		c->executed++;
	pthread_mutex_unlock(&c->lock);
	if (down) {
		*detail = xstrdup("Docker is not reachable at /var/run/docker.sock");
		return -ECONNREFUSED;
	}
	out->verdict = RESULT_VERDICT_EXITED;
	out->exit_code = marker(snap, "# exit: ", 0);
	out->json = json_pack("{s:i, s:i}", "exit_code", out->exit_code, "trust", (int)trust);
	return 0;
}

/* The .audit sidecar as a stand-in: the sequence numbers it would prove. */
static int stage_audit_sidecar(void *arg, const uint64_t *seqs, size_t n, char **text,
			       size_t *len, struct audit_sidecar_info *pos)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)seqs[i]));
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	*text = xasprintf("%s\n", s);
	*len = strlen(*text);
	free(s);
	pos->checkpoint_size = n;
	pos->entry_hash[0] = '\0';
	return 0;
}

/* The records are checked as the real log's event API checks them. */
static int stage_audit(void *arg, enum audit_event e, json_t *fields, uint64_t *seq)
{
	struct ctx *c = arg;
	_cleanup_free_ char *err = NULL;
	if (audit_event_check(e, fields, &err) < 0)
		fail_msg("the daemon wrote a %s record without a field it needs: %s", audit_event_to_string(e), err);
	pthread_mutex_lock(&c->lock);
	int r = c->audit_fails || c->audit_fails_for == (int)e + 1 ? -ENOSPC : 0;
	if (!r) {
		*seq = ++c->audited;
		json_t *rec = json_deep_copy(fields);
		json_object_set_new(rec, "type", json_string(audit_event_to_string(e)));
		json_object_set_new(rec, "seq", json_integer((json_int_t)*seq));
		json_array_append_new(c->records, rec);
	}
	pthread_mutex_unlock(&c->lock);
	return r;
}

/* The records of type about file, in the order they were appended (a new
 * array). */
static json_t *records_of(struct ctx *c, const char *file, const char *type)
{
	json_t *out = json_array(), *rec;
	size_t i;
	pthread_mutex_lock(&c->lock);
	json_array_foreach(c->records, i, rec) {
		if (strcmp(json_string_value(json_object_get(rec, "type")), type) == 0 &&
		    strcmp(json_string_value(json_object_get(rec, "file")), file) == 0)
			json_array_append_new(out, json_deep_copy(rec));
	}
	pthread_mutex_unlock(&c->lock);
	return out;
}

static json_int_t num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* --- fixture --- */

static int setup(void **state)
{
	if (testdir_setup(state) < 0)
		return -1;
	struct ctx *c = xcalloc(1, sizeof(*c));
	c->root = *state;
	c->drop = xasprintf("%s/drop", c->root);
	c->state = xasprintf("%s/state", c->root);
	c->conf = xasprintf("%s/conf", c->root);
	pthread_mutex_init(&c->lock, NULL);
	c->records = json_array();
	if (mkdir(c->drop, 0755) < 0 || mkdir(c->conf, 0755) < 0)
		return -1;
	_cleanup_free_ char *yaml = xasprintf("drop_dir: %s\nstate_dir: %s\nworkers: 2\n"
					      "settle_delay: 40ms\nmax_file_size: 1m\n"
					      "log_level: warn\n", c->drop, c->state);
	put(c->conf, "agent.yaml", yaml);
	/* Every file here is written by this one uid, approvals too. */
	put(c->conf, "security.yaml", "allow_self_approval: true\n");
	char *err = NULL;
	if (config_load(c->conf, &c->cfg, &err) < 0) {
		fprintf(stderr, "config: %s\n", err);
		return -1;
	}
	c->stages = (struct daemon_stages){ .assess = stage_assess, .execute = stage_execute,
					    .audit = stage_audit,
					    .audit_sidecar = stage_audit_sidecar, .ctx = c };
	*state = c;
	return 0;
}

static void *loop_main(void *arg)
{
	daemon_run(arg);
	return NULL;
}

static void start(struct ctx *c, bool with_stages)
{
	struct daemon_options o = { .cfg = c->cfg, .stages = with_stages ? &c->stages : NULL,
				    .retry_base_ms = c->retry_base_ms ? c->retry_base_ms : 50 };
	char *err = NULL;
	assert_int_equal(daemon_new(&o, &c->d, &err), 0);
	assert_int_equal(pthread_create(&c->thread, NULL, loop_main, c->d), 0);
}

static void stop(struct ctx *c)
{
	if (!c->d)
		return;
	daemon_request_stop(c->d);
	pthread_join(c->thread, NULL);
	daemon_free(c->d);
	c->d = NULL;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	stop(c);
	config_free(c->cfg);
	json_decref(c->records);
	free(c->drop);
	free(c->state);
	free(c->conf);
	*state = c->root;
	free(c);
	return testdir_teardown(state);
}

/* Waits (up to ms) until the sidecar of script says state; returns it. */
static json_t *wait_state_for(struct ctx *c, const char *sidecar, const char *state, int ms)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", c->drop, sidecar);
	for (int i = 0; i < ms / 10; i++) {
		json_t *o = json_load_file(path, 0, NULL);
		const char *s = o ? json_string_value(json_object_get(o, "state")) : NULL;
		if (s && strcmp(s, state) == 0)
			return o;
		json_decref(o);
		sleep_ms(10);
	}
	json_t *o = json_load_file(path, 0, NULL);
	fail_msg("%s never reached state %s (now: %s)", sidecar, state,
		 o ? json_string_value(json_object_get(o, "state")) : "no sidecar");
	return NULL;
}

static json_t *wait_state(struct ctx *c, const char *sidecar, const char *state)
{
	return wait_state_for(c, sidecar, state, 5000);
}

static const char *str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* --- tests --- */

static void test_this_build_rejects_hostile_drops_and_says_what_is_missing(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *link = xasprintf("%s/x.py", c->drop);
	_cleanup_free_ char *fifo = xasprintf("%s/pipe.py", c->drop);
	_cleanup_free_ char *huge = xasprintf("%s/huge.py", c->drop);

	start(c, false);
	assert_int_equal(symlink("/etc/shadow", link), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	_cleanup_close_ int fd = open(huge, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_int_equal(ftruncate(fd, 50 << 20), 0);
	close(steal_fd(&fd));
	put(c->drop, "bad\xff.py", "x = 1\n");
	put(c->drop, "new\nline.py", "print('hi')\n");

	json_t *o = wait_state(c, "x.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "symlink");
	assert_string_equal(str(o, "message"),
			    "Rejected: The name is a symbolic link, which the agent never follows: "
			    "copy the script itself into the drop directory.");
	json_decref(o);
	o = wait_state(c, "pipe.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "not_regular");
	json_decref(o);
	o = wait_state(c, "huge.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "too_large");
	json_decref(o);
	o = wait_state(c, "bad\xff.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "bad_name");
	assert_string_equal(str(o, "file"), "bad\\xff.py");
	json_decref(o);
	o = wait_state(c, "new\nline.result.json", "error");
	assert_string_equal(str(o, "reason"), "no_assessor");
	assert_string_equal(str(o, "file"), "new\nline.py");
	assert_string_equal(str(o, "message"),
			    "The agent cannot finish this job (the assessor is not part of this "
			    "build of the agent) and does not retry it: fix that, then save the "
			    "file again; 'mai-agent status' and the agent log say more.");
	json_decref(o);

	stop(c);
	_cleanup_free_ char *sp = xasprintf("%s/status.json", c->state);
	json_t *st = json_load_file(sp, 0, NULL);
	assert_non_null(st);
	json_t *states = json_object_get(st, "states");
	assert_int_equal(json_integer_value(json_object_get(states, "rejected")), 4);
	assert_true(json_is_true(json_object_get(st, "watching")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "queue"),
							    "workers")), 2);
	json_decref(st);
}

static void test_levels_answers_and_edits(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	start(c, true);

	put(c->drop, "low.py", "# level: LOW\n# exit: 3\n");
	json_t *o = wait_state(c, "low.result.json", "completed");
	assert_string_equal(str(o, "verdict"), "exited");
	assert_int_equal(json_integer_value(json_object_get(o, "exit_code")), 3);
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "audit"), "seqs")), 4);
	json_decref(o);

	/* HIGH waits; an approval lets this content run, by the user. */
	put(c->drop, "high.py", "# level: HIGH\n");
	o = wait_state(c, "high.result.json", "awaiting_confirmation");
	assert_non_null(strstr(str(o, "message"), "'mai-agent approve high.py'"));
	json_decref(o);
	assert_int_equal(approval_write(c->drop, "high.py", APPROVAL_APPROVE, NULL, "looked",
					&err), 0);
	o = wait_state(c, "high.result.json", "completed");
	json_t *dec = json_object_get(o, "decision");
	assert_string_equal(str(dec, "by"), "user");
	assert_string_equal(str(dec, "reason"), "looked");
	assert_int_equal(json_integer_value(json_object_get(dec, "uid")), getuid());
	json_decref(o);
	/* The approval is a record of its own, between the assessment and the
	 * decision that cites it. */
	json_t *recs = records_of(c, "high.py", "approval");
	assert_int_equal(json_array_size(recs), 1);
	json_t *ra = json_array_get(recs, 0);
	assert_true(json_is_true(json_object_get(ra, "accepted")));
	assert_string_equal(str(ra, "explanation"), "looked");
	assert_string_equal(str(ra, "consumed"), "removed");
	assert_int_equal(num(ra, "uid"), getuid());
	assert_null(json_object_get(ra, "reused"));
	json_t *decs = records_of(c, "high.py", "decision"), *ass = records_of(c, "high.py", "assessment");
	json_t *last = json_array_get(decs, json_array_size(decs) - 1);
	json_t *last_ass = json_array_get(ass, json_array_size(ass) - 1);
	assert_string_equal(str(last, "by"), "user");
	assert_int_equal(num(last, "answer_seq"), num(ra, "seq"));
	assert_int_equal(num(last, "job"), num(ra, "job"));
	assert_int_equal(num(last_ass, "job"), num(ra, "job"));
	assert_true(num(last_ass, "seq") < num(ra, "seq") && num(ra, "seq") < num(last, "seq"));
	json_decref(recs);
	json_decref(decs);
	json_decref(ass);

	/* BLOCKED: an empty override is refused (and consumed), a real one
	 * runs it, and an edit afterwards needs a new one. */
	const char *bad_v1 = "# level: BLOCKED\n";
	char bad_v1_sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(bad_v1, strlen(bad_v1), bad_v1_sha);
	put(c->drop, "bad.py", bad_v1);
	o = wait_state(c, "bad.result.json", "blocked");
	json_decref(o);
	put(c->drop, "bad.override", "\n");
	for (int i = 0; i < 300; i++) {
		o = wait_state(c, "bad.result.json", "blocked");
		bool said = str(o, "message") && strstr(str(o, "message"), "was empty");
		json_decref(o);
		if (said)
			break;
		sleep_ms(10);
	}
	o = wait_state(c, "bad.result.json", "blocked");
	assert_non_null(strstr(str(o, "message"), "bad.override was empty"));
	json_decref(o);
	put(c->drop, "bad.override", "demo of the sandbox, reviewed\n");
	o = wait_state(c, "bad.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"),
			    "demo of the sandbox, reviewed");
	json_decref(o);
	put(c->drop, "bad.py", "# level: BLOCKED\nprint('edited')\n");
	o = wait_state(c, "bad.result.json", "blocked");
	json_decref(o);
	_cleanup_free_ char *ov = xasprintf("%s/bad.override", c->drop);
	struct stat st;
	assert_int_equal(stat(ov, &st), -1); /* consumed */

	/* Both overrides are recorded: the empty one refused, the real one
	 * with its explanation and its author. */
	recs = records_of(c, "bad.py", "override");
	assert_int_equal(json_array_size(recs), 2);
	json_t *r0 = json_array_get(recs, 0), *r1 = json_array_get(recs, 1);
	assert_false(json_is_true(json_object_get(r0, "accepted")));
	assert_string_equal(str(r0, "explanation"), "");
	assert_string_equal(str(r0, "consumed"), "refused: empty");
	assert_int_equal(num(r0, "uid"), getuid());
	assert_true(json_is_true(json_object_get(r1, "accepted")));
	assert_string_equal(str(r1, "explanation"), "demo of the sandbox, reviewed");
	assert_string_equal(str(r1, "consumed"), "removed");
	assert_string_equal(str(r1, "sha256"), bad_v1_sha);
	json_decref(recs);

	/* An override written for the first version does not run the edited
	 * one: consumed, and recorded as refused with the content it named. */
	assert_int_equal(approval_write(c->drop, "bad.py", APPROVAL_OVERRIDE, bad_v1_sha,
					"reviewed the first version", &err), 0);
	for (int i = 0; i < 300; i++) {
		o = wait_state(c, "bad.result.json", "blocked");
		bool said = str(o, "message") && strstr(str(o, "message"), "for other content");
		json_decref(o);
		if (said)
			break;
		sleep_ms(10);
	}
	o = wait_state(c, "bad.result.json", "blocked");
	assert_non_null(strstr(str(o, "message"), "bad.override was for other content"));
	json_decref(o);
	recs = records_of(c, "bad.py", "override");
	assert_int_equal(json_array_size(recs), 3);
	json_t *r2 = json_array_get(recs, 2);
	assert_false(json_is_true(json_object_get(r2, "accepted")));
	assert_string_equal(str(r2, "consumed"), "refused: stale content");
	assert_string_equal(str(r2, "pinned_sha256"), bad_v1_sha);
	assert_string_equal(str(r2, "explanation"), "reviewed the first version");
	assert_string_not_equal(str(r2, "sha256"), bad_v1_sha);
	json_decref(recs);
}

/* A running agent holding h.py, a HIGH script, for a confirmation. */
static void hold_high(struct ctx *c)
{
	start(c, true);
	put(c->drop, "h.py", "# level: HIGH\n");
	json_decref(wait_state(c, "h.result.json", "awaiting_confirmation"));
}

/* Docker down after the user approved: the job is retried with the same
 * approval (already consumed), and runs when Docker is back. */
static void test_approved_run_survives_a_docker_outage(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	hold_high(c);
	pthread_mutex_lock(&c->lock);
	c->execute_failures = 2;
	pthread_mutex_unlock(&c->lock);
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "ok", &err), 0);
	json_t *o = wait_state(c, "h.result.json", "error");
	assert_string_equal(str(o, "reason"), "sandbox_unavailable");
	assert_non_null(strstr(str(o, "message"), "Docker is not reachable"));
	json_decref(o);
	o = wait_state(c, "h.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "by"), "user");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), "ok");
	json_decref(o);
	assert_int_equal(c->executed, 1);
	/* Each attempt records the answer it rests on; the retries say that an
	 * earlier attempt consumed it, and which record that was. */
	json_t *recs = records_of(c, "h.py", "approval");
	json_t *decs = records_of(c, "h.py", "decision");
	assert_int_equal(json_array_size(recs), 3);
	assert_int_equal(json_array_size(decs), 4); /* the hold, then three attempts */
	for (size_t i = 0; i < 3; i++) {
		json_t *ra = json_array_get(recs, i);
		assert_true(json_is_true(json_object_get(ra, "accepted")));
		assert_string_equal(str(ra, "explanation"), "ok");
		assert_int_equal(num(json_array_get(decs, i + 1), "answer_seq"), num(ra, "seq"));
		if (i == 0) {
			assert_null(json_object_get(ra, "reused"));
		} else {
			assert_true(json_is_true(json_object_get(ra, "reused")));
			assert_int_equal(num(ra, "first_seq"), num(json_array_get(recs, 0), "seq"));
		}
	}
	json_decref(recs);
	json_decref(decs);
}

/* An approval whose record cannot be written does not let anything run; it
 * is not lost either: the retry records it, then runs. */
static void test_unrecorded_approval_is_kept_for_the_retry(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	hold_high(c);
	pthread_mutex_lock(&c->lock);
	c->audit_fails_for = AUDIT_EVENT_APPROVAL + 1;
	pthread_mutex_unlock(&c->lock);
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "read it", &err), 0);
	json_t *o = wait_state(c, "h.result.json", "error");
	assert_string_equal(str(o, "reason"), "audit_unwritable");
	json_decref(o);
	assert_int_equal(c->executed, 0);
	_cleanup_free_ char *ans = xasprintf("%s/h.approve", c->drop);
	struct stat st;
	assert_int_equal(stat(ans, &st), -1); /* consumed all the same */

	pthread_mutex_lock(&c->lock);
	c->audit_fails_for = 0;
	pthread_mutex_unlock(&c->lock);
	o = wait_state(c, "h.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), "read it");
	json_decref(o);
	assert_int_equal(c->executed, 1);
	json_t *recs = records_of(c, "h.py", "approval");
	assert_int_equal(json_array_size(recs), 1);
	json_t *ra = json_array_get(recs, 0);
	assert_true(json_is_true(json_object_get(ra, "reused")));
	assert_null(json_object_get(ra, "first_seq")); /* the first record there is */
	assert_string_equal(str(ra, "explanation"), "read it");
	json_decref(recs);
}

/* Retries double from the base and stop growing at docker.retry_backoff_max:
 * with a 400 ms base and a 1 s cap, four failures pause 0.4 + 0.8 + 1 + 1 s
 * (3.2 s), not 6 s uncapped nor 1.6 s without a backoff. */
static void test_retry_pauses_grow_up_to_retry_backoff_max(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	_cleanup_free_ char *yaml = xasprintf("drop_dir: %s\nstate_dir: %s\nsettle_delay: 40ms\n"
					      "log_level: warn\ndocker:\n  retry_backoff_max: 1s\n",
					      c->drop, c->state);
	put(c->conf, "agent.yaml", yaml);
	config_free(c->cfg);
	assert_int_equal(config_load(c->conf, &c->cfg, &err), 0);
	c->retry_base_ms = 400;
	c->execute_failures = 4;
	start(c, true);
	uint64_t t0 = (uint64_t)monoclock_ms();
	put(c->drop, "r.py", "# level: LOW\n");
	json_decref(wait_state(c, "r.result.json", "error"));
	json_decref(wait_state_for(c, "r.result.json", "completed", 8000));
	uint64_t ms = (uint64_t)monoclock_ms() - t0;
	assert_int_equal(c->executed, 1);
	if (ms < 3000 || ms > 4800)
		fail_msg("four retries took %llu ms, expected about 3200", (unsigned long long)ms);
}

static void test_many_drops_each_answered_once_and_not_again_after_restart(void **state)
{
	struct ctx *c = *state;
	char name[32], side[48];
	const unsigned n = 200;

	start(c, true);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "f%03u.py", i);
		_cleanup_free_ char *text = xasprintf("# level: LOW\n# exit: %u\n", i % 7);
		put(c->drop, name, text);
	}
	for (unsigned i = 0; i < n; i++) {
		snprintf(side, sizeof(side), "f%03u.result.json", i);
		json_t *o = wait_state(c, side, "completed");
		assert_int_equal(json_integer_value(json_object_get(o, "exit_code")), i % 7);
		json_decref(o);
	}
	stop(c);
	assert_int_equal(c->executed, n);

	/* A restart rescans: everything has a final result, nothing runs. */
	start(c, true);
	put(c->drop, "new.py", "# level: LOW\n");
	json_decref(wait_state(c, "new.result.json", "completed"));
	stop(c);
	assert_int_equal(c->executed, n + 1);
}

static void test_audit_failure_means_nothing_runs(void **state)
{
	struct ctx *c = *state;
	c->audit_fails = true;
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n");
	json_t *o = wait_state(c, "a.result.json", "error");
	assert_string_equal(str(o, "reason"), "audit_unwritable");
	assert_non_null(strstr(str(o, "message"), "the audit log cannot be written"));
	json_decref(o);
	assert_int_equal(c->executed, 0);

	/* When the log works again the retry runs it. */
	pthread_mutex_lock(&c->lock);
	c->audit_fails = false;
	pthread_mutex_unlock(&c->lock);
	json_decref(wait_state(c, "a.result.json", "completed"));
	assert_int_equal(c->executed, 1);
	stop(c);
	_cleanup_free_ char *sp = xasprintf("%s/status.json", c->state);
	json_t *st = json_load_file(sp, 0, NULL);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "queue"),
							    "retrying")), 0);
	json_decref(st);
}

/* security.yaml becomes yaml, loaded anew (before start). */
static void use_security(struct ctx *c, const char *yaml)
{
	char *err = NULL;
	put(c->conf, "security.yaml", yaml);
	config_free(c->cfg);
	if (config_load(c->conf, &c->cfg, &err) < 0)
		fail_msg("config: %s", err);
}

/* Puts name in the drop directory as the file of uid: written aside, given
 * to uid, renamed into place (so the agent never sees another owner). */
static void put_as(struct ctx *c, const char *name, const char *text, uid_t uid)
{
	_cleanup_free_ char *aside = xasprintf("%s/aside", c->root);
	_cleanup_free_ char *dst = xasprintf("%s/%s", c->drop, name);
	assert_int_equal(fileio_write_atomic(aside, text, strlen(text), 0644), 0);
	assert_int_equal(chown(aside, uid, uid), 0);
	assert_int_equal(rename(aside, dst), 0);
}

/* Waits until the sidecar's message holds what. */
static json_t *wait_message(struct ctx *c, const char *sidecar, const char *state,
			    const char *what)
{
	for (int i = 0; i < 500; i++) {
		json_t *o = wait_state(c, sidecar, state);
		if (str(o, "message") && strstr(str(o, "message"), what))
			return o;
		json_decref(o);
		sleep_ms(10);
	}
	json_t *o = wait_state(c, sidecar, state);
	fail_msg("%s: the message never said '%s': %s", sidecar, what, str(o, "message"));
	return NULL;
}

/* Answers from someone who may not give them are refused, recorded, and
 * left in place; the approver's answer then runs the script; one's own
 * script needs allow_self_approval. Real files of other uids (as root). */
static void test_answers_checked_by_who_wrote_them(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	if (geteuid() != 0)
		skip(); /* files of other uids need root */
	use_security(c, "approvers:\n  users: [root]\n  groups: []\n");
	start(c, true);
	put_as(c, "h.py", "# level: HIGH\n", 1000);
	json_t *o = wait_state(c, "h.result.json", "awaiting_confirmation");
	assert_int_equal(num(json_object_get(o, "writer"), "uid"), 1000);
	json_decref(o);

	put_as(c, "h.approve", "sha256: 0000\nplease\n", 999);
	o = wait_message(c, "h.result.json", "awaiting_confirmation", "who is not an approver");
	assert_non_null(strstr(str(o, "message"), "only user root may approve"));
	assert_non_null(strstr(str(o, "message"), "'mai-agent approve h.py'"));
	json_decref(o);
	_cleanup_free_ char *ans = xasprintf("%s/h.approve", c->drop);
	struct stat st;
	assert_int_equal(stat(ans, &st), 0); /* left in place */
	json_t *recs = records_of(c, "h.py", "approval");
	assert_int_equal(json_array_size(recs), 1);
	json_t *ra = json_array_get(recs, 0);
	assert_false(json_is_true(json_object_get(ra, "accepted")));
	assert_int_equal(num(ra, "uid"), 999);
	assert_string_equal(str(ra, "consumed"), "refused: not an approver");
	assert_string_equal(str(ra, "status"), "not_approver");
	assert_true(json_is_true(json_object_get(ra, "left_in_place")));
	assert_string_equal(str(ra, "explanation"), ""); /* never read */
	json_decref(recs);

	/* root is an approver and did not write h.py: its answer replaces the
	 * refused one and runs the script. */
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "reviewed", &err), 0);
	o = wait_state(c, "h.result.json", "completed");
	assert_int_equal(num(json_object_get(o, "decision"), "uid"), 0);
	assert_string_equal(str(json_object_get(o, "decision"), "user"), "root");
	json_decref(o);

	/* root's own script: refused as self-approval, left in place ... */
	put(c->drop, "s.py", "# level: HIGH\n");
	json_decref(wait_state(c, "s.result.json", "awaiting_confirmation"));
	assert_int_equal(approval_write(c->drop, "s.py", APPROVAL_APPROVE, NULL, "mine", &err), 0);
	o = wait_message(c, "s.result.json", "awaiting_confirmation", "who also wrote s.py");
	assert_non_null(strstr(str(o, "message"), "allow_self_approval: true"));
	json_decref(o);
	recs = records_of(c, "s.py", "approval");
	assert_string_equal(str(json_array_get(recs, 0), "consumed"), "refused: self-approval");
	json_decref(recs);
	stop(c);
	/* ... and taken at the next start once the setting allows it. */
	use_security(c, "allow_self_approval: true\n");
	start(c, true);
	o = wait_state(c, "s.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), "mine");
	json_decref(o);
}

/* ln /root/secret.py drop/x.py: rejected without reading a byte of it;
 * a hard-linked answer is refused the same way. */
static void test_hard_links_are_never_read(void **state)
{
	struct ctx *c = *state;
	const char *secret_text = "# level: LOW\nSECRET-4711\n";
	_cleanup_free_ char *secret = xasprintf("%s/secret.py", c->root);
	_cleanup_free_ char *x = xasprintf("%s/x.py", c->drop);
	assert_int_equal(fileio_write_atomic(secret, secret_text, strlen(secret_text), 0600), 0);
	start(c, true);
	assert_int_equal(link(secret, x), 0);
	json_t *o = wait_state(c, "x.result.json", "rejected");
	assert_string_equal(str(o, "reason"), "hard_link");
	assert_non_null(strstr(str(o, "message"), "more than one link (a hard link"));
	assert_null(json_object_get(o, "sha256"));
	assert_int_equal(json_array_size(json_object_get(json_object_get(o, "audit"), "seqs")), 1);
	json_decref(o);
	json_t *recs = records_of(c, "x.py", "intake_rejected");
	assert_int_equal(json_array_size(recs), 1);
	assert_string_equal(str(json_array_get(recs, 0), "reason"), "hard_link");
	assert_int_equal(num(json_array_get(recs, 0), "links"), 2);
	json_decref(recs);
	pthread_mutex_lock(&c->lock);
	char *all = json_dumps(c->records, 0);
	unsigned assessed = c->assessed;
	pthread_mutex_unlock(&c->lock);
	assert_null(strstr(all, "SECRET-4711"));
	free(all);
	assert_int_equal(assessed, 0);
	char hex[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(secret_text, strlen(secret_text), hex);
	_cleanup_free_ char *blob = xasprintf("%s/blobs/%.2s/%s", c->state, hex, hex);
	struct stat st;
	assert_int_equal(stat(blob, &st), -1); /* not in the version store */

	/* A hard-linked answer: left in place, unread. */
	put(c->drop, "h.py", "# level: HIGH\n");
	json_decref(wait_state(c, "h.result.json", "awaiting_confirmation"));
	_cleanup_free_ char *ans = xasprintf("%s/ok", c->root);
	_cleanup_free_ char *hap = xasprintf("%s/h.approve", c->drop);
	assert_int_equal(fileio_write_atomic(ans, "fine\n", 5, 0644), 0);
	assert_int_equal(link(ans, hap), 0);
	o = wait_message(c, "h.result.json", "awaiting_confirmation", "h.approve has 2 links");
	json_decref(o);
	recs = records_of(c, "h.py", "approval");
	assert_string_equal(str(json_array_get(recs, 0), "consumed"), "refused: hard link");
	assert_string_equal(str(json_array_get(recs, 0), "explanation"), "");
	json_decref(recs);
	assert_int_equal(stat(hap, &st), 0);
	assert_int_equal(c->executed, 0);
}

/* What others put at the names the agent writes is never written through
 * nor blocked on: the answer goes to the fallback copy, and the agent goes
 * on. A crash's temporaries of the agent are cleared at start. */
static void test_sidecar_names_prepared_by_others(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *fifo = xasprintf("%s/f.result.json", c->drop);
	_cleanup_free_ char *target = xasprintf("%s/target", c->root);
	_cleanup_free_ char *sym = xasprintf("%s/g.audit", c->drop);
	_cleanup_free_ char *old_tmp = xasprintf("%s/k.result.json.tmp.%ld", c->drop, (long)getpid());
	_cleanup_free_ char *left = xasprintf("%s/" DIRWRITE_TEMP_PREFIX "0123456789abcdef", c->drop);
	_cleanup_free_ char *dirname_py = xasprintf("%s/d.result.json", c->drop);
	struct stat st;

	assert_int_equal(mkfifo(fifo, 0666), 0);
	assert_int_equal(fileio_write_atomic(target, "untouched\n", 10, 0600), 0);
	assert_int_equal(symlink(target, sym), 0);
	assert_int_equal(mkfifo(old_tmp, 0666), 0);
	assert_int_equal(mkdir(dirname_py, 0755), 0);
	assert_int_equal(fileio_write_atomic(left, "half", 4, 0600), 0);
	start(c, true);
	assert_int_equal(stat(left, &st), -1); /* cleared at start */
	put(c->drop, "f.py", "# level: LOW\n");
	put(c->drop, "g.py", "# level: LOW\n");
	put(c->drop, "k.py", "# level: LOW\n");
	put(c->drop, "d.py", "# level: LOW\n");
	json_decref(wait_state(c, "g.result.json", "completed"));
	json_decref(wait_state(c, "k.result.json", "completed"));
	_cleanup_free_ char *fb_f = xasprintf("%s/unplaced/f.result.json", c->state);
	_cleanup_free_ char *fb_g = xasprintf("%s/unplaced/g.audit", c->state);
	_cleanup_free_ char *fb_d = xasprintf("%s/unplaced/d.result.json", c->state);
	for (int i = 0; i < 500 && (stat(fb_f, &st) < 0 || stat(fb_d, &st) < 0); i++)
		sleep_ms(10);
	json_t *o = json_load_file(fb_f, 0, NULL);
	assert_non_null(o);
	assert_string_equal(str(o, "state"), "completed");
	json_decref(o);
	assert_int_equal(stat(fb_g, &st), 0);
	assert_int_equal(stat(fb_d, &st), 0);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(lstat(sym, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(lstat(dirname_py, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	char *text = NULL;
	size_t len;
	assert_int_equal(fileio_read_path(target, 64, &text, &len), 0);
	assert_string_equal(text, "untouched\n");
	free(text);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (geteuid() == 0) {
		/* Another user's regular file at a sidecar's name: left as it is. */
		_cleanup_free_ char *theirs = xasprintf("%s/m.result.json", c->drop);
		assert_int_equal(fileio_write_atomic(theirs, "mine\n", 5, 0644), 0);
		assert_int_equal(chown(theirs, 999, 999), 0);
		put(c->drop, "m.py", "# level: LOW\n");
		_cleanup_free_ char *fb_m = xasprintf("%s/unplaced/m.result.json", c->state);
		for (int i = 0; i < 500 && stat(fb_m, &st) < 0; i++)
			sleep_ms(10);
		assert_int_equal(stat(fb_m, &st), 0);
		assert_int_equal(stat(theirs, &st), 0);
		assert_int_equal(st.st_uid, 999);
		assert_int_equal(st.st_size, 5);
	}
	/* Once the name is free, the next answer lands there again and the
	 * fallback copy goes. */
	assert_int_equal(unlink(fifo), 0);
	put(c->drop, "f.py", "# level: LOW\nprint(2)\n");
	for (int i = 0; i < 500 && stat(fb_f, &st) == 0; i++)
		sleep_ms(10);
	assert_int_equal(stat(fb_f, &st), -1);
	json_decref(wait_state(c, "f.result.json", "completed"));
	stop(c); /* and it stops as ever */
}

/* A name whose sidecars cannot fit is answered under the short name. */
static void test_long_name_is_answered(void **state)
{
	struct ctx *c = *state;
	char name[256];
	memset(name, 'l', 248);
	strcpy(name + 248, ".py");
	start(c, true);
	/* Written in place: a temporary name would not fit either. */
	_cleanup_free_ char *path = xasprintf("%s/%s", c->drop, name);
	_cleanup_close_ int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(fileio_write_all(fd, "# level: LOW\n", 13), 0);
	close(steal_fd(&fd));
	_cleanup_free_ char *side = names_result_sidecar(name, ".result.json");
	json_t *o = wait_state(c, side, "rejected");
	assert_string_equal(str(o, "reason"), "name_too_long");
	assert_non_null(strstr(str(o, "message"), "Rename the script to at most 246 bytes"));
	assert_string_equal(str(o, "file"), name);
	json_decref(o);
	assert_int_equal(c->executed, 0);
}

int main(void)
{
	log_init("test_daemon", LOG_LEVEL_WARN);
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_this_build_rejects_hostile_drops_and_says_what_is_missing),
		T(test_levels_answers_and_edits),
		T(test_approved_run_survives_a_docker_outage),
		T(test_unrecorded_approval_is_kept_for_the_retry),
		T(test_retry_pauses_grow_up_to_retry_backoff_max),
		T(test_many_drops_each_answered_once_and_not_again_after_restart),
		T(test_audit_failure_means_nothing_runs),
		T(test_answers_checked_by_who_wrote_them),
		T(test_hard_links_are_never_read),
		T(test_sidecar_names_prepared_by_others),
		T(test_long_name_is_answered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
