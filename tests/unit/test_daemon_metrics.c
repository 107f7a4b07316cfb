/* The metrics text from what the daemon writes: status.json written by
 * daemon_status_write() after counted results, read back and rendered. The
 * families a scraper needs are there with their values, histograms are
 * cumulative with +Inf equal to the count, a dead agent's figures are not
 * shown as live, and the audit log's series come from its directory.
 * (promtool checks the real output in tests/integration/metrics.sh.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "daemon_metrics.h"
#include "daemon_status.h"
#include "fileio.h"
#include "testdir.h"

static struct timespec at(long long s, long ns)
{
	return (struct timespec){ .tv_sec = s, .tv_nsec = ns };
}

static void has(const char *text, const char *line)
{
	_cleanup_free_ char *want = xasprintf("\n%s\n", line);
	if (!strstr(text, want))
		fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_render_from_status(void **state)
{
	const char *dir = *state;
	struct daemon_status *st = daemon_status_new();
	struct daemon_status_facts f = { .drop_dir = "/d", .watching = true, .queued = 3,
					 .running = 1, .workers = 2, .retrying = 1,
					 .config_sha256 = "ab", .docker_known = true,
					 .docker_reachable = true, .pool_size = 2 };
	struct timespec checked = at(1700000000, 0);
	f.docker_checked = &checked;

	/* a run of 40 ms accepted 70 ms before its end, one held answer */
	struct result_info run = { .file = "a.py", .state = RESULT_COMPLETED,
				   .verdict = RESULT_VERDICT_EXITED, .accepted = at(100, 0),
				   .started = at(100, 30000000), .finished = at(100, 70000000) };
	struct result_info held = { .file = "b.py", .state = RESULT_AWAITING_CONFIRMATION,
				    .accepted = at(200, 0), .finished = at(203, 0) };
	struct result_info queued = { .file = "c.py", .state = RESULT_QUEUED, .accepted = at(1, 0) };
	daemon_status_count_state(st, run.state);
	daemon_status_observe_result(st, &run);
	daemon_status_count_state(st, held.state);
	daemon_status_observe_result(st, &held);
	daemon_status_observe_result(st, &queued); /* not an answer: not timed */
	daemon_status_count_level(st, LEVEL_HIGH);
	daemon_status_count_retry(st);
	assert_int_equal(daemon_status_write(st, dir, &f), 0);
	daemon_status_free(st);

	json_t *status = NULL;
	long long age;
	enum daemon_liveness live;
	assert_int_equal(daemon_status_read(dir, &status, &age, &live), 0);
	assert_int_equal(live, DAEMON_RUNNING); /* our own pid, a fresh file */

	/* a log directory with one segment of three records and a checkpoint */
	_cleanup_free_ char *log = xasprintf("%s/audit", dir);
	assert_int_equal(fileio_mkdir_p(log, 0700), 0);
	char line[400];
	_cleanup_free_ char *seg = NULL;
	for (int i = 0; i < 3; i++) {
		snprintf(line, sizeof(line), "%064d %064d %012d %012d {\"seq\":%d}\n", 0, 0, i, 0, i);
		char *s = xasprintf("%s%s", seg ? seg : "", line);
		free(seg);
		seg = s;
	}
	_cleanup_free_ char *seg_path = xasprintf("%s/seg-000000000000.log", log);
	_cleanup_free_ char *ck_path = xasprintf("%s/checkpoint", log);
	assert_int_equal(fileio_write_atomic(seg_path, seg, strlen(seg), 0600), 0);
	assert_int_equal(fileio_write_atomic(ck_path, "o\n2\nAAAA\n\nsig\n", 15, 0600), 0);
	struct audit_stats audit;
	assert_int_equal(audit_stats_read(log, &audit), 0);
	assert_int_equal(audit.records, 3);
	assert_int_equal(audit.bytes, strlen(seg));
	assert_int_equal(audit.checkpoint_size, 2);

	struct daemon_metrics_input in = { .status = status, .status_age_s = age, .live = live,
					   .audit = &audit, .now = audit.checkpoint_time + 7 };
	_cleanup_free_ char *text = daemon_metrics_render(&in);
	has(text, "# TYPE mai_agent_up gauge");
	has(text, "mai_agent_up 1");
	has(text, "mai_agent_results_total{state=\"completed\"} 1");
	has(text, "mai_agent_results_total{state=\"awaiting_confirmation\"} 1");
	has(text, "mai_agent_assessments_total{level=\"HIGH\"} 1");
	has(text, "mai_agent_runs_total{verdict=\"exited\"} 1");
	has(text, "mai_agent_runs_total{verdict=\"timeout\"} 0");
	has(text, "mai_agent_queue_jobs{state=\"queued\"} 3");
	has(text, "mai_agent_retrying_jobs 1");
	has(text, "mai_agent_retries_total 1");
	has(text, "mai_agent_docker_up 1");
	has(text, "mai_agent_warm_pool_size 2");
	/* run: 40 ms, in the 0.05 bucket and above; drop: 70 ms and 3 s */
	has(text, "mai_agent_run_duration_seconds_bucket{le=\"0.025\"} 0");
	has(text, "mai_agent_run_duration_seconds_bucket{le=\"0.05\"} 1");
	has(text, "mai_agent_run_duration_seconds_bucket{le=\"+Inf\"} 1");
	has(text, "mai_agent_run_duration_seconds_count 1");
	has(text, "mai_agent_drop_to_result_seconds_bucket{le=\"0.1\"} 1");
	has(text, "mai_agent_drop_to_result_seconds_bucket{le=\"2.5\"} 1");
	has(text, "mai_agent_drop_to_result_seconds_bucket{le=\"5\"} 2");
	has(text, "mai_agent_drop_to_result_seconds_count 2");
	has(text, "mai_agent_audit_records_total 3");
	has(text, "mai_agent_audit_checkpoint_tree_size 2");
	has(text, "mai_agent_audit_checkpoint_age_seconds 7");
	/* A checkpoint of this very second is 0 s old, and so is one from the
	 * future (the clock set back since): never a negative age. */
	in.now = audit.checkpoint_time;
	_cleanup_free_ char *same = daemon_metrics_render(&in);
	has(same, "mai_agent_audit_checkpoint_age_seconds 0");
	in.now = audit.checkpoint_time - 30;
	_cleanup_free_ char *future = daemon_metrics_render(&in);
	has(future, "mai_agent_audit_checkpoint_age_seconds 0");
	in.now = audit.checkpoint_time + 7;

	/* the same status from an agent that is gone: only up 0 and the log */
	in.live = DAEMON_GONE;
	_cleanup_free_ char *gone = daemon_metrics_render(&in);
	has(gone, "mai_agent_up 0");
	assert_null(strstr(gone, "mai_agent_results_total"));
	has(gone, "mai_agent_audit_records_total 3");
	/* nothing at all: still a valid text */
	struct daemon_metrics_input none = { .status_age_s = -1 };
	_cleanup_free_ char *empty = daemon_metrics_render(&none);
	assert_string_equal(empty, "# HELP mai_agent_up Whether the agent runs and rewrites "
				   "status.json every second (1) or not (0).\n"
				   "# TYPE mai_agent_up gauge\nmai_agent_up 0\n");
	json_decref(status);
}

static void test_label_values_are_escaped(void **state)
{
	(void)state;
	json_t *status = json_pack("{s:s, s:{s:i}}", "agent_version", "1.0\"\\\nx", "levels", "a\"b", 1);
	struct daemon_metrics_input in = { .status = status, .live = DAEMON_RUNNING, .status_age_s = 0 };
	_cleanup_free_ char *text = daemon_metrics_render(&in);
	has(text, "mai_agent_info{version=\"1.0\\\"\\\\\\nx\"} 1");
	has(text, "mai_agent_assessments_total{level=\"a\\\"b\"} 1");
	json_decref(status);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_render_from_status, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_label_values_are_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
