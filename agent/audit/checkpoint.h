/* C2SP tlog-checkpoint bodies: "<origin>\n<tree size>\n<base64 root>\n",
 * carried in a signed note (note_sign.h). */
#ifndef MAI_CHECKPOINT_H
#define MAI_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "merkle.h"
#include "note_sign.h"

struct checkpoint {
	char *origin;
	uint64_t size;
	uint8_t root[MERKLE_HASH_LEN];
};

/* The unsigned body; caller frees. */
char *checkpoint_format(const char *origin, uint64_t size, const uint8_t root[MERKLE_HASH_LEN]);
/* Parses a body (extension lines after the root are allowed and ignored).
 * 0 or -EBADMSG with a static reason in *why. Free with checkpoint_clear. */
int checkpoint_parse(const char *text, struct checkpoint *ck, const char **why);
/* Signs a checkpoint; *note is the signed note text; caller frees. */
int checkpoint_sign(const struct note_signer *s, const char *origin, uint64_t size,
		    const uint8_t root[MERKLE_HASH_LEN], char **note);
/* Verifies a signed checkpoint note and parses it. 0, -EBADMSG (malformed)
 * or -EPERM (signature); *err (caller frees). */
int checkpoint_open(const struct note_verifier *v, const char *note, size_t len,
		    struct checkpoint *ck, char **err);
void checkpoint_clear(struct checkpoint *ck);

#endif
