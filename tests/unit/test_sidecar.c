/* .audit sidecars, and the signed-note layer they rest on. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "audit.h"
#include "audit_fixture.h"
#include "audit_verify.h"
#include "checkpoint.h"
#include "macro.h"
#include "note_sign.h"
#include "sidecar.h"
#include "testdir.h"

static void test_note_sign_and_open(void **state)
{
	_cleanup_free_ char *priv = NULL, *pub = NULL, *priv2 = NULL, *pub2 = NULL, *note = NULL, *text = NULL,
			    *err = NULL;
	assert_int_equal(note_keygen("example.com/log", &priv, &pub), 0);
	assert_int_equal(note_keygen("example.com/log", &priv2, &pub2), 0);
	assert_true(strncmp(priv, "PRIVATE+KEY+example.com/log+", 28) == 0);
	assert_true(strncmp(pub, "example.com/log+", 16) == 0);
	assert_int_equal(strlen(pub), strlen("example.com/log+") + 8 + 1 + 44 + 1);
	assert_int_equal(note_keygen("bad name", &priv2, &pub2), -EINVAL);
	assert_int_equal(note_keygen("bad+name", &priv2, &pub2), -EINVAL);

	struct note_signer *s = NULL;
	struct note_verifier *v = NULL, *v2 = NULL;
	assert_int_equal(note_signer_parse(priv, &s, &err), 0);
	assert_int_equal(note_verifier_parse(pub, &v, &err), 0);
	assert_int_equal(note_verifier_parse(pub2, &v2, &err), 0);
	_cleanup_free_ char *vt = note_signer_verifier_text(s);
	assert_string_equal(vt, pub);

	uint8_t root[32] = { 1, 2, 3 };
	assert_int_equal(checkpoint_sign(s, "example.com/log", 42, root, &note), 0);
	/* Body, blank line, one signature line: em dash, name, base64 of 68 bytes. */
	static const char head[] = "example.com/log\n42\nAQIDAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n"
				   "\xe2\x80\x94 example.com/log ";
	assert_true(strncmp(note, head, sizeof(head) - 1) == 0);
	assert_int_equal(strlen(note), sizeof(head) - 1 + 92 + 1); /* base64 of 4 + 64 bytes */
	struct checkpoint ck;
	assert_int_equal(checkpoint_open(v, note, strlen(note), &ck, &err), 0);
	assert_string_equal(ck.origin, "example.com/log");
	assert_int_equal(ck.size, 42);
	assert_memory_equal(ck.root, root, 32);
	checkpoint_clear(&ck);

	free(err);
	err = NULL;
	assert_int_equal(note_open(v2, note, strlen(note), &text, &err), -EPERM);
	assert_string_equal(err, "no signature by key 'example.com/log' (signed with another key?)");
	free(err);
	err = NULL;
	note[17] = '3'; /* size 43 */
	assert_int_equal(note_open(v, note, strlen(note), &text, &err), -EPERM);
	assert_string_equal(err, "signature by key 'example.com/log' does not verify");
	free(err);
	err = NULL;
	assert_int_equal(note_open(v, "no blank line\n", 14, &text, &err), -EBADMSG);
	free(err);
	err = NULL;
	assert_int_equal(note_verifier_parse(priv, &v2, &err), -EINVAL);
	assert_string_equal(err, "this is a private key; give the public (verifier) key");
	note_signer_free(s);
	note_verifier_free(v);
	note_verifier_free(v2);
}

struct job_log {
	char *sidecar, *pub;
};

static void make_sidecar(const char *dir, struct job_log *jl)
{
	fixture_keys(dir, "k", "mai.test/audit");
	struct audit_options o = fixture_options(dir, "k", 0);
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	assert_int_equal(audit_open(&o, &log, &err), 0);
	fixture_append(log, 37);
	uint64_t seqs[3] = { 3, 4, 30 };
	jl->sidecar = xasprintf("%s/foo.audit", dir);
	jl->pub = xasprintf("%s/k.pub", dir);
	struct audit_sidecar_info pos;
	assert_int_equal(audit_sidecar_write(log, seqs, 3, jl->sidecar, &pos), 0);
	audit_close(log);

	/* The position a result.json cites: the checkpoint the proofs are
	 * against, and the entry hash that opens the last record's line. */
	json_t *doc = json_load_file(jl->sidecar, 0, NULL);
	assert_non_null(doc);
	json_t *recs = json_object_get(doc, "records");
	const char *last = json_string_value(json_object_get(json_array_get(recs, 2), "record"));
	assert_int_equal(strlen(pos.entry_hash), 64);
	assert_memory_equal(pos.entry_hash, last, 64);
	const char *note = json_string_value(json_object_get(doc, "checkpoint"));
	_cleanup_free_ char *size_line = xasprintf("\n%" PRIu64 "\n", pos.checkpoint_size);
	assert_true(pos.checkpoint_size >= 37);
	assert_non_null(strstr(note, size_line));
	json_decref(doc);
}

static char *verify_sidecar_line(const char *path, const char *pub)
{
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_sidecar(path, pub, &rep), 0);
	char *line = audit_verify_report_line(&rep);
	audit_verify_report_clear(&rep);
	return line;
}

static void test_sidecar_verifies_alone(void **state)
{
	struct job_log jl;
	make_sidecar(*state, &jl);
	/* The log itself is gone: the sidecar needs nothing but the key. */
	_cleanup_free_ char *log_dir = xasprintf("%s/audit", (char *)*state);
	assert_int_equal(testdir_remove_tree(log_dir), 0);
	_cleanup_free_ char *line = verify_sidecar_line(jl.sidecar, jl.pub);
	assert_true(strncmp(line, "OK n=3 head=", 12) == 0);
	assert_true(strstr(line, " checkpoint=ok") != NULL);
	free(jl.sidecar);
	free(jl.pub);
}

/* Loads the sidecar, lets fn change it, writes it back. */
static void mutate(const char *path, void (*fn)(json_t *doc))
{
	json_t *doc = json_load_file(path, 0, NULL);
	assert_non_null(doc);
	fn(doc);
	assert_int_equal(json_dump_file(doc, path, JSON_INDENT(1)), 0);
	json_decref(doc);
}

static json_t *record(json_t *doc, size_t i)
{
	return json_array_get(json_object_get(doc, "records"), i);
}

static void change_field(json_t *doc)
{
	json_t *r = record(doc, 1);
	char *line = xstrdup(json_string_value(json_object_get(r, "record")));
	char *p = strstr(line, "\"n\":4,");
	assert_non_null(p);
	p[4] = '5';
	json_object_set_new(r, "record", json_string(line));
	free(line);
}

static void flip_proof(json_t *doc)
{
	json_t *proof = json_object_get(record(doc, 2), "proof");
	char *h = xstrdup(json_string_value(json_array_get(proof, 2)));
	h[10] = h[10] == '0' ? '1' : '0';
	json_array_set_new(proof, 2, json_string(h));
	free(h);
}

static void drop_proof_step(json_t *doc)
{
	json_array_remove(json_object_get(record(doc, 0), "proof"), 0);
}

static void extra_proof_step(json_t *doc)
{
	json_array_append_new(json_object_get(record(doc, 0), "proof"),
			      json_string("0000000000000000000000000000000000000000000000000000000000000000"));
}

static void renumber(json_t *doc)
{
	json_object_set_new(record(doc, 2), "seq", json_integer(31));
}

static void swap_checkpoint_size(json_t *doc)
{
	char *ck = xstrdup(json_string_value(json_object_get(doc, "checkpoint")));
	char *p = strstr(ck, "\n37\n");
	assert_non_null(p);
	p[2] = '6';
	json_object_set_new(doc, "checkpoint", json_string(ck));
	free(ck);
}

static void not_a_sidecar(json_t *doc)
{
	json_object_set_new(doc, "format", json_string("something-else/1"));
}

static void no_records(json_t *doc)
{
	json_object_set_new(doc, "records", json_array());
}

static void proof_not_hex(json_t *doc)
{
	json_array_set_new(json_object_get(record(doc, 1), "proof"), 0, json_string("not a hash"));
}

static void record_without_seq(json_t *doc)
{
	json_object_del(record(doc, 1), "seq");
}

static void test_sidecar_edits_fail(void **state)
{
	const char *dir = *state;
	struct job_log jl;
	make_sidecar(dir, &jl);
	size_t len;
	_cleanup_free_ char *orig = fixture_read(jl.sidecar, &len);
	static const struct {
		void (*fn)(json_t *);
		const char *want, *also;
	} cases[] = {
		{ change_field, "FAIL seq=4: record content does not match its entry hash (changed record)", NULL },
		{ flip_proof, "FAIL seq=30: inclusion proof does not lead to the checkpoint root", NULL },
		{ drop_proof_step, "FAIL seq=3: inclusion proof does not lead to the checkpoint root", NULL },
		{ extra_proof_step, "FAIL seq=3: inclusion proof does not lead to the checkpoint root", NULL },
		{ renumber, "FAIL seq=31: sequence number goes back (duplicated or reordered record)", NULL },
		{ swap_checkpoint_size, "FAIL seq=3: ", NULL },
		{ not_a_sidecar, "FAIL seq=0: ", NULL },
		{ no_records, "FAIL seq=0: ", "foo.audit: sidecar \"records\" must be a non-empty array" },
		{ proof_not_hex, "FAIL seq=0: ", "foo.audit: sidecar record 1: proof step 0 is not a hex hash" },
		{ record_without_seq, "FAIL seq=0: ",
		  "foo.audit: sidecar record 1: needs \"seq\", \"record\" and \"proof\"" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fixture_write(jl.sidecar, orig, len);
		mutate(jl.sidecar, cases[i].fn);
		_cleanup_free_ char *line = verify_sidecar_line(jl.sidecar, jl.pub);
		if (strncmp(line, cases[i].want, strlen(cases[i].want)) != 0 ||
		    (cases[i].also && !strstr(line, cases[i].also)))
			fail_msg("case %zu: got '%s', want '%s...%s'", i, line, cases[i].want,
				 cases[i].also ? cases[i].also : "");
	}
	/* Another key: the checkpoint's signature is refused. */
	fixture_write(jl.sidecar, orig, len);
	fixture_keys(dir, "other", "mai.test/audit");
	_cleanup_free_ char *other = xasprintf("%s/other.pub", dir);
	_cleanup_free_ char *line = verify_sidecar_line(jl.sidecar, other);
	assert_true(strncmp(line, "FAIL seq=3: ", 12) == 0);
	assert_non_null(strstr(line, "no signature by key 'mai.test/audit'"));
	/* Past the size a sidecar may have: not read, and said so. */
	assert_int_equal(truncate(jl.sidecar, (off_t)SIDECAR_MAX_BYTES + 1), 0);
	struct audit_verify_report rep;
	assert_int_equal(audit_verify_sidecar(jl.sidecar, jl.pub, &rep), -EFBIG);
	_cleanup_free_ char *big = audit_verify_report_line(&rep);
	audit_verify_report_clear(&rep);
	if (strncmp(big, "FAIL seq=0: ", 12) != 0 || !strstr(big, "foo.audit: cannot read: File too large"))
		fail_msg("a sidecar past the limit: %s", big);
	free(jl.sidecar);
	free(jl.pub);
}

/* A sidecar that is not JSON, or JSON that is no sidecar: refused with
 * where and why. */
static void test_sidecar_parse_refusals(void **state)
{
	(void)state;
	struct sidecar sc;
	char *err = NULL;
	const char *text = "{\"format\": ";
	assert_int_equal(sidecar_parse(text, strlen(text), &sc, &err), -EBADMSG);
	assert_true(strncmp(err, "not JSON: line 1 column ", 24) == 0);
	free(err);
	err = NULL;
	text = "{\"format\": \"something else\"}";
	assert_int_equal(sidecar_parse(text, strlen(text), &sc, &err), -EBADMSG);
	assert_non_null(strstr(err, "not a Mai audit sidecar"));
	free(err);
	sidecar_clear(&sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_note_sign_and_open),
		cmocka_unit_test_setup_teardown(test_sidecar_verifies_alone, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_edits_fail, testdir_setup, testdir_teardown),
		cmocka_unit_test(test_sidecar_parse_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
