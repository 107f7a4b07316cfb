/* The daemon's loop with real inotify, real files, the real config loader and
 * real worker threads, in a temporary directory.
 *
 * The first test runs the daemon without stages (a script is answered
 * "error: the assessor is not part of this build"). The others plug in the
 * fixture's TEST STAGES (daemon_fixture.h), stand-ins that read the level
 * and the exit status from comments in the script, so that the daemon's own
 * work (policy, answers, ordering, sidecars, idempotence, audit failure) is
 * checked alone. The end-to-end tests with the real assessor, Docker and
 * audit log are in tests/integration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "approval.h"
#include "approvers.h"
#include "daemon_job.h"
#include "daemon_mount.h"
#include "daemon_fixture.h"
#include "testdir.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "monoclock.h"
#include "names.h"

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

/* A job whose records were only queued when it ends (a build without the
 * assessor: its job_accepted is queued and no durable record follows)
 * makes them durable before its answer, which then cites them; when the
 * log refuses that (changed behind the agent), the answer cites nothing. */
static void test_queued_records_made_durable_at_the_end(void **state)
{
	struct ctx *c = *state;
	c->queue = true;
	c->stages.assess = NULL;
	start(c, true);

	put(c->drop, "a.py", "x = 1\n");
	json_t *o = wait_state(c, "a.result.json", "error");
	assert_string_equal(str(o, "reason"), "no_assessor");
	json_t *acc = records_of(c, "a.py", "job_accepted");
	assert_int_equal(json_array_size(acc), 1);
	json_int_t seq = num(json_array_get(acc, 0), "seq");
	json_decref(acc);
	pthread_mutex_lock(&c->lock);
	assert_int_equal(c->synced, seq);
	c->sync_result = -EBADMSG;
	pthread_mutex_unlock(&c->lock);
	json_t *seqs = json_object_get(json_object_get(o, "audit"), "seqs");
	assert_int_equal(json_array_size(seqs), 1);
	assert_int_equal(json_integer_value(json_array_get(seqs, 0)), seq);
	json_decref(o);

	put(c->drop, "b.py", "x = 2\n");
	o = wait_state(c, "b.result.json", "error");
	assert_null(json_object_get(o, "audit")); /* its record was not made durable */
	json_decref(o);
	stop(c);
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
	testdir_tick();
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
	testdir_tick();
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
 * approval (already consumed), and runs when Docker is back. The retries go
 * on from the job's records: one approval, one decision, a retry record per
 * failed attempt, one execution. */
static void test_approved_run_survives_a_docker_outage(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	hold_high(c);
	pthread_mutex_lock(&c->lock);
	c->execute_failures = 2;
	pthread_mutex_unlock(&c->lock);
	testdir_tick();
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "ok", &err), 0);
	json_t *o = wait_state(c, "h.result.json", "error");
	assert_string_equal(str(o, "reason"), "sandbox_unavailable");
	assert_non_null(strstr(str(o, "message"), "Docker is not reachable"));
	json_decref(o);
	o = wait_state(c, "h.result.json", "completed");
	assert_string_equal(str(json_object_get(o, "decision"), "by"), "user");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), "ok");
	json_t *seqs = json_object_get(json_object_get(o, "audit"), "seqs");
	assert_int_equal(c->executed, 1);
	json_t *recs = records_of(c, "h.py", "approval");
	json_t *decs = records_of(c, "h.py", "decision");
	json_t *retries = records_of(c, "h.py", "retry");
	json_t *accepted = records_of(c, "h.py", "job_accepted");
	json_t *runs = records_of(c, "h.py", "execution");
	assert_int_equal(json_array_size(recs), 1);
	assert_int_equal(json_array_size(decs), 2); /* the hold, then the approved attempt */
	assert_int_equal(json_array_size(accepted), 2);
	assert_int_equal(json_array_size(retries), 2);
	assert_int_equal(json_array_size(runs), 1);
	json_t *ra = json_array_get(recs, 0), *dec = json_array_get(decs, 1);
	assert_true(json_is_true(json_object_get(ra, "accepted")));
	assert_string_equal(str(ra, "explanation"), "ok");
	assert_int_equal(num(dec, "answer_seq"), num(ra, "seq"));
	for (size_t i = 0; i < 2; i++) {
		json_t *rt = json_array_get(retries, i);
		assert_int_equal(num(rt, "job"), num(dec, "job"));
		assert_int_equal(num(rt, "attempt"), (json_int_t)i + 1);
		assert_string_equal(str(rt, "reason"), "sandbox_unavailable");
	}
	assert_int_equal(num(json_array_get(runs, 0), "job"), num(dec, "job"));
	/* The sidecar cites every record of the job, the retries included:
	 * job_accepted, assessment, approval, decision, two retries, execution. */
	assert_int_equal(json_array_size(seqs), 7);
	assert_int_equal(json_integer_value(json_array_get(seqs, 0)), num(dec, "job"));
	assert_int_equal(json_integer_value(json_array_get(seqs, 6)), num(json_array_get(runs, 0), "seq"));
	json_decref(o);
	json_decref(recs);
	json_decref(decs);
	json_decref(retries);
	json_decref(accepted);
	json_decref(runs);
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
	testdir_tick();
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

/* An assessment that fails, or whose record the audit log refuses, is an
 * error answer that says why and is tried again; the retry runs it. */
static void test_assessment_failing(void **state)
{
	struct ctx *c = *state;
	c->assess_failures = 1;
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n");
	json_t *o = wait_state(c, "a.result.json", "error");
	assert_string_equal(str(o, "reason"), "assessor_failed");
	assert_non_null(strstr(str(o, "message"), "the assessment failed (see the agent log)"));
	json_decref(o);
	json_decref(wait_state(c, "a.result.json", "completed"));

	pthread_mutex_lock(&c->lock);
	c->audit_fails_for = AUDIT_EVENT_ASSESSMENT + 1;
	pthread_mutex_unlock(&c->lock);
	put(c->drop, "b.py", "# level: LOW\n");
	o = wait_state(c, "b.result.json", "error");
	assert_string_equal(str(o, "reason"), "audit_unwritable");
	json_decref(o);
	pthread_mutex_lock(&c->lock);
	c->audit_fails_for = 0;
	pthread_mutex_unlock(&c->lock);
	json_decref(wait_state(c, "b.result.json", "completed"));
	stop(c);
	assert_int_equal(c->executed, 2);
}

/* An assessment that cannot be made yet because the engine lacks what it
 * needs (the image that reads a PEP 723 block) is an error answer, never a
 * final one: it says what is missing and what to run, the retry record
 * says the same, and the retry runs the script once it can be assessed. */
static void test_assessment_waiting_for_an_image(void **state)
{
	struct ctx *c = *state;
	c->assess_failures = 1;
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n# needs image\n");
	json_t *o = wait_state(c, "a.result.json", "error");
	assert_string_equal(str(o, "reason"), "sandbox_unavailable");
	assert_non_null(strstr(str(o, "message"), "build.sh --variant pip"));
	json_decref(o);
	json_decref(wait_state(c, "a.result.json", "completed"));
	stop(c);
	json_t *retries = records_of(c, "a.py", "retry");
	assert_int_equal(json_array_size(retries), 1);
	json_t *rt = json_array_get(retries, 0);
	assert_string_equal(str(rt, "reason"), "sandbox_unavailable");
	assert_non_null(strstr(str(rt, "detail"), "mai-sandbox-pip:latest"));
	assert_non_null(strstr(str(rt, "detail"), "build.sh --variant pip"));
	json_decref(retries);
	assert_int_equal(c->executed, 1);
}

/* A final answer removed from the drop directory is written again at the
 * next start from the agent's copy, without a run; when the copy is gone
 * too, the script runs again. */
static void test_lost_answer_at_restart(void **state)
{
	struct ctx *c = *state;
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n");
	json_decref(wait_state(c, "a.result.json", "completed"));
	stop(c);
	_cleanup_free_ char *res = xasprintf("%s/a.result.json", c->drop);
	assert_int_equal(unlink(res), 0);
	start(c, true);
	json_decref(wait_state(c, "a.result.json", "completed"));
	stop(c);
	assert_int_equal(c->executed, 1);

	assert_int_equal(unlink(res), 0);
	_cleanup_free_ char *copies = xasprintf("%s/answers", c->state);
	assert_int_equal(testdir_remove_tree(copies), 0);
	start(c, true);
	json_decref(wait_state(c, "a.result.json", "completed"));
	stop(c);
	assert_int_equal(c->executed, 2);
}

/* An approval whose reason is not UTF-8 (an editor saving latin-1) is
 * taken, and its reason recorded as printable text. */
static void test_reason_not_utf8(void **state)
{
	struct ctx *c = *state;
	char *err = NULL;
	hold_high(c);
	testdir_tick();
	assert_int_equal(approval_write(c->drop, "h.py", APPROVAL_APPROVE, NULL, "caf\xe9 ok", &err), 0);
	json_t *o = wait_state(c, "h.result.json", "completed");
	_cleanup_free_ char *shown = names_printable("caf\xe9 ok");
	assert_string_equal(str(json_object_get(o, "decision"), "reason"), shown);
	json_decref(o);
	json_t *recs = records_of(c, "h.py", "approval");
	assert_string_equal(str(json_array_get(recs, 0), "explanation"), shown);
	json_decref(recs);
}

/* foo.rerun runs foo.py again as it is and is used up (removed); a
 * directory of that name (with a file in it) is no request: nothing runs
 * again, and it stays. */
static void test_rerun_requests(void **state)
{
	struct ctx *c = *state;
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n");
	json_decref(wait_state(c, "a.result.json", "completed"));
	_cleanup_free_ char *req = xasprintf("%s/a.rerun", c->drop);
	put(c->drop, "a.rerun", "");
	for (int i = 0; i < 500 && access(req, F_OK) == 0; i++)
		sleep_ms(10);
	assert_int_equal(access(req, F_OK), -1);
	json_decref(wait_state(c, "a.result.json", "completed"));
	pthread_mutex_lock(&c->lock);
	unsigned after_rerun = c->executed;
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < 500 && after_rerun < 2; i++) {
		sleep_ms(10);
		pthread_mutex_lock(&c->lock);
		after_rerun = c->executed;
		pthread_mutex_unlock(&c->lock);
	}
	assert_int_equal(after_rerun, 2);

	/* made aside and renamed in whole: never seen empty */
	_cleanup_free_ char *aside = xasprintf("%s/a.rerun", c->root);
	assert_int_equal(mkdir(aside, 0755), 0);
	put(aside, "keep", "x");
	assert_int_equal(rename(aside, req), 0);
	/* the next drop answered: the request was seen before it */
	put(c->drop, "b.py", "# level: LOW\n");
	json_decref(wait_state(c, "b.result.json", "completed"));
	stop(c);
	assert_int_equal(c->executed, 3);
	assert_int_equal(access(req, F_OK), 0);
}

/* In mount mode an answer file is refused at its write unless its writer
 * may answer: the script's own writer without allow_self_approval, and
 * anyone not an approver, each told why and what to change. */
static void test_mount_answer_allowed(void **state)
{
	static const char *const users[] = { "0" };
	struct daemon_job_env env = { .approvers = approvers_new(users, 1, NULL, 0, false) };
	struct drop_writer root = { .uid = 0 }, other = { .uid = 65534 };
	const char *status = NULL;
	char *why = NULL;
	(void)state;
	pthread_mutex_init(&env.approvers_lock, NULL);
	assert_int_equal(daemon_mount_answer_allowed(&env, &root, "a.py", 1000, &status, &why), 0);
	assert_string_equal(status, "ok");
	assert_int_equal(daemon_mount_answer_allowed(&env, &root, "a.py", -1, &status, &why), 0);
	assert_int_equal(daemon_mount_answer_allowed(&env, &root, "a.py", 0, &status, &why), -EPERM);
	assert_string_equal(status, "self_approval");
	if (!strstr(why, "wrote a.py and may not approve or override it too: another approver must "
			 "(on a single-user machine set allow_self_approval: true in security.yaml)"))
		fail_msg("%s", why);
	free(why);
	why = NULL;
	assert_int_equal(daemon_mount_answer_allowed(&env, &other, "a.py", 1000, &status, &why), -EPERM);
	assert_string_equal(status, "not_approver");
	if (!strstr(why, "may not approve or override a.py: only ") || !strstr(why, "(approvers in security.yaml)"))
		fail_msg("%s", why);
	free(why);
	approvers_unref(env.approvers);
	pthread_mutex_destroy(&env.approvers_lock);
}

/* The script history's store that cannot be made (a file where the state
 * directory's blobs/ should be, for real): the job still runs and is
 * answered; its job_accepted record says why no diff was made. */
static void test_history_store_unwritable(void **state)
{
	struct ctx *c = *state;
	assert_int_equal(mkdir(c->state, 0700), 0);
	put(c->state, "blobs", "not a directory");
	start(c, true);
	put(c->drop, "a.py", "# level: LOW\n");
	json_t *o = wait_state(c, "a.result.json", "completed");
	json_decref(o);
	stop(c);
	json_t *acc = records_of(c, "a.py", "job_accepted");
	assert_int_equal(json_array_size(acc), 1);
	const char *why = str(json_array_get(acc, 0), "history_error");
	if (!why || !strstr(why, "cannot create the version store "))
		fail_msg("history_error: %s", why ? why : "(none)");
	json_decref(acc);
	assert_int_equal(c->executed, 1);
}

/* The service manager's socket given as an abstract name ("@..."): the
 * agent says READY=1 there when it serves, and STOPPING=1 when it stops.
 * (agent_reload.sh checks a socket path.) */
static void test_notify_abstract_socket(void **state)
{
	struct ctx *c = *state;
	char name[64];
	snprintf(name, sizeof(name), "@mai-test-notify-%d", (int)getpid());
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	memcpy(sa.sun_path, name, strlen(name));
	sa.sun_path[0] = '\0';
	assert_int_equal(bind(fd, (struct sockaddr *)&sa,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name))), 0);
	assert_int_equal(setenv("NOTIFY_SOCKET", name, 1), 0);
	start(c, true);
	char got[64] = "";
	struct pollfd p = { .fd = fd, .events = POLLIN };
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(recv(fd, got, sizeof(got) - 1, 0) > 0);
	assert_string_equal(got, "READY=1");
	stop(c);
	memset(got, 0, sizeof(got));
	assert_int_equal(poll(&p, 1, 5000), 1);
	assert_true(recv(fd, got, sizeof(got) - 1, 0) > 0);
	assert_string_equal(got, "STOPPING=1");
	unsetenv("NOTIFY_SOCKET");
	close(fd);
}

/* daemon_new refuses what it cannot set up, naming the setting to fix: a
 * drop_dir_group no group has (the configuration only checks its form),
 * a state directory that cannot be made, a drop directory that is a file,
 * and notes of runs in flight that cannot be read (a file where their
 * directory should be). */
static void test_start_refusals(void **state)
{
	struct ctx *c = *state;
	_cleanup_free_ char *conf = xasprintf("%s/conf2", c->root);
	assert_int_equal(mkdir(conf, 0755), 0);
	put(c->root, "file", "x");
	_cleanup_free_ char *st3 = xasprintf("%s/state3", c->root);
	assert_int_equal(mkdir(st3, 0700), 0);
	put(st3, "running", "not a directory");
	char *yaml[4] = {
		xasprintf("drop_dir: %s\nstate_dir: %s/state\ndrop_dir_group: mai-nogroup-%d\n",
			  c->drop, c->root, (int)getpid()),
		xasprintf("drop_dir: %s\nstate_dir: %s/file/state\n", c->drop, c->root),
		xasprintf("drop_dir: %s/file\nstate_dir: %s/state2\n", c->root, c->root),
		xasprintf("drop_dir: %s\nstate_dir: %s\n", c->drop, st3),
	};
	const char *says[4] = { "drop_dir_group: there is no group 'mai-nogroup-",
				"cannot create the state directory ",
				"/file: Not a directory (agent.drop_dir in agent.yaml)",
				"/running, the notes of runs in flight: Not a directory" };
	for (size_t i = 0; i < 4; i++) {
		struct mai_config *cfg = NULL;
		struct daemon *d = NULL;
		char *err = NULL;
		put(conf, "agent.yaml", yaml[i]);
		assert_int_equal(config_load(conf, &cfg, &err), 0);
		struct daemon_options o = { .cfg = cfg };
		assert_true(daemon_new(&o, &d, &err) < 0);
		assert_null(d);
		if (!strstr(err, says[i]) || (i < 3 && !strstr(err, "agent.yaml")))
			fail_msg("case %zu: %s", i, err);
		free(err);
		config_free(cfg);
		free(yaml[i]);
	}
}

int main(void)
{
	log_init("test_daemon", LOG_LEVEL_WARN);
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_this_build_rejects_hostile_drops_and_says_what_is_missing),
		T(test_levels_answers_and_edits),
		T(test_queued_records_made_durable_at_the_end),
		T(test_approved_run_survives_a_docker_outage),
		T(test_unrecorded_approval_is_kept_for_the_retry),
		T(test_retry_pauses_grow_up_to_retry_backoff_max),
		T(test_many_drops_each_answered_once_and_not_again_after_restart),
		T(test_audit_failure_means_nothing_runs),
		T(test_start_refusals),
		T(test_history_store_unwritable),
		T(test_notify_abstract_socket),
		T(test_assessment_failing),
		T(test_assessment_waiting_for_an_image),
		T(test_lost_answer_at_restart),
		T(test_rerun_requests),
		T(test_reason_not_utf8),
		cmocka_unit_test(test_mount_answer_allowed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
