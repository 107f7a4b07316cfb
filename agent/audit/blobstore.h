/* Content-addressed store of script versions in the state directory, so the
 * audit log can record a script's diff against its previous version:
 *
 *   <state_dir>/blobs/<first 2 hex>/<sha256 hex>     one file per content
 *   <state_dir>/blobs/names/<sha256 of the name>     hex hash of its latest version
 *   <state_dir>/blobs/ran/<sha256 of the name>       hex hash of the version that ran last
 *
 * Blobs are written once (deduplicated by hash) and checked against their
 * hash whenever read, so a corrupted blob is reported, never used. Every file
 * is written atomically with mode 0600; directories are 0700. One store may
 * be shared by threads (puts take turns); one agent owns a state directory. */
#ifndef MAI_BLOBSTORE_H
#define MAI_BLOBSTORE_H

#include <stddef.h>

#include "hash.h"
#include "macro.h"

struct blobstore;

/* Opens (creating when missing) <state_dir>/blobs. 0 or -errno; on error
 * *err says which directory and why (caller frees). The caller frees *out
 * with blobstore_free(). */
int blobstore_open(const char *state_dir, struct blobstore **out, char **err) _must_check_;
void blobstore_free(struct blobstore *store);

/* Stores data (deduplicated: an intact blob with the same hash is kept as it
 * is, a corrupted one is rewritten) and records it as the latest version of
 * name. hash_hex receives the content's SHA-256 in hex. 0 or -errno with
 * *err set (caller frees). */
int blobstore_put(struct blobstore *store, const char *name, const void *data, size_t len,
		  char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err) _must_check_;

/* The hash of the latest version recorded for name, i.e. the previous one
 * once a new version is about to be put. 0; -ENOENT when the name was never
 * seen (not an error: *err stays NULL); -EBADMSG when the index entry is
 * damaged; or -errno. *err is set on every error but -ENOENT (caller frees). */
int blobstore_previous(struct blobstore *store, const char *name,
		       char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err) _must_check_;

/* Records hash_hex (a version put before) as the one of name that ran last.
 * 0 or -errno with *err (caller frees). */
int blobstore_mark_ran(struct blobstore *store, const char *name, const char *hash_hex,
		       char **err) _must_check_;
/* The hash of the version of name that ran last: as blobstore_previous(). */
int blobstore_last_ran(struct blobstore *store, const char *name,
		       char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err) _must_check_;

/* Reads the blob with this hash (64 lower-case hex digits; anything else is
 * -EINVAL) into *data (NUL terminated; caller frees), at most max bytes.
 * -ENOENT when absent, -EFBIG when over max, -EBADMSG when its content no
 * longer matches its hash. *err says which file and what to do. */
int blobstore_get(struct blobstore *store, const char *hash_hex, size_t max,
		  char **data, size_t *len, char **err) _must_check_;

/* Path of the blob file for hash_hex (caller frees); for messages and tests. */
char *blobstore_blob_path(const struct blobstore *store, const char *hash_hex);

#endif
