/* On-disk layout of the audit log (one record per line, in segments):
 *
 *   <entry hash hex64> <prev hex64> <seq %012> <ckpt %012> <canonical JSON>\n
 *
 * The leaf of the Merkle tree is everything after the first 65 bytes up to
 * the newline ("prev seq ckpt json"); the entry hash is its RFC 6962 leaf
 * hash and prev is the previous record's entry hash (zeros for seq 0). ckpt
 * is the size of the latest signed checkpoint when the record was written,
 * so that an older checkpoint swapped in is noticed. Every field a verifier
 * needs sits at a fixed position: verification parses no JSON.
 *
 * Files in the log directory: seg-<first seq %012>.log (records),
 * seg-<first seq>.idx (8-byte little-endian offsets, derived, rebuilt at
 * open), tree (the Merkle tree's node hashes, derived, merkle_store.h),
 * checkpoint (signed note), pubkey (verifier key), lock. */
#ifndef MAI_AUDIT_FORMAT_H
#define MAI_AUDIT_FORMAT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define AUDIT_HASH_LEN 32
#define AUDIT_SEQ_DIGITS 12
#define AUDIT_LEAF_OFFSET 65
#define AUDIT_JSON_OFFSET (65 + 65 + AUDIT_SEQ_DIGITS + 1 + AUDIT_SEQ_DIGITS + 1)
#define AUDIT_SEQ_MAX UINT64_C(999999999999)
/* The longest record line, its newline included, for the writer, the
 * reader and the verifier alike: the writer refuses a longer one
 * (audit_event_append() cuts a record's large parts to fit first, and says
 * so in the record), and a reader or verifier that meets one reports
 * damage. A job's few records then always fit its .audit sidecar. */
#define AUDIT_RECORD_MAX ((size_t)4 << 20)

/* Now as the records' "time" (UTC, microseconds, "...T12:34:56.123456Z"). */
void audit_format_now(char out[64]);

/* Canonical JSON: sorted keys, compact, ASCII only. Caller frees. NULL when
 * json cannot be encoded (NaN, invalid UTF-8). */
char *audit_canonical_json(const json_t *json);

/* strlen(audit_canonical_json(json)), counted without encoding: no
 * allocation, and no formatting of each non-ASCII character (a 6 MiB
 * output took seconds to encode under a sanitizer, several times over
 * while a record was cut to fit). 0 when json is NULL or cannot be
 * encoded. */
size_t audit_canonical_size(const json_t *json);

/* The record body {"fields":fields,"seq":seq,"time":time,"type":type}, canonical.
 * Caller frees. */
char *audit_format_body(uint64_t seq, const char *type, const json_t *fields, const char *time);

/* A whole line (with '\n') and its entry hash. Caller frees *line. */
void audit_format_line(const uint8_t prev[AUDIT_HASH_LEN], uint64_t seq, uint64_t ckpt,
		       const char *body, char **line, size_t *len, uint8_t hash[AUDIT_HASH_LEN]);

/* Checks one line (len excludes the '\n'): its length (AUDIT_RECORD_MAX),
 * layout, its own entry hash, the sequence number and, when prev is not
 * NULL, the chain link. 0 with the entry hash (and ckpt) filled, or
 * -EBADMSG with a static reason in *why. */
int audit_format_check(const char *line, size_t len, const uint8_t *prev, uint64_t seq,
		       uint8_t hash[AUDIT_HASH_LEN], uint64_t *ckpt, const char **why);
/* The same with the previous entry hash as its 64 lower-case hex digits (the
 * previous line's first 64 bytes once that line passed): the chain link is
 * then a comparison of text, with no encoding. */
int audit_format_check_hex(const char *line, size_t len, const char *prev_hex, uint64_t seq,
			   uint8_t hash[AUDIT_HASH_LEN], uint64_t *ckpt, const char **why);

/* The retention anchor, log_dir/base, written before old segments are
 * removed: what a verifier needs to go on from record k without records
 * 0..k-1 (their Merkle subtrees and the last entry hash). Unsigned on
 * purpose: a forged anchor cannot produce the signed checkpoint's root.
 *   mai-audit-base/1\n<k>\n<entry hash of k-1>\n<subtree hash>\n...  */
struct merkle_compact;
int audit_base_write(const char *dir, const uint8_t prev[AUDIT_HASH_LEN], const struct merkle_compact *c);
/* 0, -ENOENT (no retention yet) or -EBADMSG. */
int audit_base_read(const char *dir, uint8_t prev[AUDIT_HASH_LEN], struct merkle_compact *c);

/* Sorted first sequence numbers of the segments in dir. Caller frees
 * *firsts. 0 or -errno. */
int audit_segments_list(const char *dir, uint64_t **firsts, size_t *n);
/* dir/seg-<first>.<ext>; caller frees. */
char *audit_segment_path(const char *dir, uint64_t first, const char *ext);

#endif
