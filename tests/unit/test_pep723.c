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

#include "pep723.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_locates_the_block),
		cmocka_unit_test(test_no_block),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_dependencies_refused_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
