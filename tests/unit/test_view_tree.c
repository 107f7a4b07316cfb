/* The path table of the maiaudit view: every path a user can type maps to
 * one node, and everything else (aliases, traversal, hostile names) to ENOENT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>

#include "view_tree.h"

struct parse_case {
	const char *path;
	int ret;
	enum view_node node;
	uint64_t seq;
	const char *run;
};

static const struct parse_case parse_cases[] = {
	{ "/", 0, VIEW_NODE_ROOT, 0, NULL },
	{ "/verify", 0, VIEW_NODE_VERIFY, 0, NULL },
	{ "/verify.json", 0, VIEW_NODE_VERIFY_JSON, 0, NULL },
	{ "/head", 0, VIEW_NODE_HEAD, 0, NULL },
	{ "/checkpoint", 0, VIEW_NODE_CHECKPOINT, 0, NULL },
	{ "/pubkey", 0, VIEW_NODE_PUBKEY, 0, NULL },
	{ "/status.json", 0, VIEW_NODE_STATUS, 0, NULL },
	{ "/entries", 0, VIEW_NODE_ENTRIES_DIR, 0, NULL },
	{ "/entries/000000000000.json", 0, VIEW_NODE_ENTRY, 0, NULL },
	{ "/entries/000000000042.json", 0, VIEW_NODE_ENTRY, 42, NULL },
	{ "/entries/999999999999.json", 0, VIEW_NODE_ENTRY, 999999999999ULL, NULL },
	{ "/runs", 0, VIEW_NODE_RUNS_DIR, 0, NULL },
	{ "/runs/foo", 0, VIEW_NODE_RUN_DIR, 0, "foo" },
	{ "/runs/foo/result.json", 0, VIEW_NODE_RUN_RESULT, 0, "foo" },
	{ "/runs/foo/audit", 0, VIEW_NODE_RUN_AUDIT, 0, "foo" },
	{ "/runs/a b é/audit", 0, VIEW_NODE_RUN_AUDIT, 0, "a b é" },
	{ "/runs/a..b", 0, VIEW_NODE_RUN_DIR, 0, "a..b" },
	/* Not part of the view. */
	{ "", -ENOENT, 0, 0, NULL },
	{ "verify", -ENOENT, 0, 0, NULL },
	{ "/verify/x", -ENOENT, 0, 0, NULL },
	{ "/Verify", -ENOENT, 0, 0, NULL },
	{ "/verifyx", -ENOENT, 0, 0, NULL },
	{ "/nothing", -ENOENT, 0, 0, NULL },
	/* One canonical name per record: no short, long or signed aliases. */
	{ "/entries/42.json", -ENOENT, 0, 0, NULL },
	{ "/entries/0000000000042.json", -ENOENT, 0, 0, NULL },
	{ "/entries/00000000004a.json", -ENOENT, 0, 0, NULL },
	{ "/entries/-00000000042.json", -ENOENT, 0, 0, NULL },
	{ "/entries/000000000042.jso", -ENOENT, 0, 0, NULL },
	{ "/entries/000000000042", -ENOENT, 0, 0, NULL },
	{ "/entries/000000000042.json/x", -ENOENT, 0, 0, NULL },
	/* Run names that are not safe to show. */
	{ "/runs/..", -ENOENT, 0, 0, NULL },
	{ "/runs/.", -ENOENT, 0, 0, NULL },
	{ "/runs/.hidden", -ENOENT, 0, 0, NULL },
	{ "/runs/a\nb", -ENOENT, 0, 0, NULL },
	{ "/runs/a\tb", -ENOENT, 0, 0, NULL },
	{ "/runs/\xff\xfe", -ENOENT, 0, 0, NULL },
	{ "/runs/\xc0\xaf", -ENOENT, 0, 0, NULL },     /* overlong '/' */
	{ "/runs/\xed\xa0\x80", -ENOENT, 0, 0, NULL }, /* surrogate */
	{ "/runs/ab\xe2\x82", -ENOENT, 0, 0, NULL },    /* a sequence cut short at the end */
	{ "/runs/x\xe2(\xa1", -ENOENT, 0, 0, NULL },    /* a sequence broken by an ASCII byte */
	/* ... and what follows the broken sequence is valid on its own: the lead
	 * byte alone must still make the name invalid. */
	{ "/runs/x\xe2(y", -ENOENT, 0, 0, NULL },
	{ "/runs/\xc3" "A", -ENOENT, 0, 0, NULL },
	{ "/runs/a\xf0\x9f" "bc", -ENOENT, 0, 0, NULL },
	{ "/runs/\xf4\x90\x80\x80", -ENOENT, 0, 0, NULL }, /* past U+10FFFF */
	{ "/runs/foo/other", -ENOENT, 0, 0, NULL },
	{ "/runs/foo/result.json/x", -ENOENT, 0, 0, NULL },
	{ "/runs/foo/../../etc", -ENOENT, 0, 0, NULL },
};

static void test_parse_table(void **state)
{
	for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct view_path p;
		int r = view_path_parse(c->path, &p);
		if (r != c->ret)
			fail_msg("path \"%s\": returned %d, expected %d", c->path, r, c->ret);
		if (r < 0)
			continue;
		if (p.node != c->node)
			fail_msg("path \"%s\": node %s, expected %s", c->path,
				 view_node_to_string(p.node), view_node_to_string(c->node));
		assert_true(p.seq == c->seq);
		if (c->run) {
			assert_int_equal(p.run_name_len, strlen(c->run));
			assert_memory_equal(p.run_name, c->run, p.run_name_len);
		} else {
			assert_null(p.run_name);
		}
	}
}

static void test_long_run_name(void **state)
{
	char path[VIEW_RUN_NAME_MAX + 16];
	strcpy(path, "/runs/");
	memset(path + 6, 'a', VIEW_RUN_NAME_MAX);
	path[6 + VIEW_RUN_NAME_MAX] = '\0';
	struct view_path p;
	assert_int_equal(view_path_parse(path, &p), 0);
	assert_int_equal(p.run_name_len, VIEW_RUN_NAME_MAX);
	strcat(path, "a");
	assert_int_equal(view_path_parse(path, &p), -ENOENT);
}

static void test_entry_names_round_trip(void **state)
{
	const uint64_t seqs[] = { 0, 1, 9, 10, 99999, 100000, 999999999999ULL };
	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		char name[VIEW_ENTRY_NAME_SIZE], path[64];
		view_entry_name(seqs[i], name);
		assert_int_equal(strlen(name), 17);
		snprintf(path, sizeof(path), "/entries/%s", name);
		struct view_path p;
		assert_int_equal(view_path_parse(path, &p), 0);
		assert_int_equal(p.node, VIEW_NODE_ENTRY);
		assert_true(p.seq == seqs[i]);
	}
	char name[VIEW_ENTRY_NAME_SIZE];
	view_entry_name(42, name);
	assert_string_equal(name, "000000000042.json");
}

static void test_root_names_parse(void **state)
{
	size_t n = 0;
	for (; view_root_names[n]; n++) {
		char path[64];
		struct view_path p;
		snprintf(path, sizeof(path), "/%s", view_root_names[n]);
		assert_int_equal(view_path_parse(path, &p), 0);
		assert_string_equal(view_node_to_string(p.node), view_root_names[n]);
	}
	assert_int_equal(n, VIEW_ROOT_COUNT);
}

/* The node names the view's log messages use, one per node. */
static void test_node_names(void **state)
{
	static const struct { enum view_node node; const char *name; } names[] = {
		{ VIEW_NODE_ROOT, "root" }, { VIEW_NODE_VERIFY, "verify" },
		{ VIEW_NODE_VERIFY_JSON, "verify.json" }, { VIEW_NODE_HEAD, "head" },
		{ VIEW_NODE_CHECKPOINT, "checkpoint" }, { VIEW_NODE_PUBKEY, "pubkey" },
		{ VIEW_NODE_STATUS, "status.json" }, { VIEW_NODE_METRICS, "metrics" },
		{ VIEW_NODE_ENTRIES_DIR, "entries" }, { VIEW_NODE_ENTRY, "entry" },
		{ VIEW_NODE_RUNS_DIR, "runs" }, { VIEW_NODE_RUN_DIR, "run" },
		{ VIEW_NODE_RUN_RESULT, "result.json" }, { VIEW_NODE_RUN_AUDIT, "audit" },
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_string_equal(view_node_to_string(names[i].node), names[i].name);
	assert_string_equal(view_node_to_string((enum view_node)999), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_table),
		cmocka_unit_test(test_long_run_name),
		cmocka_unit_test(test_entry_names_round_trip),
		cmocka_unit_test(test_root_names_parse),
		cmocka_unit_test(test_node_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
