/* pep723_locate and pep723_dependencies: finding the "# /// script" block
 * (the TOML inside is parsed by tomllib in a container; see
 * tests/integration/network.sh) and checking the parsed dependencies. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "netproxy_conf.h"
#include "pep723.h"
#include "sandbox_deps.h"
#include "sandbox_job.h"
#include "sandbox_result.h"
#include "sandbox_runner.h"

static int locate(const char *src, char **toml, size_t *line, char **err)
{
	*toml = NULL;
	*err = NULL;
	return pep723_locate(src, strlen(src), toml, line, err);
}

static void test_locates_the_block(void **state)
{
	static const struct { const char *src, *toml; size_t line; } cases[] = {
		{ "# /// script\n# dependencies = [\"a\"]\n# ///\nimport a\n",
		  "dependencies = [\"a\"]\n", 1 },
		/* "#" alone is an empty line of the content; CRLF is fine. */
		{ "#!/usr/bin/env python3\r\n# /// script\r\n# x = 1\r\n#\r\n# y = 2\r\n# ///\r\n",
		  "x = 1\n\ny = 2\n", 2 },
		/* The block ends at the last "# ///" of the comment run. */
		{ "# /// script\n# s = '''\n# ///\n# '''\n# ///\nprint(1)\n",
		  "s = '''\n///\n'''\n", 1 },
		/* No line break at the end of the file. */
		{ "x = 1\n# /// script\n# a = 1\n# ///", "a = 1\n", 2 },
		/* Another type's block before it is skipped. */
		{ "# /// pyproject\n# b = 2\n# ///\n\n# /// script\n# c = 3\n# ///\n", "c = 3\n", 5 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *toml, *err;
		size_t line = 0;
		int r = locate(cases[i].src, &toml, &line, &err);
		if (r != 0)
			fail_msg("case %zu: %d %s", i, r, err ? err : "");
		assert_string_equal(toml, cases[i].toml);
		assert_int_equal(line, cases[i].line);
		free(toml);
	}
}

static void test_no_block(void **state)
{
	static const char *const srcs[] = {
		"print(1)\n",
		"#/// script\n# a = 1\n# ///\n",    /* no space after the hash */
		"# /// script extra\n# a=1\n# ///\n", /* a type is one word */
		"  # /// script\n# a = 1\n# ///\n",   /* not at the start of the line */
		"# /// other\n# a = 1\n",             /* another type, unclosed: not ours */
		"",
	};
	for (size_t i = 0; i < sizeof(srcs) / sizeof(srcs[0]); i++) {
		char *toml, *err;
		size_t line;
		if (locate(srcs[i], &toml, &line, &err) != -ENOENT)
			fail_msg("case %zu found a block", i);
	}
}

static void test_malformed(void **state)
{
	char *toml, *err;
	size_t line;

	assert_int_equal(locate("# /// script\n# a = 1\nprint(1)\n", &toml, &line, &err), -EINVAL);
	assert_non_null(strstr(err, "no closing"));
	free(err);
	assert_int_equal(locate("# /// script\n# a = 1\n# ///\n\n# /// script\n# b = 1\n# ///\n",
				&toml, &line, &err), -EINVAL);
	assert_non_null(strstr(err, "line 5"));
	assert_non_null(strstr(err, "only one"));
	free(err);
}

static void test_dependencies(void **state)
{
	json_t *t = json_loads("{\"dependencies\": [\"requests>=2\", \"rich\"], "
			       "\"requires-python\": \">=3.11\"}", 0, NULL);
	char **deps, *err = NULL;
	size_t n;

	assert_int_equal(pep723_dependencies(t, &deps, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(deps[0], "requests>=2");
	assert_string_equal(deps[1], "rich");
	assert_null(deps[2]);
	pep723_strv_free(deps);
	json_decref(t);

	t = json_loads("{\"requires-python\": \">=3.11\"}", 0, NULL);
	assert_int_equal(pep723_dependencies(t, &deps, &n, &err), 0);
	assert_int_equal(n, 0);
	json_decref(t);

	/* What pip would take for an option, or what is not a list of strings. */
	static const char *const bad[] = {
		"{\"dependencies\": [\"--index-url=http://elsewhere\"]}",
		"{\"dependencies\": [\"-rrequirements.txt\"]}",
		"{\"dependencies\": [\"a\\nb\"]}",
		"{\"dependencies\": [\"\"]}",
		"{\"dependencies\": [1]}",
		"{\"dependencies\": \"requests\"}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = json_loads(bad[i], 0, NULL);
		assert_non_null(t);
		if (pep723_dependencies(t, &deps, &n, &err) != -EINVAL)
			fail_msg("accepted %s", bad[i]);
		assert_non_null(strstr(err, "dependenc"));
		free(err);
		err = NULL;
		json_decref(t);
	}
}

/* A block that is not a table, and one with more dependencies than are
 * installed: refused with what is wrong. */
static void test_dependencies_refused_whole(void **state)
{
	char **deps = (char **)1, *err = NULL;
	size_t n = 1;
	json_t *t = json_loads("[\"requests\"]", 0, NULL);

	assert_int_equal(pep723_dependencies(t, &deps, &n, &err), -EINVAL);
	assert_null(deps);
	assert_int_equal(n, 0);
	assert_string_equal(err, "the PEP 723 block is not a TOML table");
	free(err);
	json_decref(t);

	json_t *a = json_array();
	for (int i = 0; i <= PEP723_MAX_DEPENDENCIES; i++)
		json_array_append_new(a, json_sprintf("pkg%d", i));
	t = json_pack("{s:o}", "dependencies", a);
	assert_int_equal(pep723_dependencies(t, &deps, &n, &err), -EINVAL);
	assert_null(deps);
	assert_string_equal(err, "the PEP 723 block lists 65 dependencies; at most 64 are installed");
	free(err);
	json_decref(t);
}

/* The spec the bootstrap reads: pip trusts a plain-HTTP index's host
 * (with its port, without credentials), never an HTTPS one's. */
static void test_deps_spec_trusted_host(void **state)
{
	static const char *const deps[] = { "requests>=2" };
	const struct sandbox_job job = { .dependencies = deps, .n_dependencies = 1 };
	struct sandbox_pip pip = { .image = "mai-sandbox-pip:latest", .install_timeout_ms = 120000 };
	static const struct { const char *url, *trusted; } cases[] = {
		{ "http://user:secret@index.local:8080/simple", "\"trusted_host\":\"index.local:8080\"" },
		{ "http://10.0.0.5/simple?x#y", "\"trusted_host\":\"10.0.0.5\"" },
		{ "https://pypi.org/simple", "\"trusted_host\":null" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pip.index_url = cases[i].url;
		char *spec = sandbox_deps_spec(&pip, &job);
		if (!strstr(spec, cases[i].trusted) || !strstr(spec, "\"dependencies\":[\"requests>=2\"]"))
			fail_msg("%s: %s", cases[i].url, spec);
		free(spec);
	}
}

/* The installer's report taken off stdout; none at all from a run that
 * exited is a failure that names the likely cause (a stdout cap too
 * small), and a run killed before pip was done keeps its verdict's
 * message. */
static void test_deps_collect_without_a_report(void **state)
{
	char out[] = "hello\n";
	struct sandbox_result r = { .verdict = SANDBOX_VERDICT_EXITED };

	r.out.data = out;
	r.out.len = r.out.total = strlen(out);
	sandbox_deps_collect(&r);
	assert_non_null(r.dependencies);
	assert_false(json_is_true(json_object_get(r.dependencies, "ok")));
	assert_non_null(strstr(r.message, "installing the script's PEP 723 dependencies failed: "
					  "the dependency installer gave no report (is stdout_max in "
					  "config/sandbox.yaml too small for it?)"));
	assert_string_equal(r.out.data, "hello\n");
	json_decref(r.dependencies);
	free(r.message);

	struct sandbox_result killed = { .verdict = SANDBOX_VERDICT_TIMEOUT };
	killed.out.data = out;
	killed.out.len = strlen(out);
	sandbox_deps_collect(&killed);
	assert_null(killed.dependencies);
	assert_null(killed.message);
}

/* Reading a block without the pip image: refused with the build step,
 * no container started (the runner is not called). */
static int no_run(void *ctx, const struct sandbox_job *job, const struct sandbox_run_mode *mode,
		  struct sandbox_result *out)
{
	fail_msg("a container was started");
	return -1;
}

static void test_parse_toml_without_the_image(void **state)
{
	const struct sandbox_runner runner = { no_run, NULL };
	const struct sandbox_pip pip = { .image = "mai-sandbox-pip:latest" };
	json_t *t = (void *)1;
	char *err = NULL;

	assert_int_equal(sandbox_deps_parse_toml(&runner, &pip, "x = 1\n", 6, &t, &err), -ENOENT);
	assert_null(t);
	assert_string_equal(err, "the image mai-sandbox-pip:latest that reads it (with tomllib) is "
				 "missing from the engine: build it with packaging/sandbox-image/"
				 "build.sh --variant pip, or set network.image in config/sandbox.yaml");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locates_the_block),
		cmocka_unit_test(test_no_block),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_dependencies_refused_whole),
		cmocka_unit_test(test_deps_spec_trusted_host),
		cmocka_unit_test(test_deps_collect_without_a_report),
		cmocka_unit_test(test_parse_toml_without_the_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
