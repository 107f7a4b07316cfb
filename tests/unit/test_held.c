/* cmd/held.c as `pending`, `approve` and `override` show a held script: the
 * command a person copies into a shell, and the findings most severe first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "held.h"
#include "testdir.h"

/* What /bin/sh makes of the quoted word: the original string, byte for byte. */
static void assert_shell_reads_back(const char *s)
{
	char *q = held_shell_quote(s), *cmd = NULL, buf[512];
	FILE *p;
	size_t n;

	assert_true(asprintf(&cmd, "printf %%s %s", q) > 0);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	assert_int_equal(pclose(p), 0);
	if (strcmp(buf, s) != 0)
		fail_msg("%s quoted as %s reads back as %s", s, q, buf);
	free(cmd);
	free(q);
}

static void test_shell_quote(void **state)
{
	static const char *const words[] = {
		"/drop/plain.py", "/drop/with space.py", "/drop/it's.py", "/drop/$(rm -rf ~).py",
		"/drop/`id`.py", "/drop/a;b|c&d.py", "/drop/\"q\".py", "/drop/new\nline.py", "''", "*",
	};
	char *q;

	/* A plain path stays as it is: what the person typed. */
	q = held_shell_quote("/drop/sub-dir/a_b.c+d,e:f@g%h.py");
	assert_string_equal(q, "/drop/sub-dir/a_b.c+d,e:f@g%h.py");
	free(q);
	q = held_shell_quote("");
	assert_string_equal(q, "''");
	free(q);
	q = held_shell_quote("it's");
	assert_string_equal(q, "'it'\\''s'");
	free(q);
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		assert_shell_reads_back(words[i]);
}

static void test_command(void **state)
{
	struct held h = { .path = (char *)"/drop/my script.py" };
	char *c;

	h.result = json_pack("{s:s}", "state", "awaiting_confirmation");
	c = held_command(&h);
	assert_string_equal(c, "mai-agent approve '/drop/my script.py'");
	free(c);
	json_decref(h.result);
	/* BLOCKED: only an override (with its reason) lets it run. */
	h.result = json_pack("{s:s}", "state", "blocked");
	c = held_command(&h);
	assert_string_equal(c, "mai-agent override '/drop/my script.py' --reason 'why it must run'");
	free(c);
	json_decref(h.result);
	h.result = NULL;
	c = held_command(&h);
	assert_string_equal(c, "mai-agent approve '/drop/my script.py'");
	free(c);
}

/* Most severe first; among equals the higher score, then the earlier line;
 * a severity the agent does not write sorts last. */
static void test_top_findings(void **state)
{
	struct held h = { 0 };
	json_t *top;
	static const char *const want[] = { "C", "H2", "H1", "H3", "M", "L", "X" };

	h.result = json_pack("{s:{s:[{s:s,s:s,s:f,s:i},{s:s,s:s,s:f,s:i},{s:s,s:s,s:f,s:i},"
			     "{s:s,s:s,s:f,s:i},{s:s,s:s,s:f,s:i},{s:s,s:s,s:f,s:i},{s:s,s:s,s:f,s:i}]}}",
			     "assessment", "findings",
			     "rule_id", "L", "severity", "LOW", "score", 9.0, "line", 1,
			     "rule_id", "X", "severity", "WEIRD", "score", 9.9, "line", 1,
			     "rule_id", "H1", "severity", "HIGH", "score", 5.0, "line", 3,
			     "rule_id", "M", "severity", "MEDIUM", "score", 9.0, "line", 1,
			     "rule_id", "H3", "severity", "HIGH", "score", 5.0, "line", 7,
			     "rule_id", "C", "severity", "CRITICAL", "score", 1.0, "line", 9,
			     "rule_id", "H2", "severity", "HIGH", "score", 6.0, "line", 8);
	assert_non_null(h.result);
	top = held_top_findings(&h, 10);
	assert_int_equal(json_array_size(top), 7);
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(top, i), "rule_id")),
				    want[i]);
	json_decref(top);
	top = held_top_findings(&h, 2);
	assert_int_equal(json_array_size(top), 2);
	json_decref(top);
	json_decref(h.result);
	h.result = NULL;
	top = held_top_findings(&h, 10);
	assert_int_equal(json_array_size(top), 0);
	json_decref(top);
}

static void test_print_findings(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	json_t *f = json_pack("[{s:s,s:s,s:i,s:s},{}]", "rule_id", "MAI001", "severity", "HIGH",
			      "line", 4, "message", "starts a process\x1b[2J");
	json_t *none = json_array();

	held_print_findings(out, f);
	held_print_findings(out, none);
	fclose(out);
	/* A control character of the message is not sent to the terminal. */
	assert_null(strchr(text, '\x1b'));
	assert_non_null(strstr(text, "    MAI001 HIGH line 4: starts a process"));
	assert_non_null(strstr(text, "    ? ? line 0: \n"));
	assert_non_null(strstr(text, "    (no findings)\n"));
	free(text);
	json_decref(f);
	json_decref(none);
}

/* A result counts only when it is the agent's own file about this very
 * script and content: anything else at its name says why it does not. */
static void test_read_result_trusts_only_the_agents_own(void **state)
{
	const char *dir = *state;
	static const char sha[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
	int dfd = testdir_open(dir);
	const char *why = NULL;
	json_t *r;

	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid(), &why);
	assert_null(r);
	assert_string_equal(why, "the agent has not answered this script yet");
	testdir_put(dir, "x.result.json", "{\"file\": \"y.py\", \"sha256\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid(), &why);
	assert_null(r);
	assert_string_equal(why, "its result is not about this script");
	testdir_put(dir, "x.result.json", "not json");
	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid(), &why);
	assert_null(r);
	assert_string_equal(why, "its result is not about this script");
	testdir_put(dir, "x.result.json", "{\"file\": \"x.py\", \"sha256\": \"bb\"}");
	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid(), &why);
	assert_null(r);
	assert_non_null(strstr(why, "has not answered the content it has now"));
	/* Another user's file at the name. */
	testdir_put(dir, "x.result.json", "{\"file\": \"x.py\", \"sha256\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid() + 1, &why);
	assert_null(r);
	assert_non_null(strstr(why, "is not the agent's"));
	r = held_read_result(dfd, "x.result.json", "x.py", sha, geteuid(), &why);
	assert_non_null(r);
	json_decref(r);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shell_quote),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_top_findings),
		cmocka_unit_test(test_print_findings),
		cmocka_unit_test_setup_teardown(test_read_result_trusts_only_the_agents_own, testdir_setup,
						testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
