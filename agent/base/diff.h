/* Unified diff of two byte buffers (a script's previous and current version),
 * for the audit log. Myers' O(ND) greedy algorithm with an edit-distance cap:
 * past diff_options.max_edits the diff falls back to one replace hunk, so a
 * huge or unrelated input costs bounded time and memory. Output is capped at
 * max_bytes (the audit.diff_max setting), cut at a line boundary. Binary-safe:
 * lines are byte ranges, NUL bytes are ordinary content. */
#ifndef MAI_DIFF_H
#define MAI_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

#define DIFF_DEFAULT_CONTEXT   3
#define DIFF_DEFAULT_MAX_EDITS 1000
/* The walk-back trace takes (D+1)^2 words, so larger caps are clamped to
 * this (about 130 MB at most). */
#define DIFF_MAX_EDITS_LIMIT   4096

struct diff_options {
	/* Shown as "--- a/NAME" and "+++ b/NAME"; control characters are
	 * replaced by '?' so a hostile file name cannot forge diff lines. */
	const char *name;
	size_t max_bytes;   /* cap on the output (audit.diff_max); 0 means no cap */
	size_t max_edits;   /* Myers D cap; 0: DIFF_DEFAULT_MAX_EDITS; clamped to the limit */
	unsigned context;   /* context lines around a change (diff -u uses 3) */
};

struct diff_result {
	char *text;         /* the unified diff, NUL terminated; "" when equal */
	size_t len;         /* bytes in text, excluding the NUL (text may hold NULs) */
	bool truncated;     /* output was cut at max_bytes */
	bool capped;        /* max_edits was reached: one whole replace hunk */
	size_t lines_added;
	size_t lines_removed;
	size_t hunks;       /* hunks computed, including any cut by truncation */
};

/* Fills opts with the defaults: context 3, DIFF_DEFAULT_MAX_EDITS, no cap. */
void diff_options_init(struct diff_options *opts, const char *name);

/* Diffs old_buf against new_buf (either may be NULL when its length is 0).
 * Always succeeds (allocation failure aborts); the caller frees out->text
 * with diff_result_clear() or free(). */
void diff_unified(const char *old_buf, size_t old_len, const char *new_buf, size_t new_len,
		  const struct diff_options *opts, struct diff_result *out) _nonnull_(5, 6);

/* Frees out->text and zeroes the struct. */
void diff_result_clear(struct diff_result *res);

#endif
