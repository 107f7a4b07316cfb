/* Content of the maiaudit files that does not come from the audit log:
 * status.json, runs/ (hostile names and file types) and the held snapshot.
 * The log-backed files are checked against the audit library through a
 * real mount in tests/integration/test_maiaudit.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <cmocka.h>

#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "fileio.h"
#include "macro.h"
#include "testdir.h"
#include "view_content.h"

static struct view_ctx *make_ctx(const char *dir, bool with_drop)
{
	_cleanup_free_ char *state = xasprintf("%s/state", dir);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	_cleanup_free_ char *logdir = xasprintf("%s/state/audit", dir);
	_cleanup_free_ char *pub = xasprintf("%s/state/audit/pubkey", dir);
	mkdir(state, 0755);
	mkdir(drop, 0755);
	return view_ctx_new(view_log_new(logdir, pub), state, with_drop ? drop : NULL);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", dir, name);
	assert_int_equal(fileio_write_atomic(p, text, strlen(text), 0644), 0);
}

static json_t *build_json(struct view_ctx *ctx, const char *path)
{
	struct view_path p;
	struct view_file *f = NULL;
	assert_int_equal(view_path_parse(path, &p), 0);
	assert_int_equal(view_content_build(ctx, &p, &f), 0);
	assert_true(f->len > 0 && f->data[f->len - 1] == '\n');
	json_error_t err;
	json_t *j = json_loadb(f->data, f->len, 0, &err);
	if (!j)
		fail_msg("%s is not JSON: %s", path, err.text);
	view_file_free(f);
	return j;
}

static void test_status_absent_says_not_running(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, false);
	json_t *j = build_json(ctx, "/status.json");
	assert_true(json_is_false(json_object_get(j, "running")));
	_cleanup_free_ char *expect = xasprintf(
		"the agent is not running: %s/state/status.json does not exist; start it with "
		"'mai-agent run' (or check --state-dir)", dir);
	assert_string_equal(json_string_value(json_object_get(j, "message")), expect);
	json_decref(j);
	view_ctx_free(ctx);
}

static void test_status_passed_through_verbatim(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, false);
	_cleanup_free_ char *sdir = xasprintf("%s/state", dir);
	_cleanup_free_ char *text = xasprintf("{\"pid\": %d, \"queue\": 3}", (int)getpid());
	write_file(sdir, "status.json", text);

	struct view_path p;
	struct view_file *f = NULL;
	assert_int_equal(view_path_parse("/status.json", &p), 0);
	assert_int_equal(view_content_build(ctx, &p, &f), 0);
	_cleanup_free_ char *expect = xasprintf("%s\n", text);
	assert_int_equal(f->len, strlen(expect));
	assert_memory_equal(f->data, expect, f->len);
	view_file_free(f);

	size_t size = 0;
	assert_int_equal(view_content_size(ctx, &p, &size), 0);
	assert_int_equal(size, strlen(expect));
	/* With its newline already: not a second one. */
	write_file(sdir, "status.json", expect);
	f = NULL;
	assert_int_equal(view_content_build(ctx, &p, &f), 0);
	assert_int_equal(f->len, strlen(expect));
	assert_memory_equal(f->data, expect, f->len);
	view_file_free(f);
	view_ctx_free(ctx);
}

static void test_status_of_dead_agent(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, false);
	_cleanup_free_ char *sdir = xasprintf("%s/state", dir);
	/* A pid that certainly is gone: a child that has been reaped. */
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	_cleanup_free_ char *text = xasprintf("{\"pid\": %d, \"queue\": 3}", (int)pid);
	write_file(sdir, "status.json", text);

	json_t *j = build_json(ctx, "/status.json");
	assert_true(json_is_false(json_object_get(j, "running")));
	assert_non_null(strstr(json_string_value(json_object_get(j, "message")), "is gone"));
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(j, "last_status"), "queue")), 3);
	json_decref(j);
	view_ctx_free(ctx);
}

/* A live process whose status.json is minutes old: the agent rewrites it
 * every second, so it is stuck (or the pid is someone else's). */
static void test_status_of_stuck_agent(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, false);
	_cleanup_free_ char *sdir = xasprintf("%s/state", dir);
	_cleanup_free_ char *file = xasprintf("%s/status.json", sdir);
	_cleanup_free_ char *text = xasprintf("{\"pid\": %d, \"queue\": 3}", (int)getpid());
	write_file(sdir, "status.json", text);
	struct timespec old[2] = { { .tv_sec = time(NULL) - 180 }, { .tv_sec = time(NULL) - 180 } };
	assert_int_equal(utimensat(AT_FDCWD, file, old, 0), 0);

	json_t *j = build_json(ctx, "/status.json");
	assert_true(json_is_false(json_object_get(j, "running")));
	const char *msg = json_string_value(json_object_get(j, "message"));
	if (!strstr(msg, "the agent is not answering") || !strstr(msg, "it is stuck"))
		fail_msg("%s", msg);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(j, "last_status"), "queue")), 3);
	json_decref(j);
	view_ctx_free(ctx);
}

static void test_status_garbage(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, false);
	_cleanup_free_ char *sdir = xasprintf("%s/state", dir);
	write_file(sdir, "status.json", "{\"queue\": 3,\n oops");
	json_t *j = build_json(ctx, "/status.json");
	assert_true(json_is_null(json_object_get(j, "running")));
	const char *err = json_string_value(json_object_get(j, "error"));
	assert_non_null(strstr(err, "status.json is not a JSON object (line 2"));
	json_decref(j);
	/* Not a file at all: said so, not taken for an agent that never ran. */
	_cleanup_free_ char *st = xasprintf("%s/status.json", sdir);
	assert_int_equal(unlink(st), 0);
	assert_int_equal(mkdir(st, 0755), 0);
	j = build_json(ctx, "/status.json");
	assert_true(json_is_null(json_object_get(j, "running")));
	err = json_string_value(json_object_get(j, "error"));
	if (strncmp(err, "cannot read ", 12) != 0 || !strstr(err, "/status.json: "))
		fail_msg("%s", err);
	json_decref(j);
	view_ctx_free(ctx);
}

/* Results the agent could not place in the drop directory are in
 * state/unplaced under a flat name ('%25' for '%', '%2E' for a leading '.',
 * '%2F' for '/'): runs/ lists them under their script's name, once when the
 * drop directory has one too; those of subdirectories are not listed. */
static void test_runs_include_unplaced_results(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, true);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	_cleanup_free_ char *unplaced = xasprintf("%s/state/unplaced", dir);
	assert_int_equal(mkdir(unplaced, 0700), 0);
	write_file(drop, "both.result.json", "{}");
	write_file(unplaced, "both.result.json", "{}");
	write_file(unplaced, "per%25cent.result.json", "{}");
	write_file(unplaced, "sub%2Fdeep.result.json", "{}");
	write_file(unplaced, "only.result.json", "{}");

	char **names = NULL;
	size_t n = 0;
	assert_int_equal(view_runs_list(ctx, &names, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "both");
	assert_string_equal(names[1], "only");
	assert_string_equal(names[2], "per%cent");
	view_runs_free(names, n);
	view_ctx_free(ctx);
}

static void test_runs_hostile_names_and_types(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, true);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	write_file(drop, "foo.result.json", "{\"state\":\"completed\"}\n");
	write_file(drop, "foo.audit", "AUDIT");
	write_file(drop, "bar.result.json", "{}");
	write_file(drop, "a\nb.result.json", "{}");
	write_file(drop, "cut\xc3.result.json", "{}"); /* a character cut short */
	write_file(drop, ".hidden.result.json", "{}");
	write_file(drop, ".result.json", "{}");
	write_file(drop, "notes.txt", "x");
	_cleanup_free_ char *lnk = xasprintf("%s/evil.result.json", drop);
	_cleanup_free_ char *fifo = xasprintf("%s/fifo.result.json", drop);
	_cleanup_free_ char *sub = xasprintf("%s/sub.result.json", drop);
	_cleanup_free_ char *lnk_audit = xasprintf("%s/bar.audit", drop);
	assert_int_equal(symlink("/etc/passwd", lnk), 0);
	assert_int_equal(symlink("/etc/passwd", lnk_audit), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(mkdir(sub, 0755), 0);

	char **names = NULL;
	size_t n = 0;
	assert_int_equal(view_runs_list(ctx, &names, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "bar");
	assert_string_equal(names[1], "foo");
	view_runs_free(names, n);

	struct view_path p;
	const char *absent[] = { "/runs/evil", "/runs/fifo", "/runs/sub", "/runs/nothing",
				 "/runs/bar/audit", "/runs/evil/result.json" };
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++) {
		assert_int_equal(view_path_parse(absent[i], &p), 0);
		if (p.node == VIEW_NODE_RUN_DIR)
			p.node = VIEW_NODE_RUN_RESULT;
		if (view_run_exists(ctx, &p))
			fail_msg("%s should not exist", absent[i]);
		struct view_file *f = NULL;
		assert_int_equal(view_content_build(ctx, &p, &f), -ENOENT);
	}
	assert_int_equal(view_path_parse("/runs/foo/audit", &p), 0);
	assert_true(view_run_exists(ctx, &p));
	view_ctx_free(ctx);
}

static void test_content_is_held_while_open(void **state)
{
	const char *dir = *state;
	struct view_ctx *ctx = make_ctx(dir, true);
	_cleanup_free_ char *drop = xasprintf("%s/drop", dir);
	write_file(drop, "foo.result.json", "{\"state\":\"running\"}\n");

	struct view_path p;
	struct view_file *first = NULL, *second = NULL;
	assert_int_equal(view_path_parse("/runs/foo/result.json", &p), 0);
	assert_int_equal(view_content_build(ctx, &p, &first), 0);
	write_file(drop, "foo.result.json", "{\"state\":\"completed\",\"verdict\":\"exited\"}\n");
	assert_int_equal(view_content_build(ctx, &p, &second), 0);

	char buf[64];
	size_t n = view_file_read(first, buf, sizeof(buf), 0);
	assert_int_equal(n, strlen("{\"state\":\"running\"}\n"));
	assert_memory_equal(buf, "{\"state\":\"running\"}\n", n);
	/* Odd offsets and sizes, and reads at and past the end. */
	assert_int_equal(view_file_read(first, buf, 7, 3), 7);
	assert_memory_equal(buf, "tate\":\"", 7);
	assert_int_equal(view_file_read(first, buf, 100, (off_t)first->len - 2), 2);
	assert_memory_equal(buf, "}\n", 2);
	assert_int_equal(view_file_read(first, buf, 10, (off_t)first->len), 0);
	assert_int_equal(view_file_read(first, buf, 10, 1 << 30), 0);
	assert_int_equal(view_file_read(first, buf, 10, -1), 0);
	n = view_file_read(second, buf, sizeof(buf), 0);
	assert_non_null(memmem(buf, n, "completed", 9));
	view_file_free(first);
	view_file_free(second);
	view_ctx_free(ctx);
}

static void test_no_drop_dir_means_no_runs(void **state)
{
	struct view_ctx *ctx = make_ctx(*state, false);
	char **names = NULL;
	size_t n = 7;
	assert_int_equal(view_runs_list(ctx, &names, &n), 0);
	assert_int_equal(n, 0);
	struct view_path p;
	assert_int_equal(view_path_parse("/runs/foo/result.json", &p), 0);
	assert_false(view_run_exists(ctx, &p));
	view_ctx_free(ctx);
}

/* A --drop-dir that is not a directory: runs/ is refused with the reason
 * (and a warning naming the option), not shown empty as if nothing ran. */
static void test_drop_dir_not_a_directory(void **state)
{
	_cleanup_free_ char *state_dir = xasprintf("%s/state", (char *)*state);
	_cleanup_free_ char *logdir = xasprintf("%s/state/audit", (char *)*state);
	_cleanup_free_ char *pub = xasprintf("%s/state/audit/pubkey", (char *)*state);
	_cleanup_free_ char *file = xasprintf("%s/not-a-dir", (char *)*state);
	struct view_ctx *ctx;
	char **names = NULL;
	size_t n = 7, size = 0;
	struct view_path p;

	mkdir(state_dir, 0755);
	write_file(*state, "not-a-dir", "x");
	ctx = view_ctx_new(view_log_new(logdir, pub), state_dir, file);
	assert_int_equal(view_runs_list(ctx, &names, &n), -ENOTDIR);
	assert_null(names);
	assert_int_equal(n, 0);
	/* The size of a file that cannot be built is its error too. */
	assert_int_equal(view_path_parse("/pubkey", &p), 0);
	assert_int_equal(view_content_size(ctx, &p, &size), -ENOENT);
	view_ctx_free(ctx);
}

static void test_pubkey_missing_is_enoent(void **state)
{
	struct view_ctx *ctx = make_ctx(*state, false);
	struct view_path p;
	struct view_file *f = NULL;
	assert_int_equal(view_path_parse("/pubkey", &p), 0);
	assert_int_equal(view_content_build(ctx, &p, &f), -ENOENT);
	assert_int_equal(view_path_parse("/entries", &p), 0);
	assert_int_equal(view_content_build(ctx, &p, &f), -EISDIR);
	view_ctx_free(ctx);
}

/* The frees take NULL: the start's error paths call them on what may not
 * have been made. */
static void test_free_null(void **state)
{
	view_ctx_free(NULL);
	view_file_free(NULL);
	view_log_free(NULL);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_null),
		T(test_status_absent_says_not_running),
		T(test_status_passed_through_verbatim),
		T(test_status_of_dead_agent),
		T(test_status_of_stuck_agent),
		T(test_status_garbage),
		T(test_runs_hostile_names_and_types),
		T(test_runs_include_unplaced_results),
		T(test_content_is_held_while_open),
		T(test_no_drop_dir_means_no_runs),
		T(test_pubkey_missing_is_enoent),
		T(test_drop_dir_not_a_directory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
