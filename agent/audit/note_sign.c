#include "note_sign.h"

#include <errno.h>
#include <openssl/evp.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "macro.h"
#include "utf8.h"

#define ED25519_LEN 32
#define ED25519_SIG_LEN 64
#define ALG_ED25519 0x01
#define KEY_FILE_MAX 4096
#define NOTE_MAX (1u << 20)
/* Go's sumdb/note refuses notes with more signatures than this. */
#define NOTE_MAX_SIGNATURES 100

static const char dash[] = "\xe2\x80\x94 "; /* U+2014 EM DASH and a space */

struct note_signer {
	char *name;
	uint8_t id[4];
	uint8_t pub[ED25519_LEN];
	EVP_PKEY *pkey;
};

struct note_verifier {
	char *name;
	uint8_t id[4];
	EVP_PKEY *pkey;
};

char *note_base64_encode(const uint8_t *in, size_t len)
{
	char *out = xmalloc(4 * ((len + 2) / 3) + 1);
	EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	return out;
}

int note_base64_decode(const char *in, size_t in_len, uint8_t *out, size_t *len)
{
	if (in_len == 0 || in_len % 4 != 0 || in_len > 1 << 20)
		return -EINVAL;
	for (size_t i = 0; i < in_len; i++) {
		char c = in[i];
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
			 c == '+' || c == '/' || (c == '=' && i >= in_len - 2);
		if (!ok || (c != '=' && i > 0 && in[i - 1] == '='))
			return -EINVAL;
	}
	int n = EVP_DecodeBlock(out, (const unsigned char *)in, (int)in_len);
	if (n < 0)
		return -EINVAL;
	/* EVP_DecodeBlock counts padding as zero bytes. */
	if (in[in_len - 1] == '=')
		n--;
	if (in[in_len - 2] == '=')
		n--;
	*len = (size_t)n;
	return 0;
}

/* Why n bytes of note text break C2SP signed-note's text rules (valid UTF-8,
 * no ASCII control character but newline), or NULL when they do not. */
static const char *text_problem(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		int k = utf8_decode(s + i, n - i, &cp);
		if (k < 0)
			return "not valid UTF-8";
		if ((cp < 0x20 && cp != '\n') || cp == 0x7f)
			return "an ASCII control character";
		i += (size_t)k;
	}
	return NULL;
}

/* A key name as C2SP signed-note (and Go's note.isValidName) wants it:
 * non-empty UTF-8 without Unicode spaces or '+', and, being part of a note,
 * without control characters. */
int note_name_valid(const char *name, size_t n)
{
	uint32_t cp;

	if (n == 0 || n > 256 || text_problem(name, n))
		return 0;
	for (size_t i = 0; i < n;) {
		int k = utf8_decode(name + i, n - i, &cp);
		if (cp == '+' || cp == '\n' || utf8_is_space(cp))
			return 0;
		i += (size_t)k;
	}
	return 1;
}

static int name_ok(const char *name)
{
	return note_name_valid(name, strlen(name));
}

static void key_id(const char *name, const uint8_t pub[ED25519_LEN], uint8_t id[4])
{
	size_t n = strlen(name);
	_cleanup_free_ uint8_t *buf = xmalloc(n + 2 + ED25519_LEN);
	uint8_t digest[HASH_SHA256_LEN];
	memcpy(buf, name, n);
	buf[n] = '\n';
	buf[n + 1] = ALG_ED25519;
	memcpy(buf + n + 2, pub, ED25519_LEN);
	hash_sha256(buf, n + 2 + ED25519_LEN, digest);
	memcpy(id, digest, 4);
}

static char *key_text(const char *prefix, const char *name, const uint8_t id[4], const uint8_t key[ED25519_LEN])
{
	uint8_t raw[1 + ED25519_LEN];
	char hex[9];
	raw[0] = ALG_ED25519;
	memcpy(raw + 1, key, ED25519_LEN);
	hash_to_hex(id, 4, hex);
	_cleanup_free_ char *b64 = note_base64_encode(raw, sizeof(raw));
	return xasprintf("%s%s+%s+%s\n", prefix, name, hex, b64);
}

int note_keygen(const char *name, char **private_text, char **public_text)
{
	if (!name_ok(name))
		return -EINVAL;
	EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (!pkey)
		return -EIO;
	uint8_t seed[ED25519_LEN], pub[ED25519_LEN], id[4];
	size_t sl = sizeof(seed), pl = sizeof(pub);
	int ok = EVP_PKEY_get_raw_private_key(pkey, seed, &sl) == 1 &&
		 EVP_PKEY_get_raw_public_key(pkey, pub, &pl) == 1;
	EVP_PKEY_free(pkey);
	if (!ok)
		return -EIO;
	key_id(name, pub, id);
	*private_text = key_text("PRIVATE+KEY+", name, id, seed);
	*public_text = key_text("", name, id, pub);
	explicit_bzero(seed, sizeof(seed));
	return 0;
}

/* Splits "[prefix]name+hash+base64" and checks the hash. key gets 32 bytes. */
static int parse_key(const char *text, const char *prefix, char **name, uint8_t id[4],
		     uint8_t key[ED25519_LEN], char **err)
{
	size_t plen = strlen(prefix);
	if (strncmp(text, prefix, plen) != 0) {
		*err = xasprintf("does not start with '%s'", plen ? prefix : "a key name");
		return -EINVAL;
	}
	_cleanup_free_ char *s = xstrdup(text + plen);
	s[strcspn(s, "\r\n")] = '\0';
	char *p1 = strchr(s, '+');
	char *p2 = p1 ? strchr(p1 + 1, '+') : NULL;
	if (!p1 || !p2) {
		*err = xstrdup("expected NAME+HASH+BASE64KEY");
		return -EINVAL;
	}
	*p1 = *p2 = '\0';
	uint8_t raw[64];
	size_t rawlen = 0;
	if (!name_ok(s) || strlen(p1 + 1) != 8 || hash_from_hex(p1 + 1, id, 4) < 0 ||
	    strlen(p2 + 1) > 60 || note_base64_decode(p2 + 1, strlen(p2 + 1), raw, &rawlen) < 0 ||
	    rawlen != 1 + ED25519_LEN || raw[0] != ALG_ED25519) {
		*err = xstrdup("malformed name, key hash or Ed25519 key");
		return -EINVAL;
	}
	memcpy(key, raw + 1, ED25519_LEN);
	explicit_bzero(raw, sizeof(raw));
	*name = xstrdup(s);
	return 0;
}

int note_signer_parse(const char *text, struct note_signer **out, char **err)
{
	char *name = NULL;
	uint8_t id[4], seed[ED25519_LEN], want[4];
	int r = parse_key(text, "PRIVATE+KEY+", &name, id, seed, err);
	if (r < 0)
		return r;
	EVP_PKEY *pkey = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, ED25519_LEN);
	explicit_bzero(seed, sizeof(seed));
	struct note_signer *s = xcalloc(1, sizeof(*s));
	s->name = name;
	s->pkey = pkey;
	size_t pl = ED25519_LEN;
	if (!pkey || EVP_PKEY_get_raw_public_key(pkey, s->pub, &pl) != 1) {
		note_signer_free(s);
		*err = xstrdup("OpenSSL rejected the Ed25519 key");
		return -EINVAL;
	}
	key_id(name, s->pub, want);
	if (memcmp(want, id, 4) != 0) {
		note_signer_free(s);
		*err = xstrdup("key hash does not match the key (edited or corrupted key file)");
		return -EINVAL;
	}
	memcpy(s->id, id, 4);
	*out = s;
	return 0;
}

int note_verifier_parse(const char *text, struct note_verifier **out, char **err)
{
	char *name = NULL;
	uint8_t id[4], pub[ED25519_LEN], want[4];
	if (strncmp(text, "PRIVATE+KEY+", 12) == 0) {
		*err = xstrdup("this is a private key; give the public (verifier) key");
		return -EINVAL;
	}
	int r = parse_key(text, "", &name, id, pub, err);
	if (r < 0)
		return r;
	key_id(name, pub, want);
	EVP_PKEY *pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, ED25519_LEN);
	if (memcmp(want, id, 4) != 0 || !pkey) {
		EVP_PKEY_free(pkey);
		free(name);
		*err = xstrdup("key hash does not match the key (edited or corrupted key file)");
		return -EINVAL;
	}
	struct note_verifier *v = xcalloc(1, sizeof(*v));
	v->name = name;
	v->pkey = pkey;
	memcpy(v->id, id, 4);
	*out = v;
	return 0;
}

static int load_then(const char *path, char **err, char **text)
{
	size_t len;
	int r = fileio_read_path(path, KEY_FILE_MAX, text, &len);
	if (r < 0)
		*err = xasprintf("%s: cannot read key: %s", path, strerror(-r));
	return r;
}

int note_signer_load(const char *path, struct note_signer **out, char **err)
{
	_cleanup_free_ char *text = NULL, *detail = NULL;
	int r = load_then(path, err, &text);
	if (r < 0)
		return r;
	r = note_signer_parse(text, out, &detail);
	explicit_bzero(text, strlen(text));
	if (r < 0)
		*err = xasprintf("%s: not a signing key: %s (make one with 'mai-agent keygen')", path, detail);
	return r;
}

int note_verifier_load(const char *path, struct note_verifier **out, char **err)
{
	_cleanup_free_ char *text = NULL, *detail = NULL;
	int r = load_then(path, err, &text);
	if (r < 0)
		return r;
	r = note_verifier_parse(text, out, &detail);
	if (r < 0)
		*err = xasprintf("%s: not a public key: %s", path, detail);
	return r;
}

void note_signer_free(struct note_signer *s)
{
	if (!s)
		return;
	EVP_PKEY_free(s->pkey);
	free(s->name);
	free(s);
}

void note_verifier_free(struct note_verifier *v)
{
	if (!v)
		return;
	EVP_PKEY_free(v->pkey);
	free(v->name);
	free(v);
}

char *note_signer_verifier_text(const struct note_signer *s)
{
	return key_text("", s->name, s->id, s->pub);
}

const char *note_verifier_name(const struct note_verifier *v)
{
	return v->name;
}

int note_sign(const struct note_signer *s, const char *text, char **note)
{
	size_t len = strlen(text);
	if (len == 0 || text[0] == '\n' || text[len - 1] != '\n' || strstr(text, "\n\n") ||
	    text_problem(text, len))
		return -EINVAL;
	uint8_t sig[4 + ED25519_SIG_LEN];
	size_t siglen = ED25519_SIG_LEN;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, s->pkey) == 1 &&
		 EVP_DigestSign(ctx, sig + 4, &siglen, (const uint8_t *)text, len) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok || siglen != ED25519_SIG_LEN)
		return -EIO;
	memcpy(sig, s->id, 4);
	_cleanup_free_ char *b64 = note_base64_encode(sig, sizeof(sig));
	*note = xasprintf("%s\n%s%s %s\n", text, dash, s->name, b64);
	return 0;
}

/* One signature line "— NAME BASE64" (without its newline): the name and
 * the decoded bytes (key hash and signature, caller frees). -EBADMSG when
 * the line is not one, whatever its algorithm or length. */
static int parse_signature_line(const char *line, size_t ll, const char **name, size_t *name_len,
				uint8_t **sig, size_t *sig_len)
{
	if (ll < 4 || memcmp(line, dash, 4) != 0)
		return -EBADMSG;
	const char *sp = memchr(line + 4, ' ', ll - 4);
	if (!sp)
		return -EBADMSG;
	const char *b64 = sp + 1;
	size_t b64_len = ll - (size_t)(b64 - line);
	*name = line + 4;
	*name_len = (size_t)(sp - *name);
	*sig = xmalloc(b64_len / 4 * 3 + 3);
	if (!note_name_valid(*name, *name_len) ||
	    note_base64_decode(b64, b64_len, *sig, sig_len) < 0 || *sig_len < 5) {
		free(*sig);
		*sig = NULL;
		return -EBADMSG;
	}
	return 0;
}

int note_open(const struct note_verifier *v, const char *note, size_t len, char **text, char **err)
{
	const char *why;

	if (len > NOTE_MAX || memchr(note, '\0', len)) {
		*err = xstrdup("not a signed note (binary or too large)");
		return -EBADMSG;
	}
	if ((why = text_problem(note, len))) {
		*err = xasprintf("not a signed note (%s)", why);
		return -EBADMSG;
	}
	/* The signatures start after the last blank line. */
	const char *split = NULL;
	for (const char *p = note; (p = memmem(p, len - (size_t)(p - note), "\n\n", 2)); p++)
		split = p;
	if (!split || len == 0 || note[len - 1] != '\n') {
		*err = xstrdup("not a signed note (no blank line before signatures, or no final newline)");
		return -EBADMSG;
	}
	size_t text_len = (size_t)(split - note) + 1;
	if (note[0] == '\n' || memmem(note, text_len, "\n\n", 2)) {
		*err = xstrdup("not a signed note (an empty line in its text)");
		return -EBADMSG;
	}
	/* Every line must be a well-formed signature; those by keys other
	 * than v (a witness's cosignature, of any algorithm and length) are
	 * ignored, as signed-note asks; one by v must verify. */
	const char *line = split + 2, *end = note + len;
	int found = 0, count = 0;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		const char *name;
		size_t name_len, siglen;
		_cleanup_free_ uint8_t *sig = NULL;
		if (++count > NOTE_MAX_SIGNATURES) {
			*err = xasprintf("more than %d signatures", NOTE_MAX_SIGNATURES);
			return -EBADMSG;
		}
		if (parse_signature_line(line, (size_t)(nl - line), &name, &name_len, &sig, &siglen) < 0) {
			*err = xstrdup("malformed signature line (expected '— NAME BASE64')");
			return -EBADMSG;
		}
		line = nl + 1;
		if (found || name_len != strlen(v->name) || memcmp(name, v->name, name_len) != 0 ||
		    memcmp(sig, v->id, 4) != 0)
			continue;
		found = 1;
		EVP_MD_CTX *ctx = EVP_MD_CTX_new();
		int ok = siglen == 4 + ED25519_SIG_LEN && ctx &&
			 EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, v->pkey) == 1 &&
			 EVP_DigestVerify(ctx, sig + 4, ED25519_SIG_LEN, (const uint8_t *)note, text_len) == 1;
		EVP_MD_CTX_free(ctx);
		if (!ok) {
			*err = xasprintf("signature by key '%s' does not verify", v->name);
			return -EPERM;
		}
	}
	if (!found) {
		*err = xasprintf("no signature by key '%s' (signed with another key?)", v->name);
		return -EPERM;
	}
	if (text)
		*text = xstrndup(note, text_len);
	return 0;
}
