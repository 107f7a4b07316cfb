#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "yamltree.h"

static int parse(const char *text, struct yt_node **root, char **err)
{
	return yt_parse_buffer("t.yaml", text, strlen(text), root, err);
}

static void test_tree_shape_and_positions(void **state)
{
	struct yt_node *root = NULL;
	char *err = NULL;
	(void)state;

	assert_int_equal(parse("# c\na: 1\nb:\n  - x\n  - \"y\"\nc: {d: e}\n", &root, &err), 0);
	assert_non_null(root);
	assert_int_equal(root->kind, YT_MAPPING);
	assert_int_equal(root->n_items, 6);
	const struct yt_node *a = yt_map_get(root, "a");
	assert_string_equal(a->value, "1");
	assert_int_equal(a->quoted, 0);
	assert_int_equal(a->line, 2);
	assert_int_equal(a->col, 4);
	const struct yt_node *b = yt_map_get(root, "b");
	assert_int_equal(b->kind, YT_SEQUENCE);
	assert_int_equal(b->n_items, 2);
	assert_int_equal(b->items[1]->quoted, 1);
	assert_int_equal(b->items[1]->line, 5);
	assert_int_equal(b->items[1]->col, 5);
	assert_string_equal(yt_map_get(yt_map_get(root, "c"), "d")->value, "e");
	assert_null(yt_map_get(root, "zz"));
	assert_null(yt_map_get(a, "a"));
	yt_free(root);
}

static void test_empty_document_is_null(void **state)
{
	struct yt_node *root = (struct yt_node *)state;
	char *err = NULL;

	assert_int_equal(parse("# only a comment\n\n", &root, &err), 0);
	assert_null(root);
	assert_int_equal(parse("", &root, &err), 0);
	assert_null(root);
}

static const struct {
	const char *text;
	const char *message;
} bad_cases[] = {
	{ "a: 1\nb: 2\na: 3\n",
	  "t.yaml:3:1: duplicate key 'a' (first at line 1); expected each key once per mapping" },
	{ "a: &x 1\n",
	  "t.yaml:1:4: anchor '&x' is not supported; expected the value written out without '&'" },
	{ "a: 1\nb: *x\n",
	  "t.yaml:2:4: alias '*x' is not supported; expected the value written out in full" },
	{ "a: !!str 1\n",
	  "t.yaml:1:4: tag 'tag:yaml.org,2002:str' is not supported; expected a value without a '!' tag" },
	{ "a: 1\n---\nb: 2\n",
	  "t.yaml:2:1: a second YAML document starts here; expected one document per file (remove the '---' line)" },
	{ "? [a]\n: 1\n",
	  "t.yaml:1:3: a mapping key is a list; expected a plain name before ':'" },
	{ "a: \"x\\0y\"\n",
	  "t.yaml:1:4: value contains a NUL character; expected text without \\0" },
	{ "a: 1\n b: 2\n",
	  "t.yaml:2:3: malformed YAML: mapping values are not allowed in this context; expected consistent indentation, 'key: value' pairs and balanced quotes and brackets" },
	{ "a: [1, 2\n",
	  "t.yaml:2:1: malformed YAML: did not find expected ',' or ']' (while parsing a flow sequence at line 1); expected consistent indentation, 'key: value' pairs and balanced quotes and brackets" },
	{ "a: \xff\n",
	  "t.yaml:1:4: malformed YAML: invalid leading UTF-8 octet; expected UTF-8 text" },
	{ "a: 1\nbb: \xff\n",
	  "t.yaml:2:5: malformed YAML: invalid leading UTF-8 octet; expected UTF-8 text" },
};

static void test_errors_name_position_and_fix(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		struct yt_node *root = NULL;
		char *err = NULL;
		assert_int_equal(parse(bad_cases[i].text, &root, &err), -EINVAL);
		assert_null(root);
		assert_non_null(err);
		if (strcmp(err, bad_cases[i].message) != 0)
			fail_msg("case %zu: got '%s'", i, err);
		free(err);
	}
}

static void test_depth_limit(void **state)
{
	char text[YT_MAX_DEPTH * 2 + 8];
	struct yt_node *root = NULL;
	char *err = NULL;
	size_t n = 0;
	(void)state;

	for (int i = 0; i < YT_MAX_DEPTH + 2; i++)
		text[n++] = '[';
	for (int i = 0; i < YT_MAX_DEPTH + 2; i++)
		text[n++] = ']';
	text[n] = '\0';
	assert_int_equal(parse(text, &root, &err), -EINVAL);
	assert_non_null(strstr(err, "nesting deeper than 64 levels"));
	free(err);
}

static void test_missing_file(void **state)
{
	struct yt_node *root = NULL;
	char *err = NULL;
	(void)state;

	assert_int_equal(yt_parse_file("/nonexistent/x.yaml", &root, &err), -ENOENT);
	assert_string_equal(err, "/nonexistent/x.yaml: cannot read: No such file or directory; "
			    "expected a readable YAML file");
	free(err);
}

static void test_file_too_large(void **state)
{
	char path[] = "/tmp/mai-yaml.XXXXXX";
	int fd = mkstemp(path);
	struct yt_node *root = NULL;
	char *err = NULL;
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, YT_MAX_FILE_SIZE + 1), 0);
	close(fd);
	assert_int_equal(yt_parse_file(path, &root, &err), -EFBIG);
	unlink(path);
	assert_null(root);
	assert_non_null(strstr(err, ": file is larger than 4194304 bytes; expected a small YAML file"));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_shape_and_positions),
		cmocka_unit_test(test_empty_document_is_null),
		cmocka_unit_test(test_errors_name_position_and_fix),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_file_too_large),
		cmocka_unit_test(test_missing_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
