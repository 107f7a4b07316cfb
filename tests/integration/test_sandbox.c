/* The sandbox against real Docker: ordinary runs, the hostile-script suite
 * (each case with its expected verdict), leftovers, self-test, runtime
 * check. How a run's end is learnt is in test_sandbox_end.c. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <cmocka.h>

#include "docker_env.h"
#include "fileio.h"
#include "pidfd_exit.h"
#include "sandbox_fixture.h"
#include "sandbox_seccomp.h"

static const char fork_bomb[] = "import os\nwhile True:\n    try:\n        os.fork()\n"
				"    except OSError:\n        pass\n";

/* ---- ordinary paths ---- */

static void test_hello_and_json(void **state)
{
	struct sandbox_result r;
	json_t *j;

	run("hello.py", "print('hello')\n", &r);
	expect_exit(&r, 0);
	assert_string_equal(r.out.data, "hello\n");
	assert_string_equal(r.err.data, "");
	assert_null(r.message);
	assert_int_equal(r.limits.timeout_ms, TIMEOUT_MS);
	assert_string_equal(r.runtime, "runc");
	assert_int_equal(strncmp(r.image_id, "sha256:", 7), 0);
	assert_true(r.wall_ms > 0 && r.wall_ms < TIMEOUT_MS);
	assert_true(r.peak_memory_bytes > 1 << 20);
	assert_true(r.cgroup_version == 1 || r.cgroup_version == 2);
	/* Ended as soon as the kernel said so, where it can (Linux 6.15+). */
	assert_int_equal(r.ended_by_kernel, pidfd_exit_supported(NULL));
	j = sandbox_result_to_json(&r);
	assert_string_equal(json_string_value(json_object_get(j, "verdict")), "exited");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_code")), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "stdout"), "text")),
			    "hello\n");
	assert_true(json_is_false(json_object_get(json_object_get(j, "stdout"), "truncated")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "limits"),
							    "memory_bytes")), 96 << 20);
	assert_string_equal(json_string_value(json_object_get(j, "trust")), "standard");
	json_decref(j);
	sandbox_result_clear(&r);
}

/* Refused before any container: a script with PEP 723 dependencies at a
 * level without network (said, with the setting to change), and a run
 * whose cancel flag is already set (the agent stopping: it runs at the
 * next start). */
static void test_refused_before_a_container(void **state)
{
	static const char code[] = "print(1)\n";
	static const char *const deps[] = { "requests>=2" };
	struct sandbox_job job = { .job_id = "refused", .file_name = "deps.py",
				   .code = (const uint8_t *)code, .len = sizeof(code) - 1,
				   .trust = TRUST_STANDARD, .dependencies = deps,
				   .n_dependencies = 1 };
	struct sandbox_result r;

	sandbox_wait_removed(sb);
	size_t before = docker_env_count_ours(docker);
	assert_int_equal(sandbox_run(sb, &job, &r), -EINVAL);
	assert_int_equal(r.verdict, SANDBOX_VERDICT_SANDBOX_ERROR);
	assert_string_equal(r.message, "the sandbox could not run the script: the script has PEP 723 "
				       "dependencies but trust level standard "
				       "has no network to install them with; set network: allowlist "
				       "for standard in config/sandbox.yaml");
	sandbox_result_clear(&r);

	atomic_bool stop = true;
	job.dependencies = NULL;
	job.n_dependencies = 0;
	job.cancel = &stop;
	assert_int_equal(sandbox_run(sb, &job, &r), -ECANCELED);
	assert_int_equal(r.verdict, SANDBOX_VERDICT_SANDBOX_ERROR);
	assert_string_equal(r.message, "the agent is stopping; the script runs when the agent next "
				       "starts");
	sandbox_result_clear(&r);
	assert_int_equal(docker_env_count_ours(docker), before);
}

static void test_exit_code_and_stderr(void **state)
{
	struct sandbox_result r;

	run("fail.py", "import sys\nprint('out')\nsys.stderr.write('bad input\\n')\nsys.exit(7)\n", &r);
	expect_exit(&r, 7);
	assert_string_equal(r.out.data, "out\n");
	assert_string_equal(r.err.data, "bad input\n");
	assert_string_equal(r.message, "the script exited with status 7; see its stderr");
	assert_int_equal(r.ended_by_kernel, pidfd_exit_supported(NULL));
	sandbox_result_clear(&r);
}

static void test_traceback_names_file(void **state)
{
	struct sandbox_result r;

	run("boom.py", "def f():\n    raise ValueError('boom')\n\nf()\n", &r);
	expect_exit(&r, 1);
	assert_string_equal(r.err.data,
			    "Traceback (most recent call last):\n"
			    "  File \"boom.py\", line 4, in <module>\n"
			    "    f()\n"
			    "  File \"boom.py\", line 2, in f\n"
			    "    raise ValueError('boom')\n"
			    "ValueError: boom\n");
	sandbox_result_clear(&r);

	run("syntax.py", "x = (\n", &r);
	expect_exit(&r, 1);
	assert_non_null(strstr(r.err.data, "File \"syntax.py\", line 1"));
	assert_non_null(strstr(r.err.data, "SyntaxError"));
	assert_null(strstr(r.err.data, "<stdin>"));
	assert_null(strstr(r.err.data, "<string>"));
	sandbox_result_clear(&r);
}

static void test_unicode_and_invalid_bytes(void **state)
{
	struct sandbox_result r;
	json_t *j;

	run("uni.py", "import sys\nprint('caf\\u00e9 \\u2603 \\U0001F600')\n"
		      "sys.stdout.flush()\nsys.stdout.buffer.write(b'\\xff\\x00end')\n", &r);
	expect_exit(&r, 0);
	assert_int_equal(r.out.len, strlen("caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80\n") + 5);
	assert_memory_equal(r.out.data, "caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80\n\xff\0end", r.out.len);
	j = sandbox_result_to_json(&r);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "stdout"), "text")),
			    "caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80\n\xef\xbf\xbd\xef\xbf\xbd" "end");
	json_decref(j);
	sandbox_result_clear(&r);
}

static void test_stdin_is_empty(void **state)
{
	struct sandbox_result r;

	run("stdin.py", "import sys\nprint(repr(sys.stdin.read()))\n", &r);
	expect_exit(&r, 0);
	assert_string_equal(r.out.data, "''\n");
	sandbox_result_clear(&r);
}

/* ---- hostile scripts ---- */

static void test_fork_bomb(void **state)
{
	struct sandbox_result r;

	/* At the trusted level's 3 s limit (run_short): the bomb meets the
	 * pids limit within milliseconds and then spins on failed forks until
	 * the deadline, one CPU all the while; at the standard level's 30 s it
	 * cost the suite 30 CPU-seconds and proved nothing more. */
	run_short("forkbomb.py", fork_bomb, &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "pids_limit");
	assert_non_null(strstr(r.message, "more than 32 processes or threads"));
	assert_true(r.pids_peak <= 32);
	sandbox_result_clear(&r);
}

static void test_memory_bomb(void **state)
{
	struct sandbox_result r;

	run("membomb.py", "print('start', flush=True)\nchunks = []\nwhile True:\n"
			  "    chunks.append(bytearray(8 << 20))\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "oom_killed");
	assert_string_equal(r.out.data, "start\n");
	assert_non_null(strstr(r.message, "memory limit of 96 MiB"));
	assert_true(r.peak_memory_bytes > 64 << 20);
	assert_true(r.peak_memory_bytes <= 96 << 20);
	sandbox_result_clear(&r);
}

static void test_cpu_spin_times_out(void **state)
{
	struct sandbox_result r;

	run_short("spin.py", "print('spinning', flush=True)\nwhile True:\n    pass\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "timeout");
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.signal, 9);
	assert_string_equal(r.out.data, "spinning\n"); /* partial output kept */
	/* Killed at the limit; the slack is for a loaded machine's Docker. */
	assert_true(r.wall_ms >= SHORT_TIMEOUT_MS && r.wall_ms < SHORT_TIMEOUT_MS + 5000);
	/* It spun: CPU time accrued, bounded by one CPU for the wall time. How
	 * much depends on what else the shared machine runs (a tenth of a CPU
	 * with twenty busy processes on two). */
	if (r.cpu_ms < 100 || r.cpu_ms > r.wall_ms + 100)
		fail_msg("cpu_ms %lld for wall_ms %lld", (long long)r.cpu_ms, (long long)r.wall_ms);
	assert_non_null(strstr(r.message, "wall-clock limit of 3000 ms"));
	sandbox_result_clear(&r);
}

static void test_huge_stdout(void **state)
{
	struct sandbox_result r;

	run("flood.py", "import sys\nchunk = 'x' * (1 << 20)\nfor _ in range(100):\n"
			"    sys.stdout.write(chunk)\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "output_limit");
	assert_int_equal(r.out.len, OUTPUT_MAX);
	assert_true(r.out.truncated);
	assert_true(r.out.total > OUTPUT_MAX);
	assert_true(r.out.total < 100u << 20); /* killed long before the end */
	assert_int_equal(r.out.data[0], 'x');
	sandbox_result_clear(&r);
}

static void test_writes_to_root_and_etc(void **state)
{
	struct sandbox_result r;

	run("write.py", "for p in ('/evil', '/etc/passwd', '/usr/bin/python3'):\n"
			"    try:\n        open(p, 'a').write('x')\n        print(p, 'WRITTEN')\n"
			"    except OSError as e:\n        print(p, e.strerror)\n", &r);
	expect_exit(&r, 0);
	/* Files owned by root fail the permission check before the read-only
	 * one; what matters is that nothing was written. */
	assert_string_equal(r.out.data, "/evil Read-only file system\n"
					"/etc/passwd Permission denied\n"
					"/usr/bin/python3 Permission denied\n");
	sandbox_result_clear(&r);
}

static void test_fill_tmp(void **state)
{
	struct sandbox_result r;

	run("filltmp.py", "import errno, os\nn = 0\ntry:\n    with open('/tmp/fill', 'wb') as f:\n"
			  "        while True:\n            f.write(b'\\0' * (1 << 20)); f.flush(); n += 1\n"
			  "except OSError as e:\n    print(errno.errorcode[e.errno], n)\n"
			  "try:\n    open('/tmp/run.sh', 'w').write('#!/bin/sh\\n'); os.chmod('/tmp/run.sh', 0o755)\n"
			  "    os.execv('/tmp/run.sh', ['run.sh'])\nexcept OSError as e:\n"
			  "    print('exec', errno.errorcode[e.errno])\n", &r);
	expect_exit(&r, 0);
	assert_non_null(strstr(r.out.data, "ENOSPC "));
	assert_true(atoi(strchr(r.out.data, ' ') + 1) <= 8);
	assert_non_null(strstr(r.out.data, "exec EACCES\n")); /* noexec */
	sandbox_result_clear(&r);
}

static void test_network(void **state)
{
	struct sandbox_result r;

	run("net.py", "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n"
		      "    print('connect OPEN')\nexcept OSError as e:\n    print('connect', e.strerror)\n"
		      "try:\n    socket.getaddrinfo('deb.debian.org', 80)\n    print('dns RESOLVED')\n"
		      "except OSError as e:\n    print('dns failed')\n", &r);
	expect_exit(&r, 0);
	assert_string_equal(r.out.data, "connect Network is unreachable\ndns failed\n");
	sandbox_result_clear(&r);
}

static void test_host_files_invisible(void **state)
{
	struct sandbox_result r;
	char *host = NULL, *code;
	size_t len;
	char drop[] = "/tmp/mai-drop-XXXXXX";

	assert_int_equal(fileio_read_path("/etc/hostname", 4096, &host, &len), 0);
	assert_non_null(mkdtemp(drop));
	code = xasprintf("import os\nprint(open('/etc/hostname').read().strip())\n"
			 "print(os.path.exists('%s'))\nprint(sorted(os.listdir('/tmp')))\n"
			 "print(os.path.exists('/var/run/docker.sock'))\n", drop);
	run("host.py", code, &r);
	expect_exit(&r, 0);
	host[strcspn(host, "\n")] = '\0';
	if (*host)
		assert_null(strstr(r.out.data, host));
	assert_non_null(strstr(r.out.data, "\nFalse\n[]\nFalse\n"));
	rmdir(drop);
	free(code);
	free(host);
	sandbox_result_clear(&r);
}

static void test_setuid_attempts(void **state)
{
	struct sandbox_result r;

	/* python3-minimal has neither shutil nor subprocess: plain os calls. */
	run("root.py", "import os\n"
		       "for f, a in ((os.setuid, 0), (os.setgid, 0)):\n"
		       "    try:\n        f(a); print(f.__name__, 'ROOT')\n"
		       "    except OSError as e:\n        print(f.__name__, e.strerror)\n"
		       "print('sudo', os.path.exists('/usr/bin/sudo'))\n"
		       "if os.path.exists('/bin/su'):\n"
		       "    r, w = os.pipe(); pid = os.fork()\n"
		       "    if pid == 0:\n"
		       "        os.dup2(w, 1); os.dup2(w, 2)\n"
		       "        os.execv('/bin/su', ['su', '-c', 'id -u'])\n"
		       "    os.close(w); out = os.read(r, 4096); os.waitpid(pid, 0)\n"
		       "    print('su uid0', out.strip() == b'0')\n"
		       "print('uid', os.getuid(), os.geteuid())\n", &r);
	expect_exit(&r, 0);
	assert_non_null(strstr(r.out.data, "setuid Operation not permitted\n"
					   "setgid Operation not permitted\nsudo False\n"));
	assert_null(strstr(r.out.data, "su uid0 True"));
	/* A uid of the reserved range, no host account's. */
	const char *uid = strstr(r.out.data, "\nuid ");
	assert_non_null(uid);
	unsigned long u1 = 0, u2 = 0;
	assert_int_equal(sscanf(uid, "\nuid %lu %lu", &u1, &u2), 2);
	assert_true(u1 == u2 && u1 >= SANDBOX_UID_FIRST && u1 <= SANDBOX_UID_LAST);
	/* The result names that uid and the profile the calls met. */
	assert_int_equal(r.run_uid, u1);
	assert_string_equal(r.seccomp, SANDBOX_SECCOMP_NAME);
	json_t *j = sandbox_result_to_json(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "uid")), (json_int_t)u1);
	assert_string_equal(json_string_value(json_object_get(j, "seccomp")), "mai-1");
	json_decref(j);
	sandbox_result_clear(&r);
}

static void test_sigstop_self(void **state)
{
	struct sandbox_result r;

	run_short("stop.py", "import os, signal\nprint('stopping', flush=True)\n"
			     "os.kill(os.getpid(), signal.SIGSTOP)\nprint('resumed')\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "timeout");
	assert_string_equal(r.out.data, "stopping\n");
	assert_true(r.wall_ms >= SHORT_TIMEOUT_MS && r.wall_ms < SHORT_TIMEOUT_MS + 5000);
	sandbox_result_clear(&r);
}

static void test_orphan_child(void **state)
{
	struct sandbox_result r;

	run("orphan.py", "import os, time\nif os.fork() == 0:\n    time.sleep(60)\n"
			 "    print('child survived')\n    os._exit(0)\nprint('parent done')\n", &r);
	expect_exit(&r, 0);
	assert_string_equal(r.out.data, "parent done\n");
	assert_true(r.wall_ms < TIMEOUT_MS); /* the run ended with the parent */
	sandbox_result_clear(&r);
}

static void test_kill_pid1(void **state)
{
	struct sandbox_result r;

	/* The init runs as the same user, but the kernel protects a PID
	 * namespace's init from signals sent inside it that it does not handle. */
	run("killinit.py", "import os, signal, time\ntry:\n    os.kill(1, signal.SIGKILL)\n"
			   "    print('sent')\nexcept OSError as e:\n    print(e.strerror)\n"
			   "time.sleep(0.2)\nos.kill(1, 0)\nprint('init alive')\n", &r);
	expect_exit(&r, 0);
	assert_true(strcmp(r.out.data, "sent\ninit alive\n") == 0 ||
		    strcmp(r.out.data, "Operation not permitted\ninit alive\n") == 0);
	sandbox_result_clear(&r);
}

static void test_signal_exit(void **state)
{
	struct sandbox_result r;

	run("segv.py", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", &r);
	assert_string_equal(sandbox_verdict_to_string(r.verdict), "exited");
	assert_int_equal(r.signal, 11);
	assert_non_null(strstr(r.message, "killed by signal 11"));
	sandbox_result_clear(&r);
}

/* ---- lifetime, self-test, runtime ---- */

static void test_no_container_left(void **state)
{
	/* Removal happens in the background, after the result. */
	sandbox_wait_removed(sb);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

static void test_leftovers_removed_at_start(void **state)
{
	const char *cmd[] = { "true", NULL };
	const struct docker_label labels[] = { { "mai.agent", "1" },
					       { "mai.instance", docker_env_instance() } };
	struct docker_create_params p = {
		.image = docker_env_image(), .cmd = cmd, .labels = labels, .n_labels = 2,
		.memory_bytes = 64 << 20, .nano_cpus = 500000000, .pids_limit = 16,
		.tmpfs_bytes = 1 << 20, .nofile = 16, .fsize_bytes = 1 << 20,
	};
	struct sandbox_options o;
	struct sandbox *other = NULL;
	char *id1 = NULL, *id2 = NULL, *err = NULL;

	/* What a crashed agent leaves behind. */
	sandbox_wait_removed(sb);
	assert_int_equal(docker_container_create(docker, &p, &id1, &err), DOCKER_OK);
	assert_int_equal(docker_container_create(docker, &p, &id2, &err), DOCKER_OK);
	assert_int_equal(docker_env_count_ours(docker), 2);
	test_options(&o);
	assert_int_equal(sandbox_new(&o, &other, &err), 0);
	assert_int_equal(sandbox_leftovers_removed(other), 2);
	assert_int_equal(docker_env_count_ours(docker), 0);
	sandbox_free(other);
	free(id1);
	free(id2);
}

static void test_self_test_passes(void **state)
{
	struct sandbox_options o;
	struct sandbox *other = NULL;
	char *err = NULL;

	test_options(&o);
	o.self_test = true;
	if (sandbox_new(&o, &other, &err) < 0)
		fail_msg("%s", err);
	sandbox_free(other);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

/* Weaker confinement for real: running as root makes the non-root probe
 * fail, and then no sandbox (no job) is available. */
static void test_self_test_names_failed_probe(void **state)
{
	struct sandbox_options o;
	struct sandbox *other = NULL;
	char *err = NULL;

	test_options(&o);
	o.self_test = true;
	o.uid_first = 0;
	o.uid_last = 7;
	assert_int_equal(sandbox_new(&o, &other, &err), -EPERM);
	assert_null(other);
	if (!strstr(err, "sandbox self-test failed: probe non_root_user: uid 0 gid 0; "
			 "confinement is weaker than configured, so no job runs"))
		fail_msg("%s", err);
	free(err);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

static void test_missing_runtime_refused_at_start(void **state)
{
	struct sandbox_options o;
	struct sandbox *other = NULL;
	char *err = NULL;

	test_options(&o);
	o.trust[TRUST_UNTRUSTED].runtime = "mai-no-such-runtime";
	assert_int_equal(sandbox_new(&o, &other, &err), -ENOENT);
	assert_null(other);
	assert_non_null(strstr(err, "the runtime 'mai-no-such-runtime' of trust level untrusted is "
				    "not known to Docker"));
	assert_non_null(strstr(err, "set another runtime for untrusted in config/sandbox.yaml"));
	free(err);
}

/* Settings that cannot work are refused at start with what to change: a
 * uid range too small for the containers that can be in flight, and an
 * image Docker does not have. */
static void test_bad_settings_refused_at_start(void **state)
{
	struct sandbox_options o;
	struct sandbox *other = NULL;
	char *err = NULL;

	test_options(&o);
	o.uid_last = o.uid_first;
	assert_int_equal(sandbox_new(&o, &other, &err), -ERANGE);
	assert_null(other);
	if (!strstr(err, "has 1 uids, fewer than the") || !strstr(err, "widen it in config/sandbox.yaml"))
		fail_msg("%s", err);
	free(err);
	err = NULL;

	test_options(&o);
	o.image = "mai-no-such-image:never";
	assert_true(sandbox_new(&o, &other, &err) < 0);
	assert_null(other);
	if (!strstr(err, "mai-no-such-image:never"))
		fail_msg("%s", err);
	free(err);
}

/* gVisor for real: a trust level set to runtime runsc passes the self-test
 * (it probes the untrusted level) and runs its jobs under gVisor's own
 * kernel, which reports a release other than the host's. ensure-docker.sh
 * registers runsc with dockerd. */
static void test_gvisor_runtime(void **state)
{
	struct sandbox_options o;
	struct sandbox *gv = NULL;
	struct sandbox_result r;
	struct utsname host;
	char *err = NULL;
	const char code[] = "import os\nprint(os.uname().release)\n";
	struct sandbox_job job = {
		.job_id = "gvisor.py", .file_name = "gvisor.py", .code = (const uint8_t *)code,
		.len = sizeof(code) - 1, .trust = TRUST_UNTRUSTED,
	};

	test_options(&o);
	o.self_test = true;
	o.trust[TRUST_UNTRUSTED].runtime = "runsc";
	o.trust[TRUST_UNTRUSTED].base.pids = 512;
	if (sandbox_new(&o, &gv, &err) < 0)
		fail_msg("runsc: %s", err);
	sandbox_run(gv, &job, &r);
	expect_exit(&r, 0);
	assert_string_equal(r.runtime, "runsc");
	assert_false(r.ended_by_kernel); /* gVisor's init is no host process */
	assert_int_equal(uname(&host), 0);
	assert_true(r.out.len > 1);
	if (strncmp(r.out.data, host.release, strlen(host.release)) == 0)
		fail_msg("the job saw the host's kernel %s: not running under gVisor", host.release);
	sandbox_result_clear(&r);

	/* A fork bomb under gVisor: the script's processes are tasks of gVisor's
	 * kernel, so it is the memory limit (or the host-side pids limit with
	 * its allowance for gVisor's own threads) that ends it, never the host. */
	job.job_id = job.file_name = "forkbomb.py";
	job.code = (const uint8_t *)fork_bomb;
	job.len = strlen(fork_bomb);
	sandbox_run(gv, &job, &r);
	if (r.verdict != SANDBOX_VERDICT_OOM_KILLED && r.verdict != SANDBOX_VERDICT_PIDS_LIMIT)
		fail_msg("fork bomb under gVisor: verdict %s (%s)", sandbox_verdict_to_string(r.verdict),
			 r.message ? r.message : "-");
	/* The host-side limit held: the 512 configured above plus the allowance
	 * of 128 for gVisor's own threads, which grow in number under load. */
	if (r.pids_peak > 512 + 128)
		fail_msg("fork bomb under gVisor: %lld host pids", (long long)r.pids_peak);
	sandbox_result_clear(&r);
	sandbox_free(gv);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

struct thread_arg {
	int index;
	int ok;
};

static void *thread_run(void *arg)
{
	struct thread_arg *a = arg;
	char code[96], want[32];
	struct sandbox_result r;

	snprintf(code, sizeof(code), "import sys\nprint('worker %d')\nsys.exit(%d)\n", a->index,
		 10 + a->index);
	snprintf(want, sizeof(want), "worker %d\n", a->index);
	run("worker.py", code, &r);
	a->ok = r.verdict == SANDBOX_VERDICT_EXITED && r.exit_code == 10 + a->index &&
		strcmp(r.out.data, want) == 0;
	sandbox_result_clear(&r);
	return NULL;
}

/* One struct sandbox shared by worker threads, as the daemon uses it. */
static void test_concurrent_runs(void **state)
{
	pthread_t th[3];
	struct thread_arg args[3];

	for (int i = 0; i < 3; i++) {
		args[i] = (struct thread_arg){ .index = i };
		assert_int_equal(pthread_create(&th[i], NULL, thread_run, &args[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		assert_true(args[i].ok);
	}
	sandbox_wait_removed(sb);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

/* Warm pool: a pre-started container serves one job (with the job's scaled
 * limits applied by update), is removed, and the pool refills with a new
 * one; nothing is left after sandbox_free. */
static void test_warm_pool(void **state)
{
	static const char code[] =
		"import os\n"
		"p = '/sys/fs/cgroup/memory/memory.limit_in_bytes'\n"
		"print(open(p).read().strip() if os.path.exists(p) else open('/sys/fs/cgroup/memory.max').read().strip())\n"
		"raise RuntimeError('pooled')\n";
	struct sandbox_job job = {
		.job_id = "pool-job", .file_name = "pooled.py", .code = (const uint8_t *)code,
		.len = sizeof(code) - 1, .trust = TRUST_STANDARD,
		.metrics = { .imports = 10 }, /* +50% memory: 144 MiB */
	};
	struct sandbox_options o;
	struct sandbox *p = NULL;
	struct sandbox_result r1, r2;
	char *err = NULL;

	sandbox_wait_removed(sb);
	test_options(&o);
	o.pool_size = 1;
	assert_int_equal(sandbox_new(&o, &p, &err), 0);
	wait_pool_ready(p, TRUST_STANDARD, 1);
	wait_pool_ready(p, TRUST_UNTRUSTED, 1);
	assert_int_equal(docker_env_count_ours(docker), 3);

	assert_int_equal(sandbox_run(p, &job, &r1), 0);
	expect_exit(&r1, 1);
	assert_int_equal(r1.ended_by_kernel, pidfd_exit_supported(NULL));
	assert_string_equal(r1.out.data, "150994944\n");
	assert_int_equal(r1.limits.memory_bytes, 144LL << 20);
	assert_non_null(strstr(r1.err.data, "File \"pooled.py\", line 4, in <module>\n"
					    "    raise RuntimeError('pooled')\n"));
	wait_pool_ready(p, TRUST_STANDARD, 1);
	assert_int_equal(sandbox_run(p, &job, &r2), 0);
	expect_exit(&r2, 1);
	assert_string_not_equal(r1.container_id, r2.container_id); /* never reused */
	sandbox_result_clear(&r1);
	sandbox_result_clear(&r2);

	/* The warm containers removed under the agent (docker rm -f by an
	 * operator): the next run finds its warm one gone, discards it and
	 * runs all the same. */
	wait_pool_ready(p, TRUST_STANDARD, 1);
	char **ids = NULL;
	size_t n = 0;
	assert_int_equal(docker_container_list_by_label(docker, "mai.instance", docker_env_instance(),
							&ids, &n, &err), DOCKER_OK);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(docker_container_remove(docker, ids[i], &err), DOCKER_OK);
	assert_int_equal(sandbox_run(p, &job, &r1), 0);
	expect_exit(&r1, 1);
	assert_string_equal(r1.out.data, "150994944\n");
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(r1.container_id, ids[i]);
	docker_strv_free(ids);
	sandbox_result_clear(&r1);
	sandbox_free(p);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello_and_json),
		cmocka_unit_test(test_refused_before_a_container),
		cmocka_unit_test(test_exit_code_and_stderr),
		cmocka_unit_test(test_traceback_names_file),
		cmocka_unit_test(test_unicode_and_invalid_bytes),
		cmocka_unit_test(test_stdin_is_empty),
		cmocka_unit_test(test_fork_bomb),
		cmocka_unit_test(test_memory_bomb),
		cmocka_unit_test(test_cpu_spin_times_out),
		cmocka_unit_test(test_huge_stdout),
		cmocka_unit_test(test_writes_to_root_and_etc),
		cmocka_unit_test(test_fill_tmp),
		cmocka_unit_test(test_network),
		cmocka_unit_test(test_host_files_invisible),
		cmocka_unit_test(test_setuid_attempts),
		cmocka_unit_test(test_sigstop_self),
		cmocka_unit_test(test_orphan_child),
		cmocka_unit_test(test_kill_pid1),
		cmocka_unit_test(test_signal_exit),
		cmocka_unit_test(test_no_container_left),
		cmocka_unit_test(test_leftovers_removed_at_start),
		cmocka_unit_test(test_self_test_passes),
		cmocka_unit_test(test_self_test_names_failed_probe),
		cmocka_unit_test(test_missing_runtime_refused_at_start),
		cmocka_unit_test(test_bad_settings_refused_at_start),
		cmocka_unit_test(test_gvisor_runtime),
		cmocka_unit_test(test_warm_pool),
		cmocka_unit_test(test_concurrent_runs),
	};

	sandbox_fixture_open();
	return sandbox_fixture_close(cmocka_run_group_tests(tests, NULL, NULL));
}
