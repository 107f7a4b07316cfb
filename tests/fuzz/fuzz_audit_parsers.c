/* libFuzzer target for the parsers that read untrusted audit input: a log
 * line, a checkpoint body, a signed note and a sidecar. The first byte picks
 * the parser. Built with -Dfuzz=true and CC=clang; replay.c runs the seed
 * corpus through the same function in the normal build. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "audit_format.h"
#include "checkpoint.h"
#include "macro.h"
#include "note_sign.h"
#include "sidecar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct note_verifier *verifier(void)
{
	static struct note_verifier *v;
	if (!v) {
		char *priv = NULL, *pub = NULL, *err = NULL;
		if (note_keygen("mai.fuzz/audit", &priv, &pub) < 0 || note_verifier_parse(pub, &v, &err) < 0)
			abort();
		free(priv);
		free(pub);
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t which = data[0] % 4;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char *copy = xstrndup(text, len); /* the parsers that take C strings */
	switch (which) {
	case 0: {
		uint8_t h[32], prev[32] = { 0 };
		uint64_t ckpt;
		const char *why;
		(void)audit_format_check(text, len, prev, 0, h, &ckpt, &why);
		(void)audit_format_check(text, len, NULL, 7, h, NULL, &why);
		break;
	}
	case 1: {
		struct checkpoint ck;
		const char *why;
		if (checkpoint_parse(copy, &ck, &why) == 0)
			checkpoint_clear(&ck);
		break;
	}
	case 2: {
		char *out = NULL, *err = NULL;
		(void)note_open(verifier(), text, len, &out, &err);
		free(out);
		free(err);
		err = NULL;
		struct note_verifier *v = NULL;
		if (note_verifier_parse(copy, &v, &err) == 0)
			note_verifier_free(v);
		free(err);
		break;
	}
	case 3: {
		struct sidecar sc;
		char *err = NULL;
		if (sidecar_parse(text, len, &sc, &err) == 0)
			sidecar_clear(&sc);
		free(err);
		break;
	}
	}
	free(copy);
	return 0;
}
