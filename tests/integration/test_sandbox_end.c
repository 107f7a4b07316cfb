/* How the end of a run is learnt (sandbox_attach.h), against real Docker:
 * the kernel's word and the bootstrap's end marker, what a script can do to
 * either, and each way forced (pidfd, process events, Docker alone). */
#include <stdio.h>
#include <string.h>

#include "docker_env.h"
#include "pidfd_exit.h"
#include "sandbox_fixture.h"

/* The result and the second sandbox a test has in hand: a failed assertion
 * leaves the test at once, and the teardown frees them, so that the failure
 * is not followed by LeakSanitizer's reports of its buffers. */
static struct sandbox_result r;
static struct sandbox *s2;

static int free_run(void **state)
{
	sandbox_result_clear(&r);
	sandbox_free(s2);
	s2 = NULL;
	return 0;
}

/* Whatever the ending, the output is whole and the marker never shows. */
static void expect_output(const struct sandbox_result *got, const char *out, const char *err)
{
	assert_string_equal(got->out.data, out);
	assert_int_equal(got->out.total, strlen(out));
	assert_string_equal(got->err.data, err);
	assert_int_equal(got->err.total, strlen(err));
}

static void test_end_after_threads_and_atexit(void **state)
{
	/* A thread still printing when the script's last line has run, and an
	 * atexit handler: the interpreter waits for both, so does the run. */
	run("late.py", "import atexit, sys, threading, time\n"
		       "def late():\n    time.sleep(0.3)\n    print('late')\n"
		       "threading.Thread(target=late).start()\n"
		       "atexit.register(lambda: sys.stderr.write('atexit\\n'))\n"
		       "print('main done')\n", &r);
	expect_exit(&r, 0);
	expect_output(&r, "main done\nlate\n", "atexit\n");
	assert_int_equal(r.ended_by_kernel, pidfd_exit_supported(NULL));
	sandbox_result_clear(&r);

	run("sysexit.py", "import sys\nsys.exit('bad input')\n", &r);
	expect_exit(&r, 1);
	expect_output(&r, "", "bad input\n");
	sandbox_result_clear(&r);
}

static void test_end_without_marker(void **state)
{
	/* os._exit skips the interpreter's exit, so no marker: Docker's end of
	 * stream ends the run, still with all the output and the status. */
	run("osexit.py", "import os, sys\nprint('before')\nsys.stderr.write('err')\n"
			 "os._exit(5)\n", &r);
	expect_exit(&r, 5);
	expect_output(&r, "before\n", "err");
	assert_false(r.ended_by_kernel);
	sandbox_result_clear(&r);

	/* A forked child ends through the interpreter too, but writes no
	 * marker: only the bootstrap's own process does. */
	run("forked.py", "import os\npid = os.fork()\nif pid == 0:\n    print('child')\n"
			 "else:\n    os.waitpid(pid, 0)\n    print('parent')\n", &r);
	expect_exit(&r, 0);
	expect_output(&r, "child\nparent\n", "");
	sandbox_result_clear(&r);
}

/* A marker the script prints (it cannot know the nonce) is its output. */
static void test_end_marker_forged(void **state)
{
	run("forge.py", "import sys\nm = '\\x1eMAI-END ' + '0' * 32 + '\\n'\n"
			"sys.stdout.write('a\\n' + m)\nsys.stderr.write(m)\nsys.exit(3)\n", &r);
	expect_exit(&r, 3);
	expect_output(&r, "a\n\x1eMAI-END 00000000000000000000000000000000\n",
		      "\x1eMAI-END 00000000000000000000000000000000\n");
	sandbox_result_clear(&r);
}

/* A process the script left running writes on after the script's end:
 * the output is cut at the end marker, which never shows, nor its nonce;
 * what came before stays. */
static void test_end_late_writer(void **state)
{
	/* The script's own line is out before the child starts: print()
	 * writes its text and its newline apart, and the child's lines could
	 * land between the two. */
	run("leftover.py", "import os, time\nprint('parent', flush=True)\nif os.fork() == 0:\n"
		       "    os.setsid()\n"
		       "    while True:\n        os.write(1, b'late\\n')\n        time.sleep(0.001)\n",
	    &r);
	expect_exit(&r, 0);
	assert_null(strstr(r.out.data, "MAI-END"));
	assert_null(strchr(r.out.data, '\x1e'));
	assert_non_null(strstr(r.out.data, "parent\n"));
	assert_int_equal(r.out.total, r.out.len);
	for (const char *l = r.out.data; *l; l = strchr(l, '\n') + 1)
		if (strncmp(l, "late\n", 5) != 0 && strncmp(l, "parent\n", 7) != 0)
			fail_msg("a line that is neither the script's nor its child's: %s", l);
}

static void test_end_output_at_the_cap(void **state)
{
	char code[128];

	/* Exactly the cap: whole, not truncated, although the marker went past. */
	snprintf(code, sizeof(code), "import sys\nsys.stdout.write('y' * %d)\n", OUTPUT_MAX);
	run("full.py", code, &r);
	expect_exit(&r, 0);
	assert_int_equal(r.out.len, OUTPUT_MAX);
	assert_int_equal(r.out.total, OUTPUT_MAX);
	assert_false(r.out.truncated);
	sandbox_result_clear(&r);

	/* Just past it: output_limit, as any output past the cap. */
	snprintf(code, sizeof(code), "import sys\nsys.stdout.write('y' * %d)\n", OUTPUT_MAX + 10);
	run("over.py", code, &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "output_limit");
	assert_int_equal(r.out.len, OUTPUT_MAX);
	assert_true(r.out.truncated);
	assert_true(r.out.total >= OUTPUT_MAX + 10);
	sandbox_result_clear(&r);

	/* Past it by less than a marker, and gone before the agent could stop
	 * it: output_limit still, with the script's own exit status. */
	snprintf(code, sizeof(code), "import os\nos.write(1, b'y' * %d)\nos._exit(4)\n",
		 OUTPUT_MAX + 10);
	run("over-exit.py", code, &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "output_limit");
	assert_int_equal(r.exit_code, 4);
	assert_int_equal(r.out.total, OUTPUT_MAX + 10);
	assert_true(r.out.truncated);
	assert_null(strstr(r.message, "killed"));
	sandbox_result_clear(&r);
}

/* A run that ends normally still reports what the cgroup saw: a child
 * killed for memory, forks refused at the pids limit. */
static void expect_cgroup_verdicts(struct sandbox *p)
{
	run_in(p, "oomchild.py", "import os\npid = os.fork()\nif pid == 0:\n"
				 "    b = b'x' * (200 << 20)\n    os._exit(0)\n"
				 "os.waitpid(pid, 0)\nprint('parent ok')\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "oom_killed");
	assert_string_equal(r.out.data, "parent ok\n");
	sandbox_result_clear(&r);

	run_in(p, "manykids.py", "import os, time\ntry:\n    for _ in range(100):\n"
				 "        if os.fork() == 0:\n            time.sleep(60)\n"
				 "            os._exit(0)\nexcept OSError:\n    print('refused')\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "pids_limit");
	assert_string_equal(r.out.data, "refused\n");
	assert_int_equal(r.exit_code, 0);
	/* The children died with the script: waiting for them would have met
	 * the timeout. */
	assert_true(r.wall_ms < TIMEOUT_MS);
	sandbox_result_clear(&r);
}

static void test_end_keeps_cgroup_verdicts(void **state)
{
	expect_cgroup_verdicts(sb);
}

/* The counters are read while the bootstrap waits for the agent, before
 * Docker can remove the cgroup, whichever way the end is learnt: with
 * Docker alone too, a script that ends within a sampling interval of its
 * refused forks is a pids_limit. */
static void test_end_counters_with_docker_alone(void **state)
{
	struct sandbox_options o;
	char *err = NULL;

	sandbox_wait_removed(sb);
	test_options(&o);
	o.exit_source = SANDBOX_EXIT_DOCKER;
	if (sandbox_new(&o, &s2, &err) < 0)
		fail_msg("%s", err);
	expect_cgroup_verdicts(s2);
}

/* The same runs with each way of learning the end forced: the kernel's
 * process events (what kernels before 6.15 use) and Docker alone. */
static void end_ways(enum sandbox_exit_source source, bool by_kernel)
{
	static const struct {
		const char *name, *code, *out;
		int exit_code, signal;
		bool marker;
	} cases[] = {
		{ "hello.py", "print('hello')\n", "hello\n", 0, 0, true },
		{ "seven.py", "import sys\nprint('x')\nsys.exit(7)\n", "x\n", 7, 0, true },
		{ "osexit.py", "import os\nprint('y', flush=True)\nos._exit(5)\n", "y\n", 5, 0, false },
		{ "segv.py", "import os, signal\nprint('z', flush=True)\n"
			     "os.kill(os.getpid(), signal.SIGSEGV)\n", "z\n", 139, 11, false },
	};
	struct sandbox_options o;
	char *err = NULL;

	sandbox_wait_removed(sb);
	test_options(&o);
	o.exit_source = source;
	o.pool_size = 1;
	if (sandbox_new(&o, &s2, &err) < 0)
		fail_msg("%s", err);
	assert_int_equal(sandbox_exit_source_used(s2), source);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sandbox_job job = {
			.job_id = cases[i].name, .file_name = cases[i].name,
			.code = (const uint8_t *)cases[i].code, .len = strlen(cases[i].code),
			.trust = TRUST_STANDARD,
		};
			/* Half the runs take a warm container, half a cold one. */
		if (i % 2 == 0)
			wait_pool_ready(s2, TRUST_STANDARD, 1);
		sandbox_run(s2, &job, &r);
		assert_string_equal(sandbox_verdict_to_string(r.verdict), "exited");
		assert_int_equal(r.exit_code, cases[i].exit_code);
		assert_int_equal(r.signal, cases[i].signal);
		expect_output(&r, cases[i].out, "");
		if (r.ended_by_kernel != (by_kernel && cases[i].marker))
			fail_msg("%s: ended_by_kernel %d", cases[i].name, r.ended_by_kernel);
		sandbox_result_clear(&r);
	}
	sandbox_free(s2);
	s2 = NULL;
	assert_int_equal(docker_env_count_ours(docker), 0);
}

static void test_end_by_process_events(void **state)
{
	end_ways(SANDBOX_EXIT_NETLINK, true);
}

static void test_end_by_docker_alone(void **state)
{
	end_ways(SANDBOX_EXIT_DOCKER, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_end_after_threads_and_atexit, free_run),
		cmocka_unit_test_teardown(test_end_without_marker, free_run),
		cmocka_unit_test_teardown(test_end_marker_forged, free_run),
		cmocka_unit_test_teardown(test_end_late_writer, free_run),
		cmocka_unit_test_teardown(test_end_output_at_the_cap, free_run),
		cmocka_unit_test_teardown(test_end_keeps_cgroup_verdicts, free_run),
		cmocka_unit_test_teardown(test_end_counters_with_docker_alone, free_run),
		cmocka_unit_test_teardown(test_end_by_process_events, free_run),
		cmocka_unit_test_teardown(test_end_by_docker_alone, free_run),
	};

	sandbox_fixture_open();
	return sandbox_fixture_close(cmocka_run_group_tests(tests, NULL, NULL));
}
