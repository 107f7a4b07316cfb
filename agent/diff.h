/* Line diffs in unified format (Myers' O((N+M)D) algorithm), for the audit
 * record that shows how a script changed since its previous version. */
#ifndef MAI_DIFF_H
#define MAI_DIFF_H

#include <stddef.h>

/* Edit distances above this are reported as a whole-file replacement, which
 * is still a correct diff, to bound time and memory (O(D^2)). */
#define DIFF_MAX_EDITS 1000

/* Unified diff of old -> new with 3 lines of context and "--- a/NAME",
 * "+++ b/NAME" headers; "" when equal. At most max bytes are kept (cut at a
 * line end) and *truncated says whether anything was cut. Caller frees. */
char *diff_unified(const char *name, const char *old, size_t old_len, const char *new_text, size_t new_len,
		   size_t max, int *truncated);

#endif
