#include "checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "macro.h"

char *checkpoint_format(const char *origin, uint64_t size, const uint8_t root[MERKLE_HASH_LEN])
{
	_cleanup_free_ char *b64 = note_base64_encode(root, MERKLE_HASH_LEN);
	return xasprintf("%s\n%" PRIu64 "\n%s\n", origin, size, b64);
}

int checkpoint_parse(const char *text, struct checkpoint *ck, const char **why)
{
	memset(ck, 0, sizeof(*ck));
	const char *l1 = strchr(text, '\n');
	const char *l2 = l1 ? strchr(l1 + 1, '\n') : NULL;
	const char *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	if (!l3 || l1 == text) {
		*why = "checkpoint needs origin, tree size and root hash lines";
		return -EBADMSG;
	}
	/* Tree size: ASCII decimal, no leading zeros (C2SP tlog-checkpoint). */
	const char *p = l1 + 1;
	size_t nd = (size_t)(l2 - p);
	if (nd == 0 || nd > 19 || (nd > 1 && *p == '0')) {
		*why = "checkpoint tree size is not a decimal number";
		return -EBADMSG;
	}
	uint64_t size = 0;
	for (; p < l2; p++) {
		if (*p < '0' || *p > '9') {
			*why = "checkpoint tree size is not a decimal number";
			return -EBADMSG;
		}
		size = size * 10 + (uint64_t)(*p - '0');
	}
	uint8_t root[48];
	size_t rl = 0;
	/* 32 bytes are exactly 44 base64 characters; checked before decoding so
	 * that a long line cannot overrun root (found by the fuzz target). */
	if (l3 - l2 - 1 != 44 || note_base64_decode(l2 + 1, 44, root, &rl) < 0 || rl != MERKLE_HASH_LEN) {
		*why = "checkpoint root hash is not 32 bytes of base64";
		return -EBADMSG;
	}
	/* Extension lines, when any, are non-empty (C2SP tlog-checkpoint). */
	for (const char *e = l3 + 1; *e; e = strchr(e, '\n') + 1) {
		if (*e == '\n' || !strchr(e, '\n')) {
			*why = "checkpoint has an empty or unterminated extension line";
			return -EBADMSG;
		}
	}
	ck->origin = xstrndup(text, (size_t)(l1 - text));
	ck->size = size;
	memcpy(ck->root, root, MERKLE_HASH_LEN);
	return 0;
}

int checkpoint_sign(const struct note_signer *s, const char *origin, uint64_t size,
		    const uint8_t root[MERKLE_HASH_LEN], char **note)
{
	_cleanup_free_ char *body = checkpoint_format(origin, size, root);
	return note_sign(s, body, note);
}

int checkpoint_open(const struct note_verifier *v, const char *note, size_t len,
		    struct checkpoint *ck, char **err)
{
	_cleanup_free_ char *text = NULL;
	int r = note_open(v, note, len, &text, err);
	if (r < 0)
		return r;
	const char *why;
	r = checkpoint_parse(text, ck, &why);
	if (r < 0)
		*err = xstrdup(why);
	return r;
}

void checkpoint_clear(struct checkpoint *ck)
{
	free(ck->origin);
	ck->origin = NULL;
}
