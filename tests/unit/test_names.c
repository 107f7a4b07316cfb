#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "names.h"

static const struct {
	const char *name;
	enum names_kind kind;
	enum names_reason reason;
} cases[] = {
	{ "foo.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "a.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "with space.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "new\nline.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "-rf.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "caf\xc3\xa9.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "\xf0\x9f\x90\x8d.py", NAMES_SCRIPT, NAMES_REASON_NONE },
	{ "..py", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ "bad\xff.py", NAMES_BAD_NAME, NAMES_REASON_NONE },
	{ "overlong\xc0\xaf.py", NAMES_BAD_NAME, NAMES_REASON_NONE },
	{ "surrogate\xed\xa0\x80.py", NAMES_BAD_NAME, NAMES_REASON_NONE },
	{ "foo.approve", NAMES_APPROVE, NAMES_REASON_NONE },
	{ "foo.override", NAMES_OVERRIDE, NAMES_REASON_NONE },
	{ "foo.rerun", NAMES_RERUN, NAMES_REASON_NONE },
	{ ".rerun", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ ".approve", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ "", NAMES_IGNORED, NAMES_REASON_EMPTY },
	{ ".", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ "..", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ ".foo.py", NAMES_IGNORED, NAMES_REASON_HIDDEN },
	{ ".foo.py.swp", NAMES_IGNORED, NAMES_REASON_VIM_SWAP },
	{ ".foo.py.swx", NAMES_IGNORED, NAMES_REASON_VIM_SWAP },
	{ "foo.py.swo", NAMES_IGNORED, NAMES_REASON_VIM_SWAP },
	{ "4913", NAMES_IGNORED, NAMES_REASON_VIM_PROBE },
	{ "foo.py~", NAMES_IGNORED, NAMES_REASON_BACKUP },
	{ ".#foo.py", NAMES_IGNORED, NAMES_REASON_EMACS_LOCK },
	{ "#foo.py#", NAMES_IGNORED, NAMES_REASON_EMACS_AUTOSAVE },
	{ "foo.result.json", NAMES_IGNORED, NAMES_REASON_SIDECAR },
	{ "foo.audit", NAMES_IGNORED, NAMES_REASON_SIDECAR },
	{ "foo.result.json.tmp.4242", NAMES_IGNORED, NAMES_REASON_TEMPORARY },
	{ "foo.txt", NAMES_IGNORED, NAMES_REASON_NOT_PYTHON },
	{ "foo.PY", NAMES_IGNORED, NAMES_REASON_NOT_PYTHON },
	{ "foo.pyc", NAMES_IGNORED, NAMES_REASON_NOT_PYTHON },
	{ "foo.py.bak", NAMES_IGNORED, NAMES_REASON_NOT_PYTHON },
	{ "py", NAMES_IGNORED, NAMES_REASON_NOT_PYTHON },
};

static void test_classify_table(void **state)
{
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		enum names_reason reason = (enum names_reason)-1;
		enum names_kind kind = names_classify(cases[i].name, &reason);
		if (kind != cases[i].kind || reason != cases[i].reason)
			fail_msg("case %zu: got %s/%s, want %s/%s", i, names_kind_to_string(kind),
				 names_reason_to_string(reason),
				 names_kind_to_string(cases[i].kind),
				 names_reason_to_string(cases[i].reason));
	}
	assert_int_equal(names_classify("x.py", NULL), NAMES_SCRIPT);
}

static void test_reason_strings(void **state)
{
	assert_string_equal(names_reason_to_string(NAMES_REASON_VIM_PROBE), "vim write probe (4913)");
	assert_string_equal(names_reason_to_string(NAMES_REASON_SIDECAR), "the agent's own sidecar");
	assert_string_equal(names_reason_to_string(NAMES_REASON_NOT_PYTHON), "not a .py file");
	assert_string_equal(names_kind_to_string(NAMES_BAD_NAME), "bad_name");
}

static void test_printable(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain.py", "plain.py" },
		{ "new\nline.py", "new\\nline.py" },
		{ "tab\there", "tab\\there" },
		{ "back\\slash", "back\\\\slash" },
		{ "bell\a", "bell\\x07" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },
		{ "bad\xff.py", "bad\\xff.py" },
		{ "cut\xc3", "cut\\xc3" },
		{ "over\xc0\xaf", "over\\xc0\\xaf" },
		{ "cr\r.py", "cr\\r.py" },
		/* Each length of UTF-8 sequence is copied whole, then what
		 * follows it: names in any language. */
		{ "a\xc3\xa9" "b.py", "a\xc3\xa9" "b.py" },
		{ "a\xe2\x82\xac" "b.py", "a\xe2\x82\xac" "b.py" },
		{ "a\xf0\x9f\x98\x80" "b.py", "a\xf0\x9f\x98\x80" "b.py" },
		{ "\xe6\x97\xa5\xe6\x9c\xac" ".py", "\xe6\x97\xa5\xe6\x9c\xac" ".py" },
		/* A sequence broken in its middle: the lead byte escaped, the
		 * rest taken again from the next byte. */
		{ "x\xe2(\xa1.py", "x\\xe2(\\xa1.py" },
		{ "x\xf0\x9f\x98.py", "x\\xf0\\x9f\\x98.py" },
		{ "x\xf8\x88\x80\x80\x80", "x\\xf8\\x88\\x80\\x80\\x80" },
		{ "del\x7f", "del\\x7f" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *p = names_printable(t[i].in);
		assert_string_equal(p, t[i].out);
		assert_true(names_is_utf8(p));
		free(p);
	}
	/* A character cut at the end of the name is not UTF-8. */
	assert_false(names_is_utf8("cut\xc3"));
	assert_false(names_is_utf8("cut\xe2\x82"));
	assert_true(names_is_utf8("euro\xe2\x82\xac"));
}

static void test_sidecar_and_answer_names(void **state)
{
	static const struct {
		const char *script, *suffix, *want;
	} t[] = {
		{ "foo.py", ".result.json", "foo.result.json" },
		{ "foo.py", ".audit", "foo.audit" },
		{ "a.b.py", ".approve", "a.b.approve" },
		{ "sub/x.py", ".override", "sub/x.override" },
		{ "noext", ".audit", "noext.audit" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char *s = names_sidecar(t[i].script, t[i].suffix);
		assert_string_equal(s, t[i].want);
		free(s);
	}
	char *s = names_script_for_answer("foo.approve");
	assert_string_equal(s, "foo.py");
	free(s);
	s = names_script_for_answer("a.b.override");
	assert_string_equal(s, "a.b.py");
	free(s);
	s = names_script_for_answer("sub/foo.rerun");
	assert_string_equal(s, "sub/foo.py");
	free(s);
	assert_null(names_script_for_answer("foo.py"));
	assert_null(names_script_for_answer(".approve"));
}

/* 246 bytes of name fit every sidecar; 247 do not, and are answered
 * under "<first 200 bytes>~<16 hex>", cut at a character boundary. */
static void test_long_names_get_a_short_sidecar(void **state)
{
	char name[300];
	memset(name, 'a', 243);
	strcpy(name + 243, ".py");
	assert_true(names_sidecar_fits(name));
	char *s = names_result_sidecar(name, ".result.json");
	assert_int_equal(strlen(s), 255);
	free(s);

	memset(name, 'a', 244);
	strcpy(name + 244, ".py");
	assert_false(names_sidecar_fits(name));
	s = names_result_sidecar(name, ".result.json");
	assert_int_equal(strlen(s), 1 + NAMES_SHORT_PREFIX + 1 + 16 + 12);
	/* Hidden: never the sidecar of a script named like its stem. */
	assert_int_equal(s[0], '.');
	assert_int_equal(s[1 + NAMES_SHORT_PREFIX], '~');
	assert_int_equal(strspn(s + 1, "a"), NAMES_SHORT_PREFIX);
	char *again = names_result_sidecar(name, ".audit");
	assert_int_equal(strncmp(s, again, 1 + NAMES_SHORT_PREFIX + 17), 0); /* one stem */
	free(again);
	free(s);

	/* A two-byte character across the cut is not split; the directory stays. */
	char sub[320] = "d/";
	memset(sub + 2, 'b', 199);
	memcpy(sub + 201, "\xc3\xa9", 2); /* bytes 199 and 200 of the last part */
	memset(sub + 203, 'c', 60);
	strcpy(sub + 263, ".py");
	assert_false(names_sidecar_fits(sub));
	s = names_result_sidecar(sub, ".result.json");
	assert_int_equal(strncmp(s, "d/.", 3), 0);
	assert_int_equal(s[3 + 199], '~');
	assert_true(names_is_utf8(s));
	free(s);
	/* Different long names, different short names. */
	name[10] = 'z';
	s = names_result_sidecar(name, ".result.json");
	name[10] = 'a';
	again = names_result_sidecar(name, ".result.json");
	assert_string_not_equal(s, again);
	free(s);
	free(again);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_table),
		cmocka_unit_test(test_reason_strings),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_sidecar_and_answer_names),
		cmocka_unit_test(test_long_names_get_a_short_sidecar),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
