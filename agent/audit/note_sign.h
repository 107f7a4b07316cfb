/* C2SP signed notes with Ed25519 (OpenSSL EVP): a text ending in a newline, a
 * blank line, and lines "— <key name> <base64(key hash[4] || signature)>".
 * key hash = SHA-256(name || 0x0A || 0x01 || public key)[:4].
 *
 * Key files (one line each, the formats Go's sumdb/note uses):
 *   private: PRIVATE+KEY+<name>+<hash hex8>+<base64(0x01 || 32-byte seed)>
 *   public (verifier key): <name>+<hash hex8>+<base64(0x01 || 32-byte key)> */
#ifndef MAI_NOTE_SIGN_H
#define MAI_NOTE_SIGN_H

#include <stddef.h>
#include <stdint.h>

struct note_signer;
struct note_verifier;

/* Is n bytes at name a key name C2SP signed-note allows: non-empty UTF-8
 * without Unicode spaces, '+' or control characters (Go's sumdb/note reads
 * no other)? */
int note_name_valid(const char *name, size_t n);

/* New key pair named name (note_name_valid). Both strings end in "\n";
 * caller frees. 0 or -EINVAL. */
int note_keygen(const char *name, char **private_text, char **public_text);

/* Parse a key from text or load it from a file. 0, -errno; *err says what is
 * wrong and where (caller frees). Free with the matching _free. */
int note_signer_parse(const char *text, struct note_signer **out, char **err);
int note_signer_load(const char *path, struct note_signer **out, char **err);
int note_verifier_parse(const char *text, struct note_verifier **out, char **err);
int note_verifier_load(const char *path, struct note_verifier **out, char **err);
void note_signer_free(struct note_signer *s);
void note_verifier_free(struct note_verifier *v);

/* The verifier key text (with "\n") for a signer; caller frees. */
char *note_signer_verifier_text(const struct note_signer *s);
const char *note_verifier_name(const struct note_verifier *v);

/* Signs text and returns the note. The text must follow signed-note's
 * rules: valid UTF-8, no control character but newline, no empty line, a
 * final newline; -EINVAL otherwise. */
int note_sign(const struct note_signer *s, const char *text, char **note);

/* Checks that note carries a valid signature by v. Signature lines by other
 * keys (witness cosignatures, any algorithm or length) are ignored; each
 * must still be a well-formed line, at most 100 in all. The text must follow
 * signed-note's rules (UTF-8, no control characters but newline, no empty
 * line). On success *text (may be NULL) receives the signed text. -EBADMSG
 * when malformed, -EPERM when no line by this key or its signature is
 * wrong; *err says which. */
int note_open(const struct note_verifier *v, const char *note, size_t len, char **text, char **err);

/* Standard base64 helpers (with padding). */
char *note_base64_encode(const uint8_t *in, size_t len);
/* 0 and *len, or -EINVAL. out must hold 3*strlen(in)/4 bytes. */
int note_base64_decode(const char *in, size_t in_len, uint8_t *out, size_t *len);

#endif
