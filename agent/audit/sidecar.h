/* Per-job .audit sidecars: the job's records, an inclusion proof for each and
 * the signed checkpoint they are proved against, as one JSON document:
 *   {"format":"mai-audit-sidecar/1","checkpoint":"<signed note>",
 *    "records":[{"seq":N,"record":"<log line>","proof":["<hex>",...]},...]}
 * Verifiable with the public key alone (audit_verify_sidecar). */
#ifndef MAI_SIDECAR_H
#define MAI_SIDECAR_H

#include <stddef.h>
#include <stdint.h>

#include "merkle.h"

#define SIDECAR_FORMAT "mai-audit-sidecar/1"
#define SIDECAR_MAX_BYTES ((size_t)64 << 20)

struct sidecar_record {
	uint64_t seq;
	char *line;
	size_t line_len;
	uint8_t proof[MERKLE_MAX_PROOF][MERKLE_HASH_LEN];
	size_t proof_n;
};

struct sidecar {
	char *checkpoint;
	struct sidecar_record *records;
	size_t n;
};

/* Parses sidecar text. 0 or -EBADMSG with *err (caller frees). */
int sidecar_parse(const char *text, size_t len, struct sidecar *out, char **err);
void sidecar_clear(struct sidecar *sc);

#endif
