/* Signed notes as C2SP signed-note reads them: signatures by keys the
 * verifier does not know (a witness's cosignature, any algorithm or length)
 * are ignored while one known signature is required; the text rules (UTF-8,
 * no control characters but newline, no empty line) hold on read and for key
 * names. Table-driven: each case is a note built from a signed one. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "checkpoint.h"
#include "macro.h"
#include "merkle.h"
#include "note_sign.h"

struct keys {
	struct note_signer *signer;
	struct note_verifier *verifier;
};

static void keys_make(struct keys *k, const char *name)
{
	_cleanup_free_ char *priv = NULL, *pub = NULL, *err = NULL;
	assert_int_equal(note_keygen(name, &priv, &pub), 0);
	assert_int_equal(note_signer_parse(priv, &k->signer, &err), 0);
	assert_int_equal(note_verifier_parse(pub, &k->verifier, &err), 0);
}

static void keys_free(struct keys *k)
{
	note_signer_free(k->signer);
	note_verifier_free(k->verifier);
}

/* "— NAME BASE64\n" with n bytes (4 key-hash bytes first). */
static char *foreign_line(const char *name, size_t n)
{
	uint8_t *raw = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		raw[i] = (uint8_t)(i * 7 + 1);
	_cleanup_free_ char *b64 = note_base64_encode(raw, n);
	free(raw);
	return xasprintf("\xe2\x80\x94 %s %s\n", name, b64);
}

static int open_note(const struct keys *k, const char *note)
{
	_cleanup_free_ char *err = NULL, *text = NULL;
	return note_open(k->verifier, note, strlen(note), &text, &err);
}

static void test_unknown_signatures_are_ignored(void **state)
{
	struct keys a, b;
	_cleanup_free_ char *note = NULL, *note_b = NULL;

	(void)state;
	keys_make(&a, "log.example/a");
	keys_make(&b, "witness.example/w");
	assert_int_equal(note_sign(a.signer, "log.example/a\n5\nAAAA\n", &note), 0);
	assert_int_equal(note_sign(b.signer, "log.example/a\n5\nAAAA\n", &note_b), 0);
	const char *b_line = strstr(note_b, "\n\n") + 2;

	/* a cosignature (8-byte timestamp: 76 bytes, 104 base64 characters),
	 * another algorithm's long signature, a short one, and B's real
	 * Ed25519 line: after or before the known one */
	static const size_t sizes[] = { 76, 4 + 3309, 5, 68 };
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		_cleanup_free_ char *line = foreign_line("witness.example/w", sizes[i]);
		_cleanup_free_ char *after = xasprintf("%s%s", note, line);
		_cleanup_free_ char *before = xstrdup(note);
		char *sigs = strstr(before, "\n\n") + 2;
		_cleanup_free_ char *b2 = xasprintf("%.*s%s%s", (int)(sigs - before), before, line, sigs);
		assert_int_equal(open_note(&a, after), 0);
		assert_int_equal(open_note(&a, b2), 0);
	}
	_cleanup_free_ char *both = xasprintf("%s%s", note, b_line);
	assert_int_equal(open_note(&a, both), 0);
	assert_int_equal(open_note(&b, both), 0);
	/* only unknown signatures: refused */
	assert_int_equal(open_note(&b, note), -EPERM);
	/* the known one wrong: refused, whatever else is there */
	_cleanup_free_ char *bad = xstrdup(both);
	char *sig = strstr(bad, "\n\n") + 2 + strlen("\xe2\x80\x94 log.example/a ") + 10;
	*sig = *sig == 'A' ? 'B' : 'A';
	assert_int_equal(open_note(&a, bad), -EPERM);
	keys_free(&a);
	keys_free(&b);
}

static void test_text_rules(void **state)
{
	struct keys a;
	_cleanup_free_ char *note = NULL;
	static const struct {
		const char *text, *what;
	} bodies[] = {
		{ "log.example/a\n5\nAAAA\n\nextension\n", "an empty line" },
		{ "\nlog.example/a\n5\n", "an empty first line" },
		{ "log.example/a\n5\tx\nAAAA\n", "a tab" },
		{ "log.example/a\r\n5\nAAAA\n", "a carriage return" },
		{ "log.example/a\n5\x7f\nAAAA\n", "DEL" },
		{ "log.example/a\n5\xff\nAAAA\n", "invalid UTF-8" },
		{ "log.example/a\n5\xc0\xaf\nAAAA\n", "an overlong form" },
	};

	(void)state;
	keys_make(&a, "log.example/a");
	assert_int_equal(note_sign(a.signer, "log.example/a\n5\nAAAA\n", &note), 0);
	const char *sigs = strstr(note, "\n\n") + 1;
	for (size_t i = 0; i < ARRAY_SIZE(bodies); i++) {
		char *unused = NULL;
		/* never signed ... */
		assert_int_equal(note_sign(a.signer, bodies[i].text, &unused), -EINVAL);
		/* ... nor read, even with a signature line in place */
		_cleanup_free_ char *forged = xasprintf("%s%s", bodies[i].text, sigs);
		if (open_note(&a, forged) != -EBADMSG)
			fail_msg("a note with %s was not refused as malformed", bodies[i].what);
	}
	/* malformed signature lines, even of unknown keys */
	static const char *const lines[] = {
		"\xe2\x80\x94 witness+x AAAAAAAA\n",   /* '+' in the name */
		"\xe2\x80\x94 witness AAAA*AAA\n",     /* not base64 */
		"\xe2\x80\x94 witness AAAA\n",         /* fewer than 5 bytes */
		"\xe2\x80\x94 witnessAAAAAAAA\n",      /* no space */
		"- witness AAAAAAAA\n",                /* not an em dash */
	};
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		_cleanup_free_ char *forged = xasprintf("%s%s", note, lines[i]);
		assert_int_equal(open_note(&a, forged), -EBADMSG);
	}
	/* at most 100 signatures */
	_cleanup_free_ char *line = foreign_line("w", 68);
	char *many = xstrdup(note);
	for (int i = 0; i < 100; i++) {
		char *m = xasprintf("%s%s", many, line);
		free(many);
		many = m;
	}
	assert_int_equal(open_note(&a, many), -EBADMSG);
	free(many);
	keys_free(&a);
}

/* Base64 as signed notes carry it: the padding's bytes are not part of
 * the value (one '=' drops one byte, two drop two), and padding only at
 * the end. */
static void test_base64_padding(void **state)
{
	static const struct {
		const char *in;
		int want;
		const char *out;
	} cases[] = {
		{ "YWJj", 0, "abc" }, { "YWI=", 0, "ab" }, { "YQ==", 0, "a" },
		{ "YWJjZA==", 0, "abcd" }, { "YQ=", -EINVAL, NULL }, { "Y===", -EINVAL, NULL },
		{ "Y=Q=", -EINVAL, NULL }, { "", -EINVAL, NULL }, { "YW J", -EINVAL, NULL },
	};
	uint8_t buf[16];
	size_t len;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		len = 99;
		int r = note_base64_decode(cases[i].in, strlen(cases[i].in), buf, &len);
		if (r != cases[i].want)
			fail_msg("'%s': %d, expected %d", cases[i].in, r, cases[i].want);
		if (r == 0 && (len != strlen(cases[i].out) || memcmp(buf, cases[i].out, len) != 0))
			fail_msg("'%s': %zu bytes, expected '%s'", cases[i].in, len, cases[i].out);
	}
}

static void test_key_names(void **state)
{
	static const char *const bad[] = {
		"", "a b", "a+b", "a\tb", "a\nb", "a\xc2\xa0" "b" /* NBSP */, "a\xe3\x80\x80" "b" /* ideographic space */,
		"a\xe2\x80\xa8" "b" /* line separator */, "\xff", "a\x7f", "a\x01",
	};
	static const char *const good[] = { "log.example/audit", "caf\xc3\xa9.example", "a-b_c:1" };
	char *priv, *pub;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (note_keygen(bad[i], &priv, &pub) != -EINVAL)
			fail_msg("key name %zu was accepted", i);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(note_keygen(good[i], &priv, &pub), 0);
		free(priv);
		free(pub);
	}
	/* Every Unicode space is refused in a name (a verifier splits on them);
	 * the characters next to them are letters and marks, and pass. */
	static const uint32_t spaces[] = { 0xa0, 0x1680, 0x2000, 0x2005, 0x200a, 0x2028, 0x2029,
					   0x202f, 0x205f, 0x3000 };
	static const uint32_t near[] = { 0xa1, 0x1681, 0x1fff, 0x2010, 0x2027, 0x2030, 0x205e, 0x3001 };
	for (size_t i = 0; i < ARRAY_SIZE(spaces) + ARRAY_SIZE(near); i++) {
		uint32_t cp = i < ARRAY_SIZE(spaces) ? spaces[i] : near[i - ARRAY_SIZE(spaces)];
		char name[8] = "a";
		size_t n = 1;
		if (cp < 0x800) {
			name[n++] = (char)(0xc0 | cp >> 6);
		} else {
			name[n++] = (char)(0xe0 | cp >> 12);
			name[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
		}
		name[n++] = (char)(0x80 | (cp & 0x3f));
		name[n++] = 'b';
		if (note_name_valid(name, n) != (i >= ARRAY_SIZE(spaces)))
			fail_msg("U+%04X in a key name: %s", cp, i < ARRAY_SIZE(spaces) ? "accepted" : "refused");
	}
	/* at most 256 bytes */
	char longest[258];
	memset(longest, 'n', 257);
	longest[257] = '\0';
	assert_int_equal(note_keygen(longest, &priv, &pub), -EINVAL);
	longest[256] = '\0';
	assert_int_equal(note_keygen(longest, &priv, &pub), 0);
	free(priv);
	free(pub);
}

/* The key text with one character of its hash (part 1) or of its key
 * (part 2, past the algorithm byte) changed, as an edit or a damaged disk
 * would. */
static char *damaged(const char *key, size_t skip, int part)
{
	char *t = xstrdup(key);
	char *p = t + skip;
	for (int i = 0; i < part; i++)
		p = strchr(p, '+') + 1;
	if (part == 2)
		p += 10;
	/* A digit of both hex and base64, never the same value: a letter's
	 * case would not do ('a' and 'A' are one hex digit). */
	*p = *p == '0' ? '1' : '0';
	return t;
}

static void test_damaged_keys(void **state)
{
	char *priv, *pub;
	(void)state;
	assert_int_equal(note_keygen("log.example/audit", &priv, &pub), 0);
	struct note_verifier *v = NULL;
	struct note_signer *s = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(note_verifier_parse(pub, &v, &err), 0);
	assert_string_equal(note_verifier_name(v), "log.example/audit");
	note_verifier_free(v);

	/* An edited key hash, or key, is refused: never a key of another name. */
	for (int part = 1; part <= 2; part++) {
		_cleanup_free_ char *bad_pub = damaged(pub, 0, part);
		_cleanup_free_ char *bad_priv = damaged(priv, strlen("PRIVATE+KEY+"), part);
		free(err);
		err = NULL;
		assert_int_equal(note_verifier_parse(bad_pub, &v, &err), -EINVAL);
		assert_string_equal(err, "key hash does not match the key (edited or corrupted key file)");
		free(err);
		err = NULL;
		assert_int_equal(note_signer_parse(bad_priv, &s, &err), -EINVAL);
		assert_string_equal(err, "key hash does not match the key (edited or corrupted key file)");
	}
	/* A key cut short. */
	pub[strlen(pub) - 8] = '\0';
	free(err);
	err = NULL;
	assert_int_equal(note_verifier_parse(pub, &v, &err), -EINVAL);
	assert_string_equal(err, "malformed name, key hash or Ed25519 key");
	/* A public key given where the private one belongs, and a private key
	 * whose key is not base64. */
	free(err);
	err = NULL;
	assert_int_equal(note_signer_parse(pub, &s, &err), -EINVAL);
	assert_string_equal(err, "does not start with 'PRIVATE+KEY+'");
	free(err);
	err = NULL;
	char *plus = strrchr(priv, '+');
	plus[1] = '*';
	assert_int_equal(note_signer_parse(priv, &s, &err), -EINVAL);
	assert_string_equal(err, "malformed name, key hash or Ed25519 key");
	free(priv);
	free(pub);
}

static void test_consistency_from_zero_is_refused(void **state)
{
	uint8_t any[MERKLE_HASH_LEN] = { 1 }, root[MERKLE_HASH_LEN] = { 2 };
	uint8_t proof[1][MERKLE_HASH_LEN] = { { 0 } };

	(void)state;
	assert_int_equal(merkle_verify_consistency(0, 5, any, root, (const void *)proof, 0), -EBADMSG);
	assert_int_equal(merkle_verify_consistency(0, 0, root, root, (const void *)proof, 0), -EBADMSG);
}

static void test_checkpoint_extension_lines(void **state)
{
	struct checkpoint ck;
	const char *why;
	static const char root[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
	_cleanup_free_ char *ok = xasprintf("o\n3\n%s\next one\next two\n", root);
	_cleanup_free_ char *empty = xasprintf("o\n3\n%s\n\next\n", root);

	(void)state;
	assert_int_equal(checkpoint_parse(ok, &ck, &why), 0);
	checkpoint_clear(&ck);
	assert_int_equal(checkpoint_parse(empty, &ck, &why), -EBADMSG);
}

/* A tree size has at most 19 digits (any of them fits in 64 bits), no
 * leading zero. */
static void test_checkpoint_size_digits(void **state)
{
	static const struct {
		const char *size;
		int ok;
	} cases[] = {
		{ "0", 1 }, { "9999999999999999999", 1 }, { "10000000000000000000", 0 },
		{ "012", 0 }, { "", 0 }, { "1x", 0 },
	};
	struct checkpoint ck;
	const char *why;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *text = xasprintf("o\n%s\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
						      cases[i].size);
		int r = checkpoint_parse(text, &ck, &why);
		if (r != (cases[i].ok ? 0 : -EBADMSG))
			fail_msg("size '%s': %d", cases[i].size, r);
		if (r == 0) {
			assert_int_equal(ck.size, strtoull(cases[i].size, NULL, 10));
			checkpoint_clear(&ck);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_signatures_are_ignored),
		cmocka_unit_test(test_text_rules),
		cmocka_unit_test(test_base64_padding),
		cmocka_unit_test(test_key_names),
		cmocka_unit_test(test_damaged_keys),
		cmocka_unit_test(test_consistency_from_zero_is_refused),
		cmocka_unit_test(test_checkpoint_extension_lines),
		cmocka_unit_test(test_checkpoint_size_digits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
