/* mai-agent keygen and verify as a user runs them: output lines and exit
 * statuses (0 intact, 1 tampered, 2 unreadable). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "audit.h"
#include "audit_fixture.h"
#include "macro.h"
#include "testdir.h"

/* Runs mai-agent with args (a shell word list), returns the exit status and
 * the first line of stdout in *out (caller frees). */
static int run(char **out, const char *fmt, ...)
{
	const char *agent = getenv("MAI_AGENT");
	assert_non_null(agent);
	va_list ap;
	va_start(ap, fmt);
	char *args = NULL;
	assert_true(vasprintf(&args, fmt, ap) >= 0);
	va_end(ap);
	_cleanup_free_ char *cmd = xasprintf("'%s' %s 2>/dev/null", agent, args);
	free(args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	char buf[4096] = "";
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	int st = pclose(p);
	*out = xstrdup(buf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_keygen_then_verify(void **state)
{
	const char *dir = *state;
	_cleanup_free_ char *out = NULL, *out2 = NULL, *out3 = NULL, *out4 = NULL;
	/* keygen: 0600 key, public key printed and written. */
	assert_int_equal(run(&out, "keygen --name mai.test/audit '%s/sign.key'", dir), 0);
	assert_true(strncmp(out, "mai.test/audit+", 15) == 0);
	struct stat st;
	_cleanup_free_ char *key = xasprintf("%s/sign.key", dir), *pub = xasprintf("%s/sign.key.pub", dir);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	size_t len;
	_cleanup_free_ char *pubtext = fixture_read(pub, &len);
	assert_string_equal(pubtext, out);
	/* Refuses to overwrite, and refuses a key inside the log directory. */
	assert_int_equal(run(&out2, "keygen '%s/sign.key'", dir), 2);
	_cleanup_free_ char *log_dir = xasprintf("%s/state/audit", dir);
	_cleanup_free_ char *state_dir = xasprintf("%s/state", dir);
	assert_int_equal(mkdir(state_dir, 0700), 0);
	assert_int_equal(mkdir(log_dir, 0700), 0);
	assert_int_equal(run(&out3, "keygen --log-dir '%s' '%s/k.key'", log_dir, log_dir), 2);

	/* A log signed with that key. */
	struct audit_options o = { .log_dir = log_dir, .signing_key = key, .origin = "mai.test/audit" };
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 20);
	uint64_t seqs[2] = { 4, 5 };
	_cleanup_free_ char *sidecar = xasprintf("%s/foo.audit", dir);
	assert_int_equal(audit_sidecar_write(log, seqs, 2, sidecar, NULL), 0);
	audit_close(log);

	/* STATE_DIR finds audit/ inside it. */
	assert_int_equal(run(&out4, "verify '%s/state' --pubkey '%s'", dir, pub), 0);
	assert_true(strncmp(out4, "OK n=21 head=", 13) == 0); /* 20 and the sidecar's checkpoint record */
	assert_non_null(strstr(out4, " checkpoint=ok\n"));
	free(out4);
	assert_int_equal(run(&out4, "verify --json '%s'", log_dir), 0);
	json_t *j = json_loads(out4, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(j, "entries")), 21);
	assert_string_equal(json_string_value(json_object_get(j, "checkpoint")), "ok");
	assert_true(json_is_null(json_object_get(j, "first_bad_seq")));
	json_decref(j);
	free(out4);
	assert_int_equal(run(&out4, "verify '%s' --pubkey '%s'", sidecar, pub), 0);
	assert_true(strncmp(out4, "OK n=2 head=", 12) == 0);
	free(out4);
	/* A sidecar without a key is a usage error. */
	assert_int_equal(run(&out4, "verify '%s'", sidecar), 2);
	free(out4);

	/* Tampered: exit 1 and the first bad record. */
	_cleanup_free_ char *seg = xasprintf("%s/seg-000000000000.log", log_dir);
	_cleanup_free_ char *data = fixture_read(seg, &len);
	char *p = strstr(data, "\"n\":7,");
	assert_non_null(p);
	p[4] = '8';
	fixture_write(seg, data, len);
	assert_int_equal(run(&out4, "verify '%s' --pubkey '%s'", log_dir, pub), 1);
	char expect_prefix[256];
	snprintf(expect_prefix, sizeof(expect_prefix), "FAIL seq=7: record content does not match its entry "
		 "hash (changed record) (%s, offset ", seg);
	assert_true(strncmp(out4, expect_prefix, strlen(expect_prefix)) == 0);
	free(out4);
	assert_int_equal(run(&out4, "verify '%s' --json", log_dir), 1);
	j = json_loads(out4, 0, NULL);
	assert_false(json_is_true(json_object_get(j, "ok")));
	assert_int_equal(json_integer_value(json_object_get(j, "first_bad_seq")), 7);
	json_decref(j);
	free(out4);

	/* Unreadable: exit 2. */
	assert_int_equal(run(&out4, "verify '%s/nowhere'", dir), 2);
	free(out4);
	assert_int_equal(run(&out4, "verify '%s' --pubkey '%s/nokey'", log_dir, dir), 2);
}

/* --since: the log only grew since a kept checkpoint (a consistency proof
 * shown on the line and in the JSON), or its history was rewritten (exit 1). */
static void test_since(void **state)
{
	const char *dir = *state;
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL, *out = NULL, *log_dir = xasprintf("%s/audit", dir);
	_cleanup_free_ char *pub = xasprintf("%s/k.pub", dir), *kept = xasprintf("%s/kept.ckpt", dir);
	_cleanup_free_ char *ck = xasprintf("%s/checkpoint", log_dir);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 20);
	assert_int_equal(audit_checkpoint_now(log), 0); /* signs 20, recorded as seq 20 */
	size_t len;
	_cleanup_free_ char *note = fixture_read(ck, &len);
	fixture_write(kept, note, len);
	fixture_append(log, 30);
	audit_close(log); /* 20 + 1 + 30 + 1 records */

	assert_int_equal(run(&out, "verify '%s' --pubkey '%s' --since '%s'", log_dir, pub, kept), 0);
	assert_true(strncmp(out, "OK n=52 head=", 13) == 0);
	assert_non_null(strstr(out, " checkpoint=ok consistency=ok from=20 to=52 proof="));
	free(out);
	assert_int_equal(run(&out, "verify '%s' --json --since '%s'", log_dir, kept), 0);
	json_t *j = json_loads(out, 0, NULL);
	json_t *c = json_object_get(j, "consistency");
	assert_true(json_is_true(json_object_get(c, "ok")));
	assert_int_equal(json_integer_value(json_object_get(c, "from")), 20);
	assert_int_equal(json_integer_value(json_object_get(c, "to")), 52);
	assert_true(json_array_size(json_object_get(c, "proof")) > 0);
	json_decref(j);
	free(out);

	/* The same key writes another history from scratch. */
	_cleanup_free_ char *rm = xasprintf("rm -rf '%s'", log_dir);
	assert_int_equal(system(rm), 0);
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 3);
	fixture_append(log, 60);
	audit_close(log);
	assert_int_equal(run(&out, "verify '%s' --pubkey '%s'", log_dir, pub), 0); /* consistent in itself */
	free(out);
	assert_int_equal(run(&out, "verify '%s' --pubkey '%s' --since '%s'", log_dir, pub, kept), 1);
	assert_true(strncmp(out, "FAIL seq=0: the consistency proof from ", 39) == 0);
	assert_non_null(strstr(out, "history rewritten"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_keygen_then_verify, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_since, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
