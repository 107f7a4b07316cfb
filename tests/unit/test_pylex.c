/* The lexer: tokens and positions, string prefixes and f-strings, line
 * joining, encodings, rejection offsets, NFKC of identifiers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pylex.h"
#include "pynfkc.h"

/* All tokens of src as "KIND:text@line:col" joined by spaces, statements
 * separated by " | ". */
static char *lex_all(const char *src, size_t len)
{
	struct pylex lx;
	struct pytok_vec v = { 0 };
	const char *reason;
	size_t off;
	size_t cap = 4096, o = 0;
	char *out = xmalloc(cap);
	static const char kinds[] = "NDSOFE";

	out[0] = '\0';
	assert_int_equal(pylex_open(&lx, (const uint8_t *)src, len, &reason, &off), 0);
	while (pylex_statement(&lx, &v)) {
		if (o)
			o += (size_t)snprintf(out + o, cap - o, " |");
		for (size_t i = 0; i < v.n; i++) {
			const struct pytok *t = &v.t[i];
			o += (size_t)snprintf(out + o, cap - o, "%s%c:%.*s@%u:%u", o ? " " : "",
					      kinds[t->kind], (int)t->n, t->s, t->line, t->col);
			assert_true(o < cap);
		}
	}
	pytok_vec_free(&v);
	pylex_close(&lx);
	return out;
}

static void test_tokens_positions_and_joining(void **state)
{
	const char src[] = "import os\nx = (1 +\n     2) # c\ny = a.b \\\n  (3)\n\n  # only a comment\nz = 'é'; w = x\n";
	char *s = lex_all(src, sizeof(src) - 1);
	assert_string_equal(s,
		"N:import@1:1 N:os@1:8 | N:x@2:1 O:=@2:3 O:(@2:5 D:1@2:6 O:+@2:8 D:2@3:6 O:)@3:7 |"
		" N:y@4:1 O:=@4:3 N:a@4:5 O:.@4:6 N:b@4:7 O:(@5:3 D:3@5:4 O:)@5:5 |"
		" N:z@8:1 O:=@8:3 S:é@8:5 O:;@8:8 N:w@8:10 O:=@8:12 N:x@8:14");
	free(s);
	/* an exponent's sign is the number's; a hex number has no exponent */
	const char num[] = "n = 1e+5 - 2.5E-3 + 0x1e-1\n";
	s = lex_all(num, sizeof(num) - 1);
	assert_string_equal(s, "N:n@1:1 O:=@1:3 D:1e+5@1:5 O:-@1:10 D:2.5E-3@1:12 O:+@1:19 D:0x1e@1:21"
			       " O:-@1:25 D:1@1:26");
	free(s);
}

/* Line and column of byte offset off, counted the plain way: '\n', '\r\n'
 * and a lone '\r' end a line, every other code point is one column. */
static void naive_position(const char *src, size_t off, unsigned *line, unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		unsigned char c = (unsigned char)src[i];
		if (c == '\n' || (c == '\r' && src[i + 1] != '\n'))
			(*line)++, *col = 1;
		else if ((c & 0xC0) != 0x80 && c != '\r')
			(*col)++;
	}
}

/* The lexer's position walker skips runs of ASCII a word at a time and
 * steps over names and operators without looking: every token that points
 * into the source must still have the position of its first byte. */
static void test_positions_match_a_plain_count(void **state)
{
	static const char *const srcs[] = {
		"# a comment that is long enough to span several words \xc3\xa9 done\r\n"
		"abcdefghijklmnop = 'xxxxxxxxxxxxxxxxxxxxx\\\r\nyy' ; k\rm\t= \"\xc3\xa9\" + zz\n"
		"\tif   x:\x0b y  =   \xe2\x80\x83 +  caf\xc3\xa9 +long_name_without_spaces_at_all\n",
		"'''doc\r\nstring \xf0\x9f\x98\x80 over\rlines''' ; a=1\r\n\r\n  \f b  =  2 # \xc3\xa9\xc3\xa9\n"
		"f'{x}{y!r}' + b\\\n  .c ** 2 >>= 3 -> ...\n",
	};

	for (size_t k = 0; k < ARRAY_SIZE(srcs); k++) {
		const char *src = srcs[k];
		struct pylex lx;
		struct pytok_vec v = { 0 };
		const char *reason;
		size_t off, seen = 0;
		assert_int_equal(pylex_open(&lx, (const uint8_t *)src, strlen(src), &reason, &off), 0);
		while (pylex_statement(&lx, &v)) {
			for (size_t i = 0; i < v.n; i++) {
				const struct pytok *t = &v.t[i];
				unsigned line, col;
				if (t->owned || t->kind == PYT_STRING || t->kind == PYT_FSTRING_END ||
				    t->s < src || t->s >= src + strlen(src))
					continue;
				naive_position(src, (size_t)(t->s - src), &line, &col);
				if (t->line != line || t->col != col)
					fail_msg("source %zu, token '%.*s': %u:%u, expected %u:%u", k,
						 (int)t->n, t->s, t->line, t->col, line, col);
				seen++;
			}
		}
		assert_true(seen > 10);
		pytok_vec_free(&v);
		pylex_close(&lx);
	}
}

/* Operators of three bytes, of two, and the bytes that stay alone: a
 * doubled '*', '/', '<' or '>' takes a '=' after it, '...' is one token. */
static void test_operators_of_one_two_and_three_bytes(void **state)
{
	const char src[] = "a **= b ** c // d //= e >> f >>= g << h <<= i\n"
			   "j = k[...] -> l != m == n := o @= p ^= q |= r %= s .t\n"
			   "u = v*w/x<y>z+-1\n";
	char *s = lex_all(src, sizeof(src) - 1);
	assert_string_equal(s,
		"N:a@1:1 O:**=@1:3 N:b@1:7 O:**@1:9 N:c@1:12 O://@1:14 N:d@1:17 O://=@1:19 N:e@1:23"
		" O:>>@1:25 N:f@1:28 O:>>=@1:30 N:g@1:34 O:<<@1:36 N:h@1:39 O:<<=@1:41 N:i@1:45 |"
		" N:j@2:1 O:=@2:3 N:k@2:5 O:[@2:6 O:...@2:7 O:]@2:10 O:->@2:12 N:l@2:15 O:!=@2:17"
		" N:m@2:20 O:==@2:22 N:n@2:25 O::=@2:27 N:o@2:30 O:@=@2:32 N:p@2:35 O:^=@2:37"
		" N:q@2:40 O:|=@2:42 N:r@2:45 O:%=@2:47 N:s@2:50 O:.@2:52 N:t@2:53 |"
		" N:u@3:1 O:=@3:3 N:v@3:5 O:*@3:6 N:w@3:7 O:/@3:8 N:x@3:9 O:<@3:10 N:y@3:11"
		" O:>@3:12 N:z@3:13 O:+@3:14 O:-@3:15 D:1@3:16");
	free(s);
}

static void test_string_prefixes_and_escapes(void **state)
{
	const char src[] = "a = rb'\\x41' + Br\"\\n\" + b'\\x6f\\x73' + u'\\u00e9\\N{DASH}' + '''x\ny''' + R'''\\\\'''\n";
	char *s = lex_all(src, sizeof(src) - 1);
	assert_string_equal(s,
		"N:a@1:1 O:=@1:3 S:\\x41@1:5 O:+@1:14 S:\\n@1:16 O:+@1:23 S:os@1:25 O:+@1:37"
		" S:é\\N{DASH}@1:39 O:+@1:57 S:x\ny@1:59 O:+@2:6 S:\\\\@2:8");
	free(s);
}

/* Each string token says how it was written: triple-quoted or not, bytes,
 * raw (pylex.h's flags). */
static void test_string_flags(void **state)
{
	const char src[] = "a = '''x''' + 'y' + rb\"\"\"z\"\"\" + b'w'\n";
	static const unsigned want[] = { PYT_F_TRIPLE, 0, PYT_F_TRIPLE | PYT_F_BYTES | PYT_F_RAW,
					 PYT_F_BYTES };
	struct pylex lx;
	struct pytok_vec v = { 0 };
	const char *reason;
	size_t off, k = 0;

	(void)state;
	assert_int_equal(pylex_open(&lx, (const uint8_t *)src, sizeof(src) - 1, &reason, &off), 0);
	assert_true(pylex_statement(&lx, &v));
	for (size_t i = 0; i < v.n; i++) {
		if (v.t[i].kind != PYT_STRING)
			continue;
		assert_true(k < ARRAY_SIZE(want));
		if (v.t[i].flags != want[k])
			fail_msg("string %zu: flags %#x, expected %#x", k, v.t[i].flags, want[k]);
		k++;
	}
	assert_int_equal(k, ARRAY_SIZE(want));
	pytok_vec_free(&v);
	pylex_close(&lx);
}

static void test_fstring_fields_are_tokens(void **state)
{
	const char src[] = "f'{a!r:>{w}} {{x}} {b(\"}\")}' + rf\"{c}\"\n";
	char *s = lex_all(src, sizeof(src) - 1);
	/* the replacement fields' expressions, nested format fields included,
	 * come out as tokens between F (start) and E (end) */
	assert_string_equal(s,
		"F:f'@1:1 N:a@1:4 O:,@1:5 N:w@1:10 O:,@1:11 N:b@1:21 O:(@1:22 S:}@1:23 O:)@1:26"
		" O:,@1:27 E:@1:28 O:+@1:30 F:rf\"@1:32 N:c@1:36 O:,@1:37 E:@1:38");
	free(s);
	/* after a field's expression: '=' (self-documenting), a conversion, a spec */
	const char ends[] = "f'{x=}{{{y!s}}}{z:{w}}'\n";
	s = lex_all(ends, sizeof(ends) - 1);
	assert_string_equal(s, "F:f'@1:1 N:x@1:4 O:,@1:5 N:y@1:10 O:,@1:11 N:z@1:17 O:,@1:18 N:w@1:20"
			       " O:,@1:21 E:@1:23");
	free(s);
	/* "!=" in a field is an operator, "!r" the conversion */
	const char ne[] = "f'{a != b}{c!r}'\n";
	s = lex_all(ne, sizeof(ne) - 1);
	assert_string_equal(s, "F:f'@1:1 N:a@1:4 O:!=@1:6 N:b@1:9 O:,@1:10 N:c@1:12 O:,@1:13 E:@1:16");
	free(s);
}

static void test_nfkc_identifiers(void **state)
{
	/* fullwidth "exec", a ligature, a mathematical letter; é stays é */
	const char src[] = "\xef\xbd\x85\xef\xbd\x98\xef\xbd\x85\xef\xbd\x83 \xef\xac\x81x \xf0\x9d\x90\x9a caf\xc3\xa9\n";
	char *s = lex_all(src, sizeof(src) - 1);
	assert_string_equal(s, "N:exec@1:1 N:fix@1:6 N:a@1:9 N:café@1:11");
	free(s);
	assert_string_equal(pynfkc_lookup(0xFF45), "e");
	assert_null(pynfkc_lookup(0xE9));
	assert_null(pynfkc_lookup('a'));
}

static void expect_reject(const char *src, size_t len, const char *reason_part, size_t offset)
{
	struct pylex lx;
	const char *reason = NULL;
	size_t off = 0;
	assert_int_equal(pylex_open(&lx, (const uint8_t *)src, len, &reason, &off), -EINVAL);
	assert_non_null(strstr(reason, reason_part));
	assert_int_equal(off, offset);
	pylex_close(&lx);
}

static void test_rejections_with_offsets(void **state)
{
	expect_reject("x = 1\n\0y", 8, "NUL byte", 6);
	expect_reject("x = '\xff'\n", 8, "invalid UTF-8", 5);
	expect_reject("x = '\x80'\n", 8, "invalid UTF-8", 5);          /* a lone continuation byte */
	expect_reject("x = '\xc0\xaf'\n", 9, "invalid UTF-8", 5);        /* overlong */
	expect_reject("x = '\xed\xa0\x80'\n", 10, "invalid UTF-8", 5);   /* surrogate */
	expect_reject("x = '\xe2\x82'", 7, "invalid UTF-8", 5);           /* truncated */
	expect_reject("# coding: ascii\nx = '\xc3\xa9'\n", 24, "outside ASCII", 21);
	expect_reject("# coding: cp1252\nx = '\x81'\n", 24, "undefined in cp1252", 22);
}

static void test_encodings(void **state)
{
	struct pylex lx;
	const char *reason;
	size_t off;
	const char latin1[] = "# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n";
	char *s = lex_all(latin1, sizeof(latin1) - 1);
	assert_string_equal(s, "N:x@2:1 O:=@2:3 S:café@2:5");
	free(s);

	/* the cookie's comment may be indented (PEP 263: [ \t\f]* before '#') */
	const char indented[] = " \t\f# vim: set fileencoding=latin-1 :\nx = 'caf\xe9'\n";
	s = lex_all(indented, sizeof(indented) - 1);
	assert_string_equal(s, "N:x@2:1 O:=@2:3 S:café@2:5");
	free(s);

	/* cp1252's bytes 0x80..0x9F that it defines, each to its character */
	const char cp1252[] = "# coding: cp1252\nx = '\x80\x82\x83\x84\x85\x86\x87\x88\x89\x8a\x8b"
			      "\x8c\x8e\x91\x92\x93\x94\x95\x96\x97\x98\x99\x9a\x9b\x9c\x9e\x9f'\n";
	s = lex_all(cp1252, sizeof(cp1252) - 1);
	assert_string_equal(s, "N:x@2:1 O:=@2:3 S:"
			       "\xe2\x82\xac\xe2\x80\x9a\xc6\x92\xe2\x80\x9e\xe2\x80\xa6\xe2\x80\xa0"
			       "\xe2\x80\xa1\xcb\x86\xe2\x80\xb0\xc5\xa0\xe2\x80\xb9\xc5\x92\xc5\xbd"
			       "\xe2\x80\x98\xe2\x80\x99\xe2\x80\x9c\xe2\x80\x9d\xe2\x80\xa2\xe2\x80\x93"
			       "\xe2\x80\x94\xcb\x9c\xe2\x84\xa2\xc5\xa1\xe2\x80\xba\xc5\x93\xc5\xbe"
			       "\xc5\xb8@2:5");
	free(s);
	/* from 0xA0 on, cp1252 is latin-1: the no-break space, é and ÿ are
	 * themselves (not looked up in the 0x80..0x9F table) */
	const char cp1252_high_half[] = "# coding: cp1252\nx = '\xa0\xe9\xff'\n";
	s = lex_all(cp1252_high_half, sizeof(cp1252_high_half) - 1);
	assert_string_equal(s, "N:x@2:1 O:=@2:3 S:\xc2\xa0\xc3\xa9\xc3\xbf@2:5");
	free(s);

	const char utf7[] = "#!/usr/bin/python\n# vim: set fileencoding=utf_7 :\nx = 1\n";
	assert_int_equal(pylex_open(&lx, (const uint8_t *)utf7, sizeof(utf7) - 1, &reason, &off), 0);
	assert_int_equal(lx.encoding_status, PYLEX_ENC_ABUSABLE);
	assert_string_equal(lx.encoding, "utf-7");
	assert_int_equal(lx.encoding_line, 2);
	pylex_close(&lx);

	const char unknown[] = "# coding: klingon\nx = 1\n";
	assert_int_equal(pylex_open(&lx, (const uint8_t *)unknown, sizeof(unknown) - 1, &reason, &off), 0);
	assert_int_equal(lx.encoding_status, PYLEX_ENC_UNKNOWN);
	pylex_close(&lx);

	/* the cookie only counts on line 1 or 2 */
	const char late[] = "x = 1\ny = 2\n# coding: utf-7\n";
	assert_int_equal(pylex_open(&lx, (const uint8_t *)late, sizeof(late) - 1, &reason, &off), 0);
	assert_int_equal(lx.encoding_status, PYLEX_ENC_OK);
	pylex_close(&lx);

	const char bom[] = "\xef\xbb\xbf# coding: latin-1\nx = 1\n";
	assert_int_equal(pylex_open(&lx, (const uint8_t *)bom, sizeof(bom) - 1, &reason, &off), 0);
	assert_int_equal(lx.encoding_status, PYLEX_ENC_CONFLICT);
	pylex_close(&lx);

	/* not on line 3 either when lines 1 and 2 are comments */
	const char third[] = "#!/usr/bin/python\n# notes\n# coding: utf-7\nx = 1\n";
	assert_int_equal(pylex_open(&lx, (const uint8_t *)third, sizeof(third) - 1, &reason, &off), 0);
	assert_int_equal(lx.encoding_status, PYLEX_ENC_OK);
	pylex_close(&lx);

	/* UTF-8 by its names, "utf-8-" followed by anything as Python reads it */
	static const char *const utf8_names[] = { "utf-8", "UTF8", "utf_8_sig", "utf-8-unix" };
	for (size_t i = 0; i < ARRAY_SIZE(utf8_names); i++) {
		char *src = xasprintf("# coding: %s\nx = 'caf\xc3\xa9'\n", utf8_names[i]);
		assert_int_equal(pylex_open(&lx, (const uint8_t *)src, strlen(src), &reason, &off), 0);
		assert_int_equal(lx.encoding_status, PYLEX_ENC_OK);
		pylex_close(&lx);
		s = lex_all(src, strlen(src));
		assert_string_equal(s, "N:x@2:1 O:=@2:3 S:caf\xc3\xa9@2:5");
		free(s);
		free(src);
	}
}

/* Escapes of code points at the ends of each UTF-8 length: 1, 2, 3 and
 * 4 bytes; the one-letter and octal escapes. */
static void test_escapes_encode_every_utf8_length(void **state)
{
	const char src[] = "x = '\\x7f\\x80\\u07ff\\u0800\\uffff\\U00010000\\U0010ffff'\n"
			   "y = '\\a\\b\\f\\v\\t\\r\\n\\\\\\'\\\"\\101\\7'\n";
	char *s = lex_all(src, sizeof(src) - 1);
	assert_string_equal(s, "N:x@1:1 O:=@1:3 S:\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf"
			       "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf@1:5 |"
			       " N:y@2:1 O:=@2:3 S:\a\b\f\v\t\r\n\\'\"A\a@2:5");
	free(s);
}

/* 200 nested blocks: each line one level deeper, back to 0 at the end. */
static void test_deep_indentation(void **state)
{
	struct pylex lx;
	struct pytok_vec v = { 0 };
	const char *reason;
	size_t off, n = 0, len = 0;
	char *src = xmalloc(200 * 210 + 16);

	(void)state;
	for (size_t d = 0; d < 200; d++) {
		memset(src + len, ' ', d);
		len += d;
		len += (size_t)sprintf(src + len, "if x:\n");
	}
	memset(src + len, ' ', 200);
	len += 200;
	len += (size_t)sprintf(src + len, "y = 1\nz = 2\n");
	assert_int_equal(pylex_open(&lx, (const uint8_t *)src, len, &reason, &off), 0);
	while (pylex_statement(&lx, &v)) {
		assert_int_equal(v.indent, n <= 200 ? n : 0);
		n++;
	}
	assert_int_equal(n, 202);
	assert_int_equal(lx.max_indent, 200);
	assert_null(lx.error);
	pytok_vec_free(&v);
	pylex_close(&lx);
	free(src);
}

static void test_indentation_depth_and_unterminated(void **state)
{
	struct pylex lx;
	struct pytok_vec v = { 0 };
	const char *reason;
	size_t off;
	const char src[] = "if a:\n    if b:\n\tx = 1\n    y = 2\nz = 'open\n";
	size_t depths[8], n = 0;

	assert_int_equal(pylex_open(&lx, (const uint8_t *)src, sizeof(src) - 1, &reason, &off), 0);
	while (pylex_statement(&lx, &v))
		depths[n++] = v.indent;
	assert_int_equal(n, 5);
	assert_int_equal(depths[0], 0);
	assert_int_equal(depths[1], 1);
	assert_int_equal(depths[2], 2); /* a tab is 8 columns */
	assert_int_equal(depths[3], 1);
	assert_int_equal(depths[4], 0);
	assert_int_equal(lx.max_indent, 2);
	assert_int_equal(lx.lines, 5);
	assert_string_equal(lx.error, "unterminated string literal");
	assert_int_equal(lx.error_line, 5);
	assert_int_equal(lx.error_col, 5);
	pytok_vec_free(&v);
	pylex_close(&lx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens_positions_and_joining),
		cmocka_unit_test(test_positions_match_a_plain_count),
		cmocka_unit_test(test_operators_of_one_two_and_three_bytes),
		cmocka_unit_test(test_string_prefixes_and_escapes),
		cmocka_unit_test(test_string_flags),
		cmocka_unit_test(test_fstring_fields_are_tokens),
		cmocka_unit_test(test_nfkc_identifiers),
		cmocka_unit_test(test_rejections_with_offsets),
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_escapes_encode_every_utf8_length),
		cmocka_unit_test(test_deep_indentation),
		cmocka_unit_test(test_indentation_depth_and_unterminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
