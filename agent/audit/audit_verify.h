/* Offline verification of an audit log or of one job's .audit sidecar. This is
 * the code that `mai-agent verify` and the FUSE view (maiaudit) both run. */
#ifndef MAI_AUDIT_VERIFY_H
#define MAI_AUDIT_VERIFY_H

#include <jansson.h>
#include <stdint.h>

#include "merkle.h"

enum audit_checkpoint_status {
	AUDIT_CKPT_OK,            /* signed, and its root matches the log at its size */
	AUDIT_CKPT_MISSING,       /* no checkpoint file next to the log */
	AUDIT_CKPT_BAD_SIGNATURE, /* no valid signature by the given public key */
	AUDIT_CKPT_MISMATCH,      /* size or root does not match the log */
	AUDIT_CKPT_STALE,         /* valid and matching, but older than the log: fine */
};

/* "ok", "missing", "bad-signature", "mismatch", "stale". Static string. */
const char *audit_checkpoint_status_to_string(enum audit_checkpoint_status s);

struct audit_verify_report {
	int ok;                   /* 1 when nothing was found wrong */
	uint64_t entries;         /* records read (including dropped by retention) */
	char head_hex[65];        /* entry hash of the last record, "" when empty */
	enum audit_checkpoint_status checkpoint;
	uint64_t checkpoint_size; /* tree size the checkpoint signs, 0 when none */
	uint64_t first_bad_seq;   /* valid when !ok */
	char *reason;             /* NULL when ok; owned by the report */
	/* --since: the RFC 9162 consistency proof from the kept checkpoint to
	 * the log's own signed checkpoint, computed from the log and checked
	 * against both signed roots. */
	int consistency_checked;  /* a proof was computed and checked */
	int consistency_ok;
	uint64_t consistency_from, consistency_to;
	size_t consistency_proof_n;
	uint8_t consistency_proof[MERKLE_MAX_PROOF][MERKLE_HASH_LEN];
};

/* Verifies the whole log in log_dir against the public key (a signed-note
 * verifier key file, see note_sign.h; NULL means log_dir/pubkey, which only
 * proves consistency, not authorship). Returns 0 when verification ran (see
 * rep->ok), -errno when the log cannot be read. The caller clears rep. */
int audit_verify_log(const char *log_dir, const char *pubkey_path, struct audit_verify_report *rep);

/* As audit_verify_log, and also proves that the log extends the signed
 * checkpoint in since_path: a consistency proof from its size to the size of
 * the log's checkpoint, computed from the log's records, must lead from the
 * kept root to the log's signed root (rep->consistency_*). */
int audit_verify_log_since(const char *log_dir, const char *pubkey_path, const char *since_path,
			   struct audit_verify_report *rep);

/* Verifies one .audit sidecar with nothing but the public key. Same returns. */
int audit_verify_sidecar(const char *sidecar_path, const char *pubkey_path,
			 struct audit_verify_report *rep);

/* "OK n=... head=... checkpoint=ok" (then " consistency=ok from=M to=N
 * proof=K" after --since) or "FAIL seq=N: reason". Caller frees. */
char *audit_verify_report_line(const struct audit_verify_report *rep);
/* The same as a new JSON object; caller decrefs. */
json_t *audit_verify_report_json(const struct audit_verify_report *rep);
/* Frees what the report owns and zeroes it. */
void audit_verify_report_clear(struct audit_verify_report *rep);

#endif
