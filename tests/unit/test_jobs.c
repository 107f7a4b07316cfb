/* Real threads and a real index file in a temporary state directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "hash.h"
#include "jobs.h"
#include "fault.h"
#include "testdir.h"

/* What the run callback saw, and a gate that holds every job until the test
 * opens it. */
struct rec {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool gate_open;
	unsigned started;
	unsigned now_running, max_running;
	unsigned per_name_running[8], max_per_name;
	char order[64][16]; /* "name@tag" */
	size_t n;
	unsigned sleep_ms;
	unsigned freed;
};

struct payload {
	struct rec *rec;
	char tag[8];
	int slot; /* per-name counter index */
};

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ms * 1000000L };
	nanosleep(&ts, NULL);
}

static void run_job(void *arg, const struct jobs_item *job)
{
	struct rec *r = arg;
	struct payload *p = job->payload;

	pthread_mutex_lock(&r->lock);
	r->started++;
	r->now_running++;
	if (r->now_running > r->max_running)
		r->max_running = r->now_running;
	if (++r->per_name_running[p->slot] > r->max_per_name)
		r->max_per_name = r->per_name_running[p->slot];
	snprintf(r->order[r->n++], sizeof(r->order[0]), "%s@%s", job->name, p->tag);
	pthread_cond_broadcast(&r->cond);
	while (!r->gate_open)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);

	if (r->sleep_ms)
		sleep_ms(r->sleep_ms);

	pthread_mutex_lock(&r->lock);
	r->now_running--;
	r->per_name_running[p->slot]--;
	pthread_mutex_unlock(&r->lock);
}

static void free_payload(void *v)
{
	struct payload *p = v;
	pthread_mutex_lock(&p->rec->lock);
	p->rec->freed++;
	pthread_cond_broadcast(&p->rec->cond);
	pthread_mutex_unlock(&p->rec->lock);
	free(p);
}

static struct payload *pl(struct rec *r, const char *tag, int slot)
{
	struct payload *p = xcalloc(1, sizeof(*p));
	p->rec = r;
	snprintf(p->tag, sizeof(p->tag), "%s", tag);
	p->slot = slot;
	return p;
}

static const char *sha_of(const char *tag, char buf[HASH_SHA256_HEX_LEN + 1])
{
	hash_sha256_hex(tag, strlen(tag), buf);
	return buf;
}

static void rec_init(struct rec *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
}

static void wait_started(struct rec *r, unsigned n)
{
	pthread_mutex_lock(&r->lock);
	while (r->started < n)
		pthread_cond_wait(&r->cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

static void open_gate(struct rec *r)
{
	pthread_mutex_lock(&r->lock);
	r->gate_open = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
}

/* Idle, the queue's counters are back to nothing waiting or running, and
 * every submitted job is accounted for (completed, superseded, dropped as
 * over the cap): what status.json and the metrics report. */
static void assert_idle_counts(struct jobs *j)
{
	struct jobs_stats st;

	jobs_get_stats(j, &st);
	assert_int_equal(st.queued, 0);
	assert_int_equal(st.running, 0);
	assert_int_equal(st.writers_waiting, 0);
	assert_true(st.completed + st.superseded + st.over_cap <= st.submitted);
	assert_true(st.completed > 0);
}

static struct jobs *start(const char *dir, struct rec *r, unsigned workers)
{
	struct jobs_options o = { .workers = workers, .state_dir = dir, .run = run_job,
				  .free_payload = free_payload, .arg = r };
	struct jobs *j = NULL;
	char *err = NULL;
	assert_int_equal(jobs_new(&o, &j, &err), 0);
	assert_null(err);
	return j;
}

static void test_newer_supersedes_queued_running_finishes_first(void **state)
{
	struct rec r;
	char s[4][HASH_SHA256_HEX_LEN + 1];
	rec_init(&r);
	struct jobs *j = start(*state, &r, 2);

	assert_int_equal(jobs_submit(j, "a.py", sha_of("v1", s[1]), false, pl(&r, "v1", 0)),
			 JOBS_QUEUED);
	wait_started(&r, 1);
	/* v1 runs; v1 again (the running content) is a duplicate, v2 waits
	 * behind it, v3 replaces v2, and v3 again is a duplicate. */
	assert_int_equal(jobs_submit(j, "a.py", s[1], false, pl(&r, "v1b", 0)), JOBS_DUPLICATE);
	assert_int_equal(jobs_submit(j, "a.py", sha_of("v2", s[2]), false, pl(&r, "v2", 0)),
			 JOBS_AFTER_RUNNING);
	assert_int_equal(jobs_submit(j, "a.py", sha_of("v3", s[3]), false, pl(&r, "v3", 0)),
			 JOBS_REPLACED);
	assert_int_equal(jobs_submit(j, "a.py", s[3], false, pl(&r, "v3b", 0)), JOBS_DUPLICATE);

	struct jobs_stats st;
	jobs_get_stats(j, &st);
	assert_int_equal(st.running, 1);
	assert_int_equal(st.queued, 1);
	assert_int_equal(st.superseded, 1);
	assert_int_equal(st.workers, 2);

	open_gate(&r);
	jobs_wait_idle(j);
	assert_idle_counts(j);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.order[0], "a.py@v1");
	assert_string_equal(r.order[1], "a.py@v3");
	assert_int_equal(r.max_per_name, 1);
	jobs_free(j);
	assert_int_equal(r.freed, 5); /* every payload freed exactly once */
}

/* A queued job replaced by another writer's content (user B overwrites
 * user A's waiting script) leaves A's turn: A no longer waits, and the job
 * runs once, as B's, in B's turn. */
static void test_queued_job_taken_over_by_another_writer(void **state)
{
	struct rec r;
	char s[4][HASH_SHA256_HEX_LEN + 1];
	rec_init(&r);
	struct jobs *j = start(*state, &r, 1);

	assert_int_equal(jobs_submit_by(j, "b.py", sha_of("b", s[0]), false, 3000, pl(&r, "b", 1)),
			 JOBS_QUEUED);
	wait_started(&r, 1); /* the one worker is busy */
	assert_int_equal(jobs_submit_by(j, "c.py", sha_of("c", s[1]), false, 1000, pl(&r, "c", 2)),
			 JOBS_QUEUED);
	assert_int_equal(jobs_submit_by(j, "a.py", sha_of("v1", s[2]), false, 4000, pl(&r, "v1", 0)),
			 JOBS_QUEUED);
	assert_int_equal(jobs_owner_active(j, 4000), 1);
	struct jobs_stats st;
	jobs_get_stats(j, &st);
	assert_int_equal(st.writers_waiting, 2);
	assert_int_equal(jobs_submit_by(j, "a.py", sha_of("v2", s[3]), false, 2000, pl(&r, "v2", 0)),
			 JOBS_REPLACED);
	assert_int_equal(jobs_owner_active(j, 4000), 0);
	assert_int_equal(jobs_owner_active(j, 2000), 1);
	jobs_get_stats(j, &st);
	assert_int_equal(st.queued, 2);
	assert_int_equal(st.superseded, 1);
	assert_int_equal(st.writers_waiting, 2); /* 1000 and 2000; 4000 left the ring */

	/* A job queued behind its own name's running one (no turn yet) taken
	 * over by another writer: still one job, after the running one. */
	assert_int_equal(jobs_submit_by(j, "b.py", sha_of("b2", s[1]), false, 3000, pl(&r, "b2", 1)),
			 JOBS_AFTER_RUNNING);
	assert_int_equal(jobs_submit_by(j, "b.py", sha_of("b3", s[1]), false, 5000, pl(&r, "b3", 1)),
			 JOBS_REPLACED);
	assert_int_equal(jobs_owner_active(j, 5000), 1);

	open_gate(&r);
	jobs_wait_idle(j);
	assert_idle_counts(j);
	assert_int_equal(r.n, 4);
	assert_string_equal(r.order[0], "b.py@b");
	/* turns in the order the writers began to wait: 1000's c.py, then
	 * 2000's a.py */
	assert_string_equal(r.order[1], "c.py@c");
	assert_string_equal(r.order[2], "a.py@v2");
	assert_string_equal(r.order[3], "b.py@b3");
	jobs_free(j);
	assert_int_equal(r.freed, 6);
}

static void test_pool_is_bounded_and_every_file_runs_once(void **state)
{
	struct rec r;
	char sha[HASH_SHA256_HEX_LEN + 1], name[16];
	rec_init(&r);
	r.gate_open = true;
	r.sleep_ms = 15;
	struct jobs *j = start(*state, &r, 2);

	for (int i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "f%d.py", i);
		assert_int_equal(jobs_submit(j, name, sha_of(name, sha), false, pl(&r, "x", i)),
				 JOBS_QUEUED);
	}
	jobs_wait_idle(j);
	assert_idle_counts(j);
	assert_int_equal(r.n, 8);
	assert_int_equal(r.max_running, 2);
	for (int i = 0; i < 8; i++) {
		int hits = 0;
		snprintf(name, sizeof(name), "f%d.py@x", i);
		for (size_t k = 0; k < r.n; k++)
			hits += strcmp(r.order[k], name) == 0;
		assert_int_equal(hits, 1);
	}
	jobs_free(j);
}

static void test_final_results_survive_restart(void **state)
{
	const char *dir = *state;
	struct rec r;
	char s1[HASH_SHA256_HEX_LEN + 1], s2[HASH_SHA256_HEX_LEN + 1];
	char *st = NULL;
	rec_init(&r);
	r.gate_open = true;

	struct jobs *j = start(dir, &r, 1);
	assert_int_equal(jobs_record_final(j, "a.py", sha_of("one", s1), "completed"), 0);
	assert_int_equal(jobs_record_final(j, "odd\nname.py", s1, "rejected"), 0);
	assert_int_equal(jobs_submit(j, "a.py", s1, false, pl(&r, "1", 0)), JOBS_ALREADY_FINAL);
	jobs_free(j);

	j = start(dir, &r, 1);
	assert_true(jobs_is_final(j, "a.py", s1, &st));
	assert_string_equal(st, "completed");
	free(st);
	assert_true(jobs_is_final(j, "odd\nname.py", s1, NULL));
	assert_false(jobs_is_final(j, "a.py", sha_of("two", s2), NULL));
	assert_int_equal(jobs_submit(j, "a.py", s1, false, pl(&r, "1", 0)), JOBS_ALREADY_FINAL);
	assert_int_equal(jobs_submit(j, "a.py", s2, false, pl(&r, "2", 0)), JOBS_QUEUED);
	jobs_wait_idle(j);
	assert_idle_counts(j);
	/* An approval runs content that has a (held) final result. */
	assert_int_equal(jobs_submit(j, "a.py", s1, true, pl(&r, "1f", 0)), JOBS_QUEUED);
	jobs_wait_idle(j);
	assert_idle_counts(j);
	jobs_free(j);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.order[0], "a.py@2");
	assert_string_equal(r.order[1], "a.py@1f");
	assert_int_equal(r.freed, 4);
}

static void test_torn_index_line_is_skipped_and_compacted(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, JOBS_INDEX_NAME);
	char s1[HASH_SHA256_HEX_LEN + 1];
	struct rec r;
	rec_init(&r);
	sha_of("one", s1);

	_cleanup_free_ char *text = xasprintf(
		"{\"name\":\"a.py\",\"sha256\":\"%s\",\"state\":\"blocked\"}\n"
		"\n" /* an empty line (a hand edit): skipped */
		"{\"name\":\"a.py\",\"sha256\":\"%s\",\"state\":\"completed\"}\n"
		"{\"name\":\"b.py\",\"sha256\":\"%.20s", s1, s1, s1);
	assert_int_equal(fileio_write_atomic(path, text, strlen(text), 0600), 0);

	struct jobs *j = start(dir, &r, 1);
	char *st = NULL;
	assert_true(jobs_is_final(j, "a.py", s1, &st));
	assert_string_equal(st, "completed"); /* the last line for a name wins */
	free(st);
	assert_false(jobs_is_final(j, "b.py", s1, NULL));

	char *buf = NULL;
	size_t len = 0;
	assert_int_equal(fileio_read_path(path, 1 << 20, &buf, &len), 0);
	_cleanup_free_ char *want = xasprintf(
		"{\"name\":\"a.py\",\"sha256\":\"%s\",\"state\":\"completed\"}\n", s1);
	assert_string_equal(buf, want);
	free(buf);
	jobs_free(j);
}

static void test_waiting_job_skipped_when_its_content_became_final(void **state)
{
	struct rec r;
	char s1[HASH_SHA256_HEX_LEN + 1], s2[HASH_SHA256_HEX_LEN + 1];
	rec_init(&r);
	struct jobs *j = start(*state, &r, 1);

	assert_int_equal(jobs_submit(j, "a.py", sha_of("v1", s1), false, pl(&r, "v1", 0)),
			 JOBS_QUEUED);
	wait_started(&r, 1);
	assert_int_equal(jobs_submit(j, "a.py", sha_of("v2", s2), false, pl(&r, "v2", 0)),
			 JOBS_AFTER_RUNNING);
	assert_int_equal(jobs_record_final(j, "a.py", s2, "completed"), 0);
	open_gate(&r);
	jobs_wait_idle(j);
	assert_idle_counts(j);
	assert_int_equal(r.n, 1);
	jobs_free(j);
	assert_int_equal(r.freed, 2);
}

/* Opens the gate once jobs_stop has dropped the three queued jobs (their
 * payloads freed): only then may the running one end, so a worker that
 * took a queued job after the stop would be seen. After 10 s it opens
 * anyway, and the test fails on what ran. */
static void *open_gate_after_drop(void *arg)
{
	struct rec *r = arg;
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 10;
	pthread_mutex_lock(&r->lock);
	while (r->freed < 3 && pthread_cond_timedwait(&r->cond, &r->lock, &until) == 0)
		;
	pthread_mutex_unlock(&r->lock);
	open_gate(r);
	return NULL;
}

static void test_stop_drops_queued_and_waits_for_running(void **state)
{
	struct rec r;
	char sha[HASH_SHA256_HEX_LEN + 1], name[16];
	pthread_t t;
	rec_init(&r);
	struct jobs *j = start(*state, &r, 1);

	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "s%d.py", i);
		jobs_submit(j, name, sha_of(name, sha), false, pl(&r, "x", i));
	}
	wait_started(&r, 1);
	assert_int_equal(pthread_create(&t, NULL, open_gate_after_drop, &r), 0);
	jobs_stop(j);
	pthread_join(t, NULL);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.now_running, 0);
	assert_int_equal(r.freed, 4);
	assert_int_equal(jobs_submit(j, "late.py", sha, false, pl(&r, "y", 0)), JOBS_STOPPED);
	assert_string_equal(jobs_submit_result_to_string(JOBS_STOPPED), "stopped");
	jobs_free(j);
	assert_int_equal(r.freed, 5);
}

/* The index that is no file (a directory at its name, for real) and a
 * worker that cannot start (fault.h: pthread_create's EAGAIN) refuse the
 * start with the reason; an index whose sync fails (fault.h: EIO) still
 * keeps the final result for this run of the agent, and says so. */
static void test_index_and_thread_failures(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *index = xasprintf("%s/%s", dir, JOBS_INDEX_NAME);
	struct rec r;
	rec_init(&r);
	struct jobs_options o = { .workers = 2, .state_dir = dir, .run = run_job,
				  .free_payload = free_payload, .arg = &r };
	struct jobs *j = NULL;
	char *err = NULL;
	char s1[HASH_SHA256_HEX_LEN + 1];
	sha_of("one", s1);

	assert_int_equal(mkdir(index, 0700), 0);
	assert_int_equal(jobs_new(&o, &j, &err), -EINVAL);
	assert_non_null(strstr(err, "cannot use the final-results index "));
	free(err);
	assert_int_equal(rmdir(index), 0);

	fault_arm("pthread_create", NULL, 2, 1, EAGAIN);
	assert_int_equal(jobs_new(&o, &j, &err), -EAGAIN);
	fault_clear();
	assert_string_equal(err, "cannot start worker thread 1: Resource temporarily unavailable");
	free(err);

	j = start(dir, &r, 1);
	fault_arm("fdatasync", "/" JOBS_INDEX_NAME, 1, 1, EIO);
	assert_int_equal(jobs_record_final(j, "a.py", s1, "completed"), -EIO);
	assert_int_equal(fault_hits("fdatasync"), 1);
	fault_clear();
	assert_true(jobs_is_final(j, "a.py", s1, NULL));
	jobs_free(j);
}

static void test_bad_state_dir_is_a_clear_error(void **state)
{
	struct jobs_options o = { .workers = 1, .state_dir = "/nonexistent/mai-state",
				  .run = run_job };
	struct jobs *j = NULL;
	char *err = NULL;
	assert_int_equal(jobs_new(&o, &j, &err), -ENOENT);
	assert_string_equal(err, "cannot use the final-results index "
				 "/nonexistent/mai-state/final-results.jsonl: No such file or "
				 "directory (check agent.state_dir in agent.yaml and its permissions)");
	free(err);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_newer_supersedes_queued_running_finishes_first),
		T(test_queued_job_taken_over_by_another_writer),
		T(test_pool_is_bounded_and_every_file_runs_once),
		T(test_final_results_survive_restart),
		T(test_torn_index_line_is_skipped_and_compacted),
		T(test_waiting_job_skipped_when_its_content_became_final),
		T(test_stop_drops_queued_and_waits_for_running),
		T(test_bad_state_dir_is_a_clear_error),
		T(test_index_and_thread_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
