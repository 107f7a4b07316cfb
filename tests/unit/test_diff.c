#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "diff.h"
#include "fileio.h"
#include "testdir.h"

/* ---- a small unified-diff applier, written for the test, so every diff is
 * checked by rebuilding the new version from the old one ---- */

struct text_line {
	const char *p;
	size_t len;
};

static size_t split(const char *buf, size_t len, struct text_line **out)
{
	size_t n = 0;
	struct text_line *v = malloc((len + 1) * sizeof(*v));
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
		v[n].p = buf + i;
		v[n++].len = l;
		i += l;
	}
	*out = v;
	return n;
}

static void append(char **buf, size_t *len, const char *p, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	memcpy(*buf + *len, p, n);
	*len += n;
}

/* Applies patch to old; fails the test on any line that does not fit. */
static char *apply_patch(const char *old, size_t old_len, const char *patch, size_t patch_len,
			 size_t *out_len)
{
	struct text_line *ol, *pl;
	size_t on = split(old, old_len, &ol), pn = split(patch, patch_len, &pl);
	size_t oi = 0, pi = 0;
	char *res = malloc(1);
	size_t rlen = 0;

	if (pn) {
		assert_true(pn >= 3);
		assert_memory_equal(pl[0].p, "--- a/", 6);
		assert_memory_equal(pl[1].p, "+++ b/", 6);
		pi = 2;
	}
	while (pi < pn) {
		unsigned long a, as = 1, b, bs = 1;
		char hdr[128];
		size_t hl = pl[pi].len < sizeof(hdr) - 1 ? pl[pi].len : sizeof(hdr) - 1;
		memcpy(hdr, pl[pi].p, hl);
		hdr[hl] = '\0';
		const char *s = hdr;
		assert_memory_equal(s, "@@ -", 4);
		char *e;
		a = strtoul(s + 4, &e, 10);
		if (*e == ',')
			as = strtoul(e + 1, &e, 10);
		assert_memory_equal(e, " +", 2);
		b = strtoul(e + 2, &e, 10);
		if (*e == ',')
			bs = strtoul(e + 1, &e, 10);
		assert_string_equal(e, " @@\n");
		(void)b;
		size_t start = as ? a - 1 : a;   /* 0-based index of the hunk's first old line */
		assert_true(start >= oi);
		while (oi < start)
			append(&res, &rlen, ol[oi].p, ol[oi].len), oi++;
		pi++;
		size_t used_a = 0, used_b = 0;
		while (pi < pn && pl[pi].p[0] != '@') {
			char kind = pl[pi].p[0];
			const char *body = pl[pi].p + 1;
			size_t blen = pl[pi].len - 1;
			if (pi + 1 < pn && pl[pi + 1].p[0] == '\\') {
				assert_int_equal(pl[pi + 1].len, 28);
				assert_memory_equal(pl[pi + 1].p, "\\ No newline at end of file\n", 28);
				blen--;     /* this line had no newline */
			}
			if (kind == ' ' || kind == '-') {
				assert_true(oi < on);
				assert_int_equal(ol[oi].len, blen);
				assert_memory_equal(ol[oi].p, body, blen);
				if (kind == ' ')
					append(&res, &rlen, body, blen), used_b++;
				oi++;
				used_a++;
			} else {
				assert_int_equal(kind, '+');
				append(&res, &rlen, body, blen);
				used_b++;
			}
			pi += (pi + 1 < pn && pl[pi + 1].p[0] == '\\') ? 2 : 1;
		}
		assert_int_equal(used_a, as);
		assert_int_equal(used_b, bs);
	}
	while (oi < on)
		append(&res, &rlen, ol[oi].p, ol[oi].len), oi++;
	free(ol);
	free(pl);
	*out_len = rlen;
	return res;
}

static void check_applies(const char *old, size_t ol, const char *new, size_t nl,
			  const struct diff_result *r)
{
	size_t got_len;
	char *got = apply_patch(old, ol, r->text, r->len, &got_len);
	assert_int_equal(got_len, nl);
	if (nl)
		assert_memory_equal(got, new, nl);
	free(got);
}

/* Plain write: the inputs are scratch files, no fsync needed. */
static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Runs GNU diffutils' `diff -a -u` on the same inputs and returns its output
 * without the two label lines (ours carry a/NAME, b/NAME instead of paths
 * and times). */
static char *gnu_diff(const char *dir, const char *old, size_t ol, const char *new, size_t nl,
		      size_t *out_len)
{
	char a[4096], b[4096], o[4096];
	snprintf(a, sizeof(a), "%s/old", dir);
	snprintf(b, sizeof(b), "%s/new", dir);
	snprintf(o, sizeof(o), "%s/out", dir);
	write_file(a, old, ol);
	write_file(b, new, nl);
	/* posix_spawn rather than system(): forking a sanitized process is slow. */
	posix_spawn_file_actions_t fa;
	char *argv[] = { "diff", "-a", "-u", a, b, NULL };
	pid_t pid;
	int st;
	assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
	assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, o, O_WRONLY | O_CREAT | O_TRUNC, 0600), 0);
	assert_int_equal(posix_spawnp(&pid, "diff", &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) <= 1);
	char *buf;
	size_t len;
	assert_int_equal(fileio_read_path(o, 1 << 24, &buf, &len), 0);
	size_t skip = 0;
	for (int i = 0; i < 2 && skip < len; i++) {
		const char *nlp = memchr(buf + skip, '\n', len - skip);
		skip = nlp ? (size_t)(nlp - buf) + 1 : len;
	}
	memmove(buf, buf + skip, len - skip);
	*out_len = len - skip;
	return buf;
}

struct diff_case {
	const char *what;
	const char *old, *new;
	const char *expect;     /* exact text after the label lines, NULL: not spelled out */
};

static const struct diff_case cases[] = {
	{ "identical", "a\nb\n", "a\nb\n", "" },
	{ "empty to text", "", "a\nb\n", "@@ -0,0 +1,2 @@\n+a\n+b\n" },
	{ "text to empty", "a\nb\n", "", "@@ -1,2 +0,0 @@\n-a\n-b\n" },
	{ "insert at start", "1\n2\n3\n4\n5\n6\n", "0\n1\n2\n3\n4\n5\n6\n",
	  "@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n" },
	{ "insert in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nX\n5\n6\n7\n8\n",
	  "@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+X\n 5\n 6\n 7\n" },
	{ "insert at end", "1\n2\n3\n4\n5\n", "1\n2\n3\n4\n5\n6\n",
	  "@@ -3,3 +3,4 @@\n 3\n 4\n 5\n+6\n" },
	{ "delete", "1\n2\n3\n4\n5\n6\n7\n", "1\n2\n3\n5\n6\n7\n",
	  "@@ -1,7 +1,6 @@\n 1\n 2\n 3\n-4\n 5\n 6\n 7\n" },
	{ "replace", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
	  "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" },
	{ "old without final newline", "a\nb", "a\nb\n",
	  "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n" },
	{ "new without final newline", "a\nb\n", "a\nb",
	  "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n" },
	{ "neither with final newline", "a\nb", "a\nc",
	  "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n" },
	{ "CRLF lines", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n",
	  "@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n" },
	{ "two hunks: 7 common lines apart",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n11\n",
	  "@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -7,5 +7,5 @@\n 7\n 8\n 9\n-10\n+Y\n 11\n" },
	{ "one hunk: 6 common lines apart",
	  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", "1\nX\n3\n4\n5\n6\n7\n8\nY\n10\n11\n",
	  "@@ -1,11 +1,11 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n 7\n 8\n-9\n+Y\n 10\n 11\n" },
	{ "interleaved edits", "a\nb\nc\nd\ne\nf\ng\n", "a\nc\nd\nX\ne\ng\nh\n", NULL },
	{ "python edit", "import os\n\ndef main():\n    print('hi')\n\nmain()\n",
	  "import os\nimport sys\n\ndef main():\n    print('hello', file=sys.stderr)\n\nmain()\n", NULL },
};

static void test_known_diffs(void **state)
{
	const char *dir = *state;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct diff_case *k = &cases[c];
		struct diff_options opts;
		struct diff_result r;
		size_t ol = strlen(k->old), nl = strlen(k->new);

		print_message("case: %s\n", k->what);
		diff_options_init(&opts, "s.py");
		diff_unified(k->old, ol, k->new, nl, &opts, &r);
		assert_false(r.truncated);
		assert_false(r.capped);
		check_applies(k->old, ol, k->new, nl, &r);

		const char *body = r.text;
		if (r.len) {
			assert_true(r.len > 26);
			assert_memory_equal(r.text, "--- a/s.py\n+++ b/s.py\n", 22);
			body = r.text + 22;
		}
		if (k->expect)
			assert_string_equal(body, k->expect);

		size_t gl;
		char *g = gnu_diff(dir, k->old, ol, k->new, nl, &gl);
		assert_int_equal(strlen(body), gl);
		assert_memory_equal(body, g, gl);
		free(g);
		diff_result_clear(&r);
	}
}

static void test_counts(void **state)
{
	(void)state;
	struct diff_options opts;
	struct diff_result r;
	const char *o = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n";
	const char *n = "1\nX\n3\n4\n5\n6\n7\n8\n9\n10\nY\nZ\n12\n";

	diff_options_init(&opts, "c.py");
	diff_unified(o, strlen(o), n, strlen(n), &opts, &r);
	assert_int_equal(r.hunks, 2);
	assert_int_equal(r.lines_added, 3);
	assert_int_equal(r.lines_removed, 2);
	diff_result_clear(&r);
}

/* NUL bytes are ordinary bytes: the diff holds them and applies back. */
static void test_binary_safe(void **state)
{
	const char *dir = *state;
	static const char o[] = "head\n\0\0bin\0ary\nmid\nx\0y\ntail";
	static const char n[] = "head\n\0\0bin\0ARY\nmid\nx\0y\ntail\0";
	struct diff_options opts;
	struct diff_result r;

	diff_options_init(&opts, "b.bin");
	diff_unified(o, sizeof(o) - 1, n, sizeof(n) - 1, &opts, &r);
	assert_int_equal(r.hunks, 1);
	check_applies(o, sizeof(o) - 1, n, sizeof(n) - 1, &r);
	size_t gl;
	char *g = gnu_diff(dir, o, sizeof(o) - 1, n, sizeof(n) - 1, &gl);
	const size_t labels = strlen("--- a/b.bin\n+++ b/b.bin\n");
	assert_memory_equal(r.text, "--- a/b.bin\n+++ b/b.bin\n", labels);
	assert_int_equal(r.len - labels, gl);
	assert_memory_equal(r.text + labels, g, gl);
	free(g);
	diff_result_clear(&r);
}

/* A control character in the name cannot start a forged diff line. */
static void test_hostile_name(void **state)
{
	(void)state;
	struct diff_options opts;
	struct diff_result r;

	diff_options_init(&opts, "x\n+++ b/evil.py");
	diff_unified("a\n", 2, "b\n", 2, &opts, &r);
	assert_memory_equal(r.text, "--- a/x?+++ b/evil.py\n+++ b/x?+++ b/evil.py\n@@ -1 +1 @@\n",
			    strlen("--- a/x?+++ b/evil.py\n+++ b/x?+++ b/evil.py\n@@ -1 +1 @@\n"));
	diff_result_clear(&r);
}

/* Pseudo-random edits of small files: every diff rebuilds the new version,
 * and has no more changed lines than GNU diff finds (Myers is minimal). */
static void test_random_edits_apply(void **state)
{
	const char *dir = *state;
	uint32_t seed = 12345;
#define RND() (seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff)

	for (int t = 0; t < 60; t++) {
		char o[512], n[512];
		size_t ol = 0, nl = 0;
		int lines = 1 + (int)(RND() % 30);
		for (int i = 0; i < lines; i++) {
			char l = (char)('a' + RND() % 6);
			o[ol++] = l;
			o[ol++] = '\n';
			unsigned op = RND() % 5;
			if (op == 0)
				continue;                                  /* delete */
			if (op == 1)
				n[nl++] = (char)('a' + RND() % 6), n[nl++] = '\n'; /* insert */
			n[nl++] = op == 2 ? (char)('A' + RND() % 3) : l;   /* replace or keep */
			n[nl++] = '\n';
		}
		if (RND() % 4 == 0 && nl)
			nl--;                                              /* no final newline */
		struct diff_options opts;
		struct diff_result r;
		diff_options_init(&opts, "r.py");
		diff_unified(o, ol, n, nl, &opts, &r);
		check_applies(o, ol, n, nl, &r);

		size_t gl, ours = 0, theirs = 0;
		char *g = gnu_diff(dir, o, ol, n, nl, &gl);
		for (size_t i = 0; i < gl; i++)
			if ((i == 0 || g[i - 1] == '\n') && (g[i] == '+' || g[i] == '-'))
				theirs++;
		ours = r.lines_added + r.lines_removed;
		assert_true(ours <= theirs);
		free(g);
		diff_result_clear(&r);
	}
#undef RND
}

/* Past max_edits the diff is one replace hunk, still correct. */
static void test_edit_cap_falls_back_to_replace(void **state)
{
	(void)state;
	const char *o = "keep\n1\n2\n3\n4\n5\n6\nend\n";
	const char *n = "keep\n6\n5\n4\n3\n2\n1\nend\n";
	struct diff_options opts;
	struct diff_result r;

	diff_options_init(&opts, "cap.py");
	opts.max_edits = 4;
	diff_unified(o, strlen(o), n, strlen(n), &opts, &r);
	assert_true(r.capped);
	assert_int_equal(r.lines_removed, 6);
	assert_int_equal(r.lines_added, 6);
	assert_string_equal(r.text + 26,
		"@@ -1,8 +1,8 @@\n keep\n-1\n-2\n-3\n-4\n-5\n-6\n+6\n+5\n+4\n+3\n+2\n+1\n end\n");
	check_applies(o, strlen(o), n, strlen(n), &r);
	diff_result_clear(&r);
}

/* Cut within the first of two hunks: the text stops there, on a line
 * boundary, and the second hunk is still counted. A max_edits above the
 * limit is taken as the limit. */
static void test_cut_in_first_hunk_counts_the_second(void **state)
{
	(void)state;
	const char *o = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
	const char *n = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n";
	struct diff_options opts;
	struct diff_result r;

	diff_options_init(&opts, "two.py");
	opts.max_bytes = 40;
	opts.max_edits = (size_t)1 << 40;
	diff_unified(o, strlen(o), n, strlen(n), &opts, &r);
	assert_true(r.truncated);
	assert_false(r.capped);
	assert_int_equal(r.hunks, 2);
	assert_int_equal(r.lines_removed, 2);
	assert_int_equal(r.lines_added, 2);
	assert_true(r.len <= 40 && r.len > 0 && r.text[r.len - 1] == '\n');
	assert_null(strstr(r.text, "+L"));
	diff_result_clear(&r);
}

/* A 1 MB file against its reverse: the edit cap bounds the work and the
 * output stops at the byte cap, on a line boundary. */
static void test_large_input_capped_and_truncated(void **state)
{
	(void)state;
	size_t lines = (1u << 20) / 12, len = lines * 12;
	char *o = malloc(len + 1), *n = malloc(len + 1);
	for (size_t i = 0; i < lines; i++) {
		snprintf(o + i * 12, 13, "line %06zu\n", i);
		snprintf(n + (lines - 1 - i) * 12, 13, "line %06zu\n", i);
	}
	struct diff_options opts;
	struct diff_result r;
	diff_options_init(&opts, "big.py");
	opts.max_bytes = 64 * 1024;
	diff_unified(o, len, n, len, &opts, &r);
	assert_true(r.capped);
	assert_true(r.truncated);
	assert_true(r.len <= 64 * 1024);
	assert_true(r.len > 64 * 1024 - 13);
	assert_int_equal(r.len, strlen(r.text));
	assert_int_equal(r.text[r.len - 1], '\n');
	char head[128];
	snprintf(head, sizeof(head), "--- a/big.py\n+++ b/big.py\n@@ -1,%zu +1,%zu @@\n-line 000000\n",
		 lines, lines);
	assert_memory_equal(r.text, head, strlen(head));
	assert_int_equal(r.lines_removed, lines);
	assert_int_equal(r.lines_added, lines);
	diff_result_clear(&r);
	free(o);
	free(n);
}

/* Without a byte cap nothing is cut; with one, the first line that does not
 * fit is dropped whole. */
static void test_byte_cap_exact(void **state)
{
	(void)state;
	struct diff_options opts;
	struct diff_result r;
	const char *full = "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-a\n+b\n";

	diff_options_init(&opts, "t");
	opts.max_bytes = strlen(full);
	diff_unified("a\n", 2, "b\n", 2, &opts, &r);
	assert_false(r.truncated);
	assert_string_equal(r.text, full);
	diff_result_clear(&r);

	opts.max_bytes = strlen(full) - 1;
	diff_unified("a\n", 2, "b\n", 2, &opts, &r);
	assert_true(r.truncated);
	assert_string_equal(r.text, "--- a/t\n+++ b/t\n@@ -1 +1 @@\n-a\n");
	diff_result_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_known_diffs, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_counts),
		cmocka_unit_test_setup_teardown(test_binary_safe, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_hostile_name),
		cmocka_unit_test_setup_teardown(test_random_edits_apply, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_edit_cap_falls_back_to_replace),
		cmocka_unit_test(test_cut_in_first_hunk_counts_the_second),
		cmocka_unit_test(test_large_input_capped_and_truncated),
		cmocka_unit_test(test_byte_cap_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
