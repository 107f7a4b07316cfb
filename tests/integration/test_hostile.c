/* The hostile set (tests/integration/hostile/, one file per category) run
 * under runc and under gVisor in one container each, with a process on the
 * host of the uid just below the sandbox's range that checks, while the
 * set holds its uid's kernel quotas, that its own are untouched (inotify
 * instances, message-queue bytes, pending signals, pipe pages, fork) and
 * that kill(-1) never reaches it; and the host's uid 1000, the sandbox's
 * old uid, trying to read, trace and take a descriptor of a run. The runs
 * of the set go at once, one burst.
 *
 * With MAI_TEST_SWARM=1 (docker_env.h) the same test goes through the Swarm
 * backend, on the nodes swarm.sh made on this machine: the checks from the
 * host (the neighbour's quotas, uid 1000's reach, processes left of the
 * range) still see the runs, the nodes sharing this kernel, and the
 * verdicts come from the task and the supervisor's counters instead of
 * the local engine's. */
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <mqueue.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "docker_env.h"
#include "fileio.h"
#include "macro.h"
#include "sandbox_fixture.h"

#define HOSTILE_TIMEOUT_MS 90000
/* The old default uid of the sandbox: the first account of most installs. */
#define OLD_SANDBOX_UID 1000

static uint32_t range_first, range_last;

/* The uids of this run: a range of its own, so that a test running beside
 * it (other suites start agents with the default range) is not counted. */
static void choose_range(void)
{
	/* From 0x78000000: apart from the default range (the other sandbox
	 * tests), the agents' tests' (agent_start.sh) and the unit tests'. */
	range_first = 2013265920u + (uint32_t)(getpid() % 20000) * 1024u;
	range_last = range_first + 1023;
}

static const char *pip_image(void)
{
	const char *s = getenv("MAI_SANDBOX_PIP_IMAGE");
	return s && *s ? s : "mai-sandbox-pip:latest";
}

/* ---- the set ---- */

static char *hex(const char *s, size_t n)
{
	char *h = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(h + 2 * i, 3, "%02x", (unsigned char)s[i]);
	h[2 * n] = '\0';
	return h;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Categories that end a run under gVisor as a whole: the sentry is one
 * process to the host's pids and memory limits, so a fork or memory bomb
 * inside takes the sandbox down (verdict pids_limit or oom_killed) instead
 * of failing the bomb's own call, and gVisor's init dies of a SIGKILL
 * (ending the run, killed). They run alone there, with that verdict
 * expected. */
static const struct {
	const char *name;
	enum sandbox_verdict verdict, swarm_verdict;
} gvisor_alone[] = {
	/* Through Swarm the agent reads the cgroup's counters from inside the
	 * task (swarm_supervisor.h), and under gVisor there are none
	 * (docs/SCALING.md): the sandbox taken down at the pids limit reads
	 * as its exit, not as the limit; and a SIGKILL the agent did not send
	 * reads as the memory limit's, so init's own death of one (kill_pid1)
	 * reads oom_killed, and the memory bomb's does too. */
	{ "fork_bomb", SANDBOX_VERDICT_PIDS_LIMIT, SANDBOX_VERDICT_EXITED },
	{ "memory_bomb", SANDBOX_VERDICT_OOM_KILLED, SANDBOX_VERDICT_OOM_KILLED },
	{ "kill_pid1", SANDBOX_VERDICT_EXITED, SANDBOX_VERDICT_OOM_KILLED },
};

/* Whether category f (a file name) is in the script: only is NULL (every
 * category but the ones gVisor runs alone, under runsc) or f's category. */
static bool wanted(const char *f, size_t fl, const char *runtime, const char *only)
{
	if (only)
		return strlen(only) == fl - 3 && strncmp(f, only, fl - 3) == 0;
	for (size_t i = 0; strcmp(runtime, "runsc") == 0 && i < ARRAY_SIZE(gvisor_alone); i++)
		if (strlen(gvisor_alone[i].name) == fl - 3 &&
		    strncmp(f, gvisor_alone[i].name, fl - 3) == 0)
			return false;
	return true;
}

/* The runner with the categories' files as (name, source), for runtime:
 * every category or, when only is not NULL, that one. */
static char *hostile_script(const char *runtime, const char *only, char ***names,
			    size_t *n_names)
{
	const char *root = getenv("MAI_SOURCE_ROOT");
	char *dir = xasprintf("%s/tests/integration/hostile", root ? root : ".");
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, by_name);
	char *cats = xstrdup(""), *runner = NULL, *script;
	size_t len;

	assert_true(n > 0);
	*names = xcalloc((size_t)n, sizeof(char *));
	*n_names = 0;
	for (int i = 0; i < n; i++) {
		const char *f = ents[i]->d_name;
		size_t fl = strlen(f);
		if (fl > 3 && strcmp(f + fl - 3, ".py") == 0 &&
		    (strcmp(f, "runner.py") == 0 || wanted(f, fl, runtime, only))) {
			char *path = xasprintf("%s/%s", dir, f), *src = NULL;
			assert_int_equal(fileio_read_path(path, 1 << 20, &src, &len), 0);
			if (strcmp(f, "runner.py") == 0) {
				runner = src;
			} else {
				char *h = hex(src, len), *c;
				(*names)[(*n_names)++] = xstrndup(f, fl - 3);
				c = xasprintf("%s    ('%.*s', bytes.fromhex('%s').decode()),\n", cats,
					      (int)(fl - 3), f, h);
				free(cats);
				cats = c;
				free(h);
				free(src);
			}
			free(path);
		}
		free(ents[i]);
	}
	free(ents);
	free(dir);
	assert_non_null(runner);
	script = xasprintf("RUNTIME = '%s'\nCATEGORIES = [\n%s]\n%s", runtime, cats, runner);
	free(cats);
	free(runner);
	return script;
}

/* ---- the host's process of the neighbouring uid ---- */

struct checker {
	pid_t pid;
	int cmd, answer; /* the test writes 'c' (check now) or 'q'; it answers a line */
};

/* One check of the quotas of this process's uid: "" when all is well, else
 * what failed. */
static void check_quotas(char *why, size_t n)
{
	struct mq_attr a = { .mq_maxmsg = 8, .mq_msgsize = 1024 };
	char qname[64];
	sigset_t rt;
	siginfo_t si;
	struct timespec zero = { 0 };
	int fd, p[2];
	pid_t pid;
	mqd_t q;

	why[0] = '\0';
	fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "inotify_init1: %m");
		return;
	}
	close(fd);
	snprintf(qname, sizeof(qname), "/mai-hostile-%d", (int)getpid());
	q = mq_open(qname, O_CREAT | O_RDWR | O_CLOEXEC, 0600, &a);
	if (q == (mqd_t)-1) {
		snprintf(why, n, "mq_open: %m");
		return;
	}
	mq_close(q);
	mq_unlink(qname);
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &rt, NULL);
	if (sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ 0 }) < 0) {
		snprintf(why, n, "sigqueue: %m");
		return;
	}
	if (sigtimedwait(&rt, &si, &zero) != SIGRTMIN + 1) {
		snprintf(why, n, "the queued signal did not come");
		return;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, n, "pipe2: %m");
		return;
	}
	int size = fcntl(p[1], F_GETPIPE_SZ);
	close(p[0]);
	close(p[1]);
	if (size != 65536) {
		snprintf(why, n, "a new pipe holds %d bytes, not 65536 (pipe-user-pages)", size);
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0) {
		snprintf(why, n, "fork: %m");
		return;
	}
	waitpid(pid, NULL, 0);
}

static _Noreturn void checker_main(uid_t uid, int cmd, int answer)
{
	char why[256], line[320];
	unsigned long checks = 0;

	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 || setresuid(uid, uid, uid) < 0)
		_exit(3);
	for (;;) {
		struct pollfd pfd = { .fd = cmd, .events = POLLIN };
		char c = 0;
		check_quotas(why, sizeof(why));
		checks++;
		if (why[0]) {
			snprintf(line, sizeof(line), "FAIL %s\n", why);
			(void)!write(answer, line, strlen(line));
			_exit(1);
		}
		if (poll(&pfd, 1, 2) <= 0)
			continue;
		if (read(cmd, &c, 1) != 1 || c == 'q') {
			snprintf(line, sizeof(line), "DONE %lu\n", checks);
			(void)!write(answer, line, strlen(line));
			_exit(0);
		}
		(void)!write(answer, "OK\n", 3); /* a check has just passed */
	}
}

static void checker_start(struct checker *c, uid_t uid)
{
	int cmd[2], answer[2];

	assert_int_equal(pipe(cmd), 0);
	assert_int_equal(pipe(answer), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		close(cmd[1]);
		close(answer[0]);
		checker_main(uid, cmd[0], answer[1]);
	}
	close(cmd[0]);
	close(answer[1]);
	c->cmd = cmd[1];
	c->answer = answer[0];
}

/* Sends c and reads one answer line into buf. */
static void checker_ask(struct checker *c, char what, char *buf, size_t n)
{
	size_t got = 0;

	assert_int_equal(write(c->cmd, &what, 1), 1);
	while (got + 1 < n) {
		ssize_t r = read(c->answer, buf + got, 1);
		if (r <= 0 || buf[got] == '\n')
			break;
		got++;
	}
	buf[got] = '\0';
}

/* ---- runs beside the test ---- */

struct bg_run {
	pthread_t thread;
	enum trust trust;
	const char *code;
	struct sandbox_result r;
	volatile int done;
};

static void *bg_main(void *arg)
{
	struct bg_run *b = arg;
	struct sandbox_job job = {
		.job_id = "hostile", .file_name = "hostile.py", .code = (const uint8_t *)b->code,
		.len = strlen(b->code), .trust = b->trust,
	};

	/* A Swarm node the manager saw down (a loaded machine misses its
	 * heartbeats) loses its runs, and the sandbox says the run goes again
	 * on another node: the daemon retries it; so does this, twice at most. */
	for (int tries = 0;; tries++) {
		int r = sandbox_run(sb, &job, &b->r);
		if (r == 0 || tries == 2 || !b->r.message ||
		    !strstr(b->r.message, "runs again on another node"))
			break;
		print_message("hostile.py: %s; running it again\n", b->r.message);
		sandbox_result_clear(&b->r);
	}
	__atomic_store_n(&b->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The real uid of process pid (a /proc entry's name), or (uid_t)-1. */
static uid_t proc_uid(const char *name)
{
	char path[64], line[256];
	FILE *f;
	unsigned long uid = (unsigned long)-1;

	snprintf(path, sizeof(path), "/proc/%d/status", atoi(name));
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu", &uid) == 1)
			break;
	if (f)
		fclose(f);
	return (uid_t)uid;
}

/* A host process of the run's range whose /tmp has file; 0 when none. */
static pid_t find_run_process(const char *file)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		uid_t u;
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		u = proc_uid(e->d_name);
		if (u < range_first || u > range_last)
			continue;
		char *p = xasprintf("/proc/%s/root/tmp/%s", e->d_name, file);
		if (access(p, F_OK) == 0)
			found = atoi(e->d_name);
		free(p);
	}
	if (d)
		closedir(d);
	return found;
}

static size_t count_range_processes(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		uid_t u = proc_uid(e->d_name);
		n += u >= range_first && u <= range_last;
	}
	if (d)
		closedir(d);
	return n;
}

static void put_file(pid_t pid, const char *file)
{
	char *p = xasprintf("/proc/%d/root/tmp/%s", (int)pid, file);
	int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	assert_true(fd >= 0);
	close(fd);
	free(p);
}

/* What a run through Swarm cannot have that a local one has (Engine API
 * 1.41 has no such setting for a service; docs/SCALING.md), as the line it
 * must give instead of "ok":
 *  - a local container has /proc/key-users masked (sandbox_container.c), a
 *    service cannot have it masked, so the keyrings category sees the
 *    node's key users; its system calls are still refused;
 *  - a service has no network "none": its network is its own internal
 *    overlay, an interface with no route out (the connection still
 *    fails). */
static const struct {
	const char *name, *runtime, *line;
} swarm_differs[] = {
	{ "keyrings", "runc", "RESULT keyrings OPEN add_key:EPERM keyctl:EPERM request_key:EPERM; "
			      "/proc/key-users shows uids " },
	{ "network", "runc", "RESULT network OPEN interfaces eth0,lo; connect 1.1.1.1:53: ENETUNREACH\n" },
};

static const char *swarm_line(const char *runtime, const char *name)
{
	for (size_t i = 0; docker_env_swarm() && i < ARRAY_SIZE(swarm_differs); i++)
		if (strcmp(swarm_differs[i].runtime, runtime) == 0 &&
		    strcmp(swarm_differs[i].name, name) == 0)
			return swarm_differs[i].line;
	return NULL;
}

static void expect_categories(const struct sandbox_result *r, const char *runtime, char **names,
			      size_t n)
{
	size_t open = 0;

	fprintf(stderr, "%s:\n%s%s", runtime, r->out.data, r->err.data ? r->err.data : "");
	/* memory_bomb's child was killed at the limit: the cgroup counted an
	 * OOM kill, so the run's verdict says so, whatever its exit status. */
	if (r->verdict != SANDBOX_VERDICT_OOM_KILLED)
		expect_exit(r, 0);
	assert_non_null(strstr(r->out.data, "RESULT state_next_run "));
	for (size_t i = 0; i < n; i++) {
		const char *differs = swarm_line(runtime, names[i]);
		char *want = differs ? xstrdup(differs) : xasprintf("RESULT %s ok", names[i]);
		if (!strstr(r->out.data, want))
			fail_msg("%s: category %s is not contained (or said nothing): %s", runtime,
				 names[i], r->out.data);
		open += differs != NULL;
		free(want);
	}
	for (const char *o = r->out.data; (o = strstr(o, " OPEN ")); o++)
		open--;
	assert_int_equal(open, 0);
}

/* One run of the set: a runtime's categories (only NULL: all but those
 * gVisor runs alone), or one category alone. */
struct set_run {
	const char *runtime;
	const char *only;
	enum sandbox_verdict want; /* only: the verdict it must end with */
	char **names;
	size_t n_names;
	char *script;
	struct bg_run b;
};

static void test_hostile_set(void **state)
{
	struct checker c;
	char line[320];
	struct set_run runs[2 + ARRAY_SIZE(gvisor_alone)] = {
		{ .runtime = "runc", .b.trust = TRUST_TRUSTED },
		{ .runtime = "runsc", .b.trust = TRUST_UNTRUSTED },
	};
	bool handshake = false;

	for (size_t i = 0; i < ARRAY_SIZE(gvisor_alone); i++)
		runs[2 + i] = (struct set_run){ .runtime = "runsc", .only = gvisor_alone[i].name,
						.want = docker_env_swarm() ? gvisor_alone[i].swarm_verdict
									   : gvisor_alone[i].verdict,
						.b.trust = TRUST_UNTRUSTED };
	checker_start(&c, range_first - 1);
	/* All at once, one burst: each run has its own uid, and only the runc
	 * run's processes are the host's (gVisor's sentry stands for its
	 * runs), so the neighbour's check below is about that run alone. */
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		runs[i].script = hostile_script(runs[i].runtime, runs[i].only, &runs[i].names,
						&runs[i].n_names);
		runs[i].b.code = runs[i].script;
		assert_int_equal(pthread_create(&runs[i].b.thread, NULL, bg_main, &runs[i].b), 0);
	}
	/* Under runc the run's processes are the host's: while the set holds
	 * its quotas, the neighbour checks its own once more, then lets the
	 * set go on. Under gVisor the neighbour checks all along. */
	while (!__atomic_load_n(&runs[0].b.done, __ATOMIC_SEQ_CST)) {
		pid_t pid = handshake ? 0 : find_run_process("mai-holding");
		if (pid) {
			checker_ask(&c, 'c', line, sizeof(line));
			if (strcmp(line, "OK") != 0)
				fail_msg("the host's uid %u was affected while the run held its "
					 "quotas: %s", range_first - 1, line);
			put_file(pid, "mai-go");
			handshake = true;
		}
		usleep(5000);
	}
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++)
		pthread_join(runs[i].b.thread, NULL);
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct set_run *s = &runs[i];
		if (!s->only) {
			expect_categories(&s->b.r, s->runtime, s->names, s->n_names);
		} else if (s->b.r.verdict != s->want) {
			assert_int_equal(s->n_names, 1);
			/* What the verdict was read from, for the next look. */
			fail_msg("runsc: %s ended with %s, not %s (signal %d, peak memory %lld of "
				 "%lld bytes, peak pids %lld of %lld): %s", s->names[0],
				 sandbox_verdict_to_string(s->b.r.verdict),
				 sandbox_verdict_to_string(s->want), s->b.r.signal,
				 (long long)s->b.r.peak_memory_bytes,
				 (long long)s->b.r.limits.memory_bytes, (long long)s->b.r.pids_peak,
				 (long long)s->b.r.limits.pids, s->b.r.out.data);
		}
	}
	assert_true(handshake);
	assert_non_null(strstr(runs[0].b.r.out.data, "RESULT per_uid_quotas ok inotify=128"));
	assert_non_null(strstr(runs[0].b.r.out.data, "host checked"));
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		sandbox_result_clear(&runs[i].b.r);
		for (size_t k = 0; k < runs[i].n_names; k++)
			free(runs[i].names[k]);
		free(runs[i].names);
		free(runs[i].script);
	}
	/* Nothing of the runs' uids is left on the host (orphans). */
	sandbox_wait_removed(sb);
	assert_int_equal(count_range_processes(), 0);
	checker_ask(&c, 'q', line, sizeof(line));
	int status;
	assert_int_equal(waitpid(c.pid, &status, 0), c.pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || strncmp(line, "DONE ", 5) != 0)
		fail_msg("the host's process of uid %u was affected: %s (status %#x)",
			 range_first - 1, line, status);
	close(c.cmd);
	close(c.answer);
}

/* ---- uid 1000 against a run ---- */

static const char victim[] =
	"import os, time\n"
	"secret = bytearray(b'mai-secret-' + os.urandom(8).hex().encode())\n"
	"open('/tmp/mai-ready', 'w').write('x')\n"
	"deadline = time.monotonic() + 60\n"
	"while not os.path.exists('/tmp/mai-go') and time.monotonic() < deadline:\n"
	"    time.sleep(0.01)\n"
	"print('done', len(secret))\n";

/* In a child of uid OLD_SANDBOX_UID: what it could do to pid. Exit status
 * bits: 1 /proc/PID/mem opened, 2 attached with ptrace, 4 took a
 * descriptor with pidfd_getfd. */
static int attack_as_old_uid(pid_t pid)
{
	pid_t child = fork();
	int status;

	assert_true(child >= 0);
	if (child == 0) {
		int got = 0, fd;
		char path[64];
		if (setgroups(0, NULL) < 0 || setresgid(OLD_SANDBOX_UID, OLD_SANDBOX_UID,
							 OLD_SANDBOX_UID) < 0 ||
		    setresuid(OLD_SANDBOX_UID, OLD_SANDBOX_UID, OLD_SANDBOX_UID) < 0)
			_exit(64);
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			got |= 1;
			close(fd);
		}
		if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == 0) {
			got |= 2;
			ptrace(PTRACE_DETACH, pid, NULL, NULL);
		}
		int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd >= 0 && (fd = (int)syscall(SYS_pidfd_getfd, pidfd, 1, 0)) >= 0) {
			got |= 4;
			close(fd);
		}
		_exit(got);
	}
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 64);
	return WEXITSTATUS(status);
}

static void test_old_uid_cannot_reach_a_run(void **state)
{
	struct bg_run b = { .trust = TRUST_TRUSTED, .code = victim };
	pid_t pid = 0;

	assert_int_equal(pthread_create(&b.thread, NULL, bg_main, &b), 0);
	while (!pid && !__atomic_load_n(&b.done, __ATOMIC_SEQ_CST)) {
		pid = find_run_process("mai-ready");
		usleep(5000);
	}
	assert_true(pid > 0);
	int got = attack_as_old_uid(pid);
	put_file(pid, "mai-go");
	pthread_join(b.thread, NULL);
	if (got)
		fail_msg("uid %d reached run process %d:%s%s%s", OLD_SANDBOX_UID, (int)pid,
			 got & 1 ? " read /proc/PID/mem" : "", got & 2 ? " ptrace attach" : "",
			 got & 4 ? " pidfd_getfd" : "");
	expect_exit(&b.r, 0);
	assert_string_equal(b.r.out.data, "done 27\n");
	sandbox_result_clear(&b.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_uid_cannot_reach_a_run),
		cmocka_unit_test(test_hostile_set),
	};
	struct sandbox_options o;
	char *err = NULL;
	int r;

	docker = docker_env_require();
	choose_range();
	test_options(&o);
	o.image = pip_image();
	o.uid_first = range_first;
	o.uid_last = range_last;
	o.uid_check = true;
	o.trust[TRUST_TRUSTED].runtime = "runc";
	o.trust[TRUST_UNTRUSTED].runtime = "runsc";
	for (int t = 0; t < TRUST_COUNT; t++) {
		struct sandbox_limits *l = &o.trust[t].base;
		l->memory_bytes = 256LL << 20;
		l->pids = 64;
		l->nofile = 4096;
		l->tmpfs_bytes = 16LL << 20;
		l->timeout_ms = HOSTILE_TIMEOUT_MS;
		o.trust[t].no_scale = true;
	}
	if (sandbox_new(&o, &sb, &err) < 0) {
		fprintf(stderr, "sandbox_new: %s\n", err);
		free(err);
		return 1;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	return sandbox_fixture_close(r);
}
