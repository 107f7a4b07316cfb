/* The sandbox's isolation from the host, without Docker: the uid
 * allocator, the start-time check of the uid range against real accounts
 * (useradd, removed after), a real process and a subordinate id file, the
 * userns-remap shift, the core_pattern decision and the seccomp profile's
 * shape. The account and process parts need root (skipped without). */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "macro.h"
#include "sandbox_core.h"
#include "sandbox_options.h"
#include "sandbox_seccomp.h"
#include "sandbox_uidcheck.h"
#include "sandbox_uids.h"
#include "testdir.h"

/* A range of this run's own, far from the default one and from other
 * tests running beside it. */
static uint32_t test_first(void)
{
	return 2040000000u + (uint32_t)(getpid() % 100000) * 64u;
}

static void test_uids_one_per_container(void **state)
{
	struct sandbox_uids *u = sandbox_uids_new(100, 102);
	uint32_t a, b, c, d;

	assert_int_equal(sandbox_uids_take(u, &a), 0);
	assert_int_equal(sandbox_uids_take(u, &b), 0);
	assert_int_equal(sandbox_uids_take(u, &c), 0);
	assert_true(a != b && b != c && a != c);
	assert_true(a >= 100 && a <= 102 && b >= 100 && b <= 102 && c >= 100 && c <= 102);
	/* All three in flight: none left. */
	assert_int_equal(sandbox_uids_take(u, &d), -EAGAIN);
	sandbox_uids_bind(u, a, "c-a");
	sandbox_uids_bind(u, b, "c-b");
	/* A failed create gives its uid back at once; a created container's
	 * uid comes back only when it is removed. */
	sandbox_uids_give(u, c);
	sandbox_uids_give(u, a); /* bound: not given back this way */
	assert_int_equal(sandbox_uids_in_use(u), 2);
	assert_int_equal(sandbox_uids_take(u, &d), 0);
	assert_int_equal(d, c);
	sandbox_uids_removed(u, "c-a");
	sandbox_uids_removed(u, "no-such-container");
	assert_int_equal(sandbox_uids_in_use(u), 2);
	assert_int_equal(sandbox_uids_take(u, &d), 0);
	assert_int_equal(d, a);
	sandbox_uids_free(u);

	/* The uid after the last one taken: a uid just given back comes last. */
	u = sandbox_uids_new(10, 19);
	assert_int_equal(sandbox_uids_take(u, &a), 0);
	sandbox_uids_give(u, a);
	assert_int_equal(sandbox_uids_take(u, &b), 0);
	assert_int_equal(b, a + 1);
	sandbox_uids_free(u);
}

static void test_uid_range_clean(void **state)
{
	struct sandbox_uid_check c = { .first = test_first(), .last = test_first() + 63 };
	char *warning = NULL, *err = NULL;

	if (sandbox_uid_range_check(&c, &warning, &err) < 0)
		fail_msg("%s", err);
	assert_null(warning);
}

static int run(const char *cmd)
{
	int r = system(cmd);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

/* With what add makes (a real account or group, made here), the range of
 * c is refused with a message holding want; after del it passes again.
 * Takes add, del and want. */
static void expect_named_until_removed(const struct sandbox_uid_check *c, char *add, char *del,
				       char *want)
{
	char *warning = NULL, *err = NULL;

	assert_int_equal(run(add), 0);
	int r = sandbox_uid_range_check(c, &warning, &err);
	assert_int_equal(run(del), 0);
	assert_int_equal(r, -EEXIST);
	if (!strstr(err, want))
		fail_msg("%s", err);
	free(err);
	err = NULL;
	assert_int_equal(sandbox_uid_range_check(c, &warning, &err), 0);
	free(add);
	free(del);
	free(want);
}

/* A real account whose uid is in the range is named; after userdel the
 * same range passes. */
static void test_uid_range_account(void **state)
{
	uint32_t first = test_first();
	struct sandbox_uid_check c = { .first = first, .last = first + 63 };
	char name[32];

	if (geteuid() != 0)
		test_skip("an account in the reserved uid range needs root (useradd)");
	snprintf(name, sizeof(name), "maiuid%d", (int)getpid());
	expect_named_until_removed(
		&c, xasprintf("useradd -M -N -g 0 -s /usr/sbin/nologin -u %u %s", first + 5, name),
		xasprintf("userdel %s", name),
		xasprintf("the account '%s' (uid %u, gid 0) is in the sandbox's uid range", name,
			  first + 5));
}

/* A real group whose gid is in the range is named too (an account's
 * secondary group shares files with the runs); after groupdel it passes. */
static void test_uid_range_group(void **state)
{
	uint32_t first = test_first();
	struct sandbox_uid_check c = { .first = first, .last = first + 63 };
	char name[32];

	if (geteuid() != 0)
		test_skip("a group in the reserved uid range needs root (groupadd)");
	snprintf(name, sizeof(name), "maigid%d", (int)getpid());
	expect_named_until_removed(&c, xasprintf("groupadd -g %u %s", first + 7, name),
				   xasprintf("groupdel %s", name),
				   xasprintf("the group '%s' (gid %u) is in the sandbox's uid range %u-%u",
					     name, first + 7, first, first + 63));
}

/* A process (a child that takes a uid of the range) is named with its
 * pid; once it is gone the range passes. */
static void test_uid_range_process(void **state)
{
	uint32_t first = test_first();
	struct sandbox_uid_check c = { .first = first, .last = first + 63 };
	char *warning = NULL, *err = NULL;
	int ready[2];
	char b;

	if (geteuid() != 0)
		test_skip("a process of another uid needs root");
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(ready[0]);
		if (setresgid(first + 9, first + 9, first + 9) < 0 ||
		    setresuid(first + 9, first + 9, first + 9) < 0)
			_exit(1);
		(void)!write(ready[1], "x", 1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &b, 1), 1); /* it runs as that uid now */
	close(ready[0]);
	int r = sandbox_uid_range_check(&c, &warning, &err);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(r, -EEXIST);
	char *want = xasprintf("process %d (", (int)pid);
	if (!strstr(err, want) || !strstr(err, "in the sandbox's uid range"))
		fail_msg("%s", err);
	free(want);
	free(err);
	err = NULL;
	assert_int_equal(sandbox_uid_range_check(&c, &warning, &err), 0);
}

/* A file in one of the directories the check looks at (here /dev/shm)
 * whose group is in the range is named with its owner and group; none of
 * the range's, and the check passes again (on a host with no subordinate
 * id files at all). */
static void test_uid_range_file(void **state)
{
	uint32_t first = test_first();
	/* a host without /etc/subuid and /etc/subgid: no ranges to collide */
	char *root = xstrdup("/tmp/mai-uidcheck-XXXXXX");
	assert_non_null(mkdtemp(root));
	struct sandbox_uid_check c = { .first = first, .last = first + 63, .root = root };
	char *warning = NULL, *err = NULL;

	if (geteuid() != 0)
		test_skip("giving a file to another uid needs root");
	char *path = xasprintf("/dev/shm/mai-uidcheck-%d", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chown(path, 0, first + 5), 0);
	int r = sandbox_uid_range_check(&c, &warning, &err);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(r, -EEXIST);
	char *want = xasprintf("%s is owned by uid 0 gid %u, in the sandbox's uid range %u-%u", path,
			       first + 5, first, first + 63);
	if (!strstr(err, want))
		fail_msg("%s", err);
	free(want);
	free(err);
	free(path);
	err = NULL;
	assert_int_equal(sandbox_uid_range_check(&c, &warning, &err), 0);
	assert_int_equal(rmdir(root), 0);
	free(root);
}

static char *fixture_root(const char *subuid)
{
	char *root = xstrdup("/tmp/mai-uidcheck-XXXXXX"), *etc, *file;

	assert_non_null(mkdtemp(root));
	etc = xasprintf("%s/etc", root);
	assert_int_equal(mkdir(etc, 0755), 0);
	file = xasprintf("%s/subuid", etc);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs(subuid, f);
	fclose(f);
	file = (free(file), xasprintf("%s/subgid", etc));
	f = fopen(file, "w");
	fclose(f);
	free(file);
	free(etc);
	return root;
}

static void remove_root(char *root)
{
	char *cmd = xasprintf("rm -rf '%s'", root);
	assert_int_equal(run(cmd), 0);
	free(cmd);
	free(root);
}

/* A user's subordinate ids that overlap the range are named; userns-remap
 * shifts the range by dockremap's start and refuses one past its count. */
static void test_subids_and_remap(void **state)
{
	char *root = fixture_root("not a line\nbob:165000:0\nalice:100000:65536\ndockremap:231072:65536\n");
	struct sandbox_uid_check c = { .first = 160000, .last = 170000, .root = root };
	char *warning = NULL, *err = NULL;
	uint32_t hf, hl;

	assert_int_equal(sandbox_uid_range_check(&c, &warning, &err), -EEXIST);
	if (!strstr(err, "/etc/subuid gives 'alice' the ids 100000-165535, which overlap"))
		fail_msg("%s", err);
	free(err);
	err = NULL;
	assert_int_equal(sandbox_uid_range_remapped(root, NULL, 10000, 19999, &hf, &hl, &err), 0);
	assert_int_equal(hf, 241072);
	assert_int_equal(hl, 251071);
	assert_int_equal(sandbox_uid_range_remapped(root, NULL, SANDBOX_UID_FIRST, SANDBOX_UID_LAST,
						    &hf, &hl, &err), -ERANGE);
	assert_non_null(strstr(err, "dockerd runs with userns-remap: container uids 0-65535 are mapped "
				    "(/etc/subuid, dockremap), so the sandbox's uid_range"));
	assert_non_null(strstr(err, "choose one inside 1-65535 (each uid X runs as host uid 231072+X)"));
	free(err);
	err = NULL;
	assert_int_equal(sandbox_uid_range_remapped(root, "nobody-here", 1, 2, &hf, &hl, &err),
			 -ENOENT);
	free(err);
	remove_root(root);
}

/* The kernel ignores RLIMIT_CORE 0 for a pipe and aborts at exactly 1; a
 * run that may change its limit could lower 1 to 0. */
static void test_core_pattern_decision(void **state)
{
	static const struct {
		const char *pattern;
		int64_t limit;
		bool locked;
		int want;
		const char *says;
	} cases[] = {
		{ "core\n", 1, true, 0, "writes files" },
		{ "/var/crash/core.%p\n", 0, false, 0, "writes files" },
		{ "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h\n", 1, true, 0,
		  "pipes to '/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h'" },
		{ "|/usr/share/apport/apport -p%p -s%s -c%c\n", 0, true, -EPERM,
		  "the kernel ignores ulimit core 0 for a pipe" },
		/* The program is named as written, without the newline. */
		{ "|/usr/share/apport/apport -p%p -s%s -c%c\n", 0, true, -EPERM,
		  "core_pattern pipes to '/usr/share/apport/apport -p%p -s%s -c%c' and a run's crash" },
		{ "/var/crash/core.%p\n", 0, false, 0, "core_pattern '/var/crash/core.%p' writes files" },
		{ "|/usr/share/apport/apport -p%p -s%s -c%c\n", 1, false, -EPERM,
		  "and a run may change it" },
		{ "|/bin/false", 1024, true, -EPERM, "sysctl kernel.core_pattern=core" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *msg = NULL;
		assert_int_equal(sandbox_core_check(cases[i].pattern, cases[i].limit, cases[i].locked,
						    &msg), cases[i].want);
		if (!strstr(msg, cases[i].says))
			fail_msg("case %zu: %s", i, msg);
		free(msg);
	}
}

static json_t *rule_for(json_t *rules, const char *name, size_t nth)
{
	size_t i, k;
	json_t *r, *n;

	json_array_foreach(rules, i, r) {
		json_array_foreach(json_object_get(r, "names"), k, n) {
			if (strcmp(json_string_value(n), name) == 0 && nth-- == 0)
				return r;
		}
	}
	return NULL;
}

/* What the profile allows and what it leaves out. */
static void test_seccomp_profile(void **state)
{
	char *s = sandbox_seccomp_profile();
	json_t *p = json_loads(s, 0, NULL), *rules = json_object_get(p, "syscalls");
	static const char *const denied[] = {
		"io_uring_setup", "io_uring_enter", "io_uring_register", "memfd_create", "socketcall",
		"userfaultfd", "keyctl", "add_key", "request_key", "bpf", "perf_event_open", "ptrace",
		"modify_ldt", "setrlimit", "unshare", "mount", "setns", "init_module", "kexec_load",
	};

	assert_non_null(p);
	assert_string_equal(json_string_value(json_object_get(p, "defaultAction")), "SCMP_ACT_ERRNO");
	assert_int_equal(json_array_size(json_object_get(p, "architectures")), 1);
	for (size_t i = 0; i < ARRAY_SIZE(denied); i++)
		if (rule_for(rules, denied[i], 0))
			fail_msg("%s is allowed", denied[i]);
	assert_non_null(rule_for(rules, "read", 0));
	assert_non_null(rule_for(rules, "pidfd_open", 0));
	/* socket: by family, every rule with an argument condition. */
	int64_t families[8];
	size_t n = 0;
	for (json_t *r; (r = rule_for(rules, "socket", n)); n++) {
		json_t *a = json_array_get(json_object_get(r, "args"), 0);
		assert_non_null(a);
		assert_int_equal(json_integer_value(json_object_get(a, "index")), 0);
		families[n] = json_integer_value(json_object_get(a, "value"));
	}
	assert_int_equal(n, 4);
	for (size_t i = 0; i < n; i++)
		assert_true(families[i] == 1 || families[i] == 2 || families[i] == 10 ||
			    families[i] == 16);
	/* prlimit64 only to read (new limit NULL). */
	json_t *pl = json_array_get(json_object_get(rule_for(rules, "prlimit64", 0), "args"), 0);
	assert_int_equal(json_integer_value(json_object_get(pl, "index")), 2);
	assert_int_equal(json_integer_value(json_object_get(pl, "value")), 0);
	json_decref(p);
	free(s);
	char *d = sandbox_seccomp_describe();
	assert_non_null(strstr(d, SANDBOX_SECCOMP_NAME " (the agent's own, sha256 "));
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uids_one_per_container),
		cmocka_unit_test(test_uid_range_clean),
		cmocka_unit_test(test_uid_range_account),
		cmocka_unit_test(test_uid_range_group),
		cmocka_unit_test(test_uid_range_process),
		cmocka_unit_test(test_uid_range_file),
		cmocka_unit_test(test_subids_and_remap),
		cmocka_unit_test(test_core_pattern_decision),
		cmocka_unit_test(test_seccomp_profile),
	};

	return test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
