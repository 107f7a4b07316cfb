/* A small YAML document loader on libyaml: one document into a tree of
 * scalars, mappings and sequences, each node with its position, so that the
 * code that gives the nodes a meaning (config, assessor rules) can report
 * "file:line:col: what is wrong; expected ..." for any of them.
 *
 * Deliberately narrower than YAML: anchors, aliases, tags, non-scalar
 * mapping keys, duplicate keys and multiple documents are errors, so a file
 * means exactly what it shows. */
#ifndef MAI_YAMLTREE_H
#define MAI_YAMLTREE_H

#include <stddef.h>

#include "macro.h"

enum yt_kind { YT_SCALAR, YT_MAPPING, YT_SEQUENCE };

struct yt_node {
	enum yt_kind kind;
	char *value;            /* YT_SCALAR: the text; NULL otherwise */
	int quoted;             /* YT_SCALAR: 1 when not plain (quoted or a | > block) */
	struct yt_node **items; /* YT_MAPPING: key, value, key, value...; YT_SEQUENCE: elements */
	size_t n_items;         /* number of pointers in items (twice the pairs of a mapping) */
	unsigned line, col;     /* 1-based position in the file */
};

/* Files larger than this are refused: configuration and rule files are small. */
#define YT_MAX_FILE_SIZE (4u * 1024 * 1024)
/* Deeper nesting is refused instead of recursing without bound. */
#define YT_MAX_DEPTH 64

/* Parses one YAML document. On success *root is the tree (caller frees it with
 * yt_free), or NULL when the input holds no document (empty, or only
 * comments). On failure returns -EINVAL (bad YAML) or -errno (the file cannot
 * be read: -ENOENT when it does not exist) and *err is
 * "FILE:LINE:COL: what is wrong; expected ..." (or "FILE: ..." when there is
 * no position); the caller frees *err. name is the file name used in messages. */
int yt_parse_file(const char *path, struct yt_node **root, char **err) _must_check_;
int yt_parse_buffer(const char *name, const char *buf, size_t len, struct yt_node **root,
		    char **err) _must_check_;

/* The value node of key in a mapping, or NULL when map is NULL, not a mapping,
 * or has no such key. The node belongs to the tree. */
const struct yt_node *yt_map_get(const struct yt_node *map, const char *key);

/* Name of a kind for messages: "a scalar", "a mapping", "a list". */
const char *yt_kind_to_string(enum yt_kind kind);

/* Frees a whole tree; NULL is fine. */
void yt_free(struct yt_node *root);

#endif
