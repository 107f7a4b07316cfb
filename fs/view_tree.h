/* The path table of the maiaudit view: which paths exist and what each is.
 * Parsing is pure (no I/O) so that getattr, open and readdir agree on one
 * answer, and so that it can be unit-tested without a mount. */
#ifndef MAI_VIEW_TREE_H
#define MAI_VIEW_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Digits in an entry file name: entries/NNNNNNNNNNNN.json. */
#define VIEW_ENTRY_DIGITS 12
/* Largest sequence number that fits in VIEW_ENTRY_DIGITS digits. */
#define VIEW_ENTRY_MAX 999999999999ULL
/* Longest run name shown under runs/ (NAME_MAX minus ".result.json"). */
/* The longest stem whose ".result.json" fits in a file name (NAME_MAX). */
#define VIEW_RUN_NAME_MAX 243

enum view_node {
	VIEW_NODE_ROOT,
	VIEW_NODE_VERIFY,
	VIEW_NODE_VERIFY_JSON,
	VIEW_NODE_HEAD,
	VIEW_NODE_CHECKPOINT,
	VIEW_NODE_PUBKEY,
	VIEW_NODE_STATUS,
	VIEW_NODE_METRICS,      /* Prometheus text format (daemon_metrics.h) */
	VIEW_NODE_ENTRIES_DIR,
	VIEW_NODE_ENTRY,        /* entries/NNNNNNNNNNNN.json; seq set */
	VIEW_NODE_RUNS_DIR,
	VIEW_NODE_RUN_DIR,      /* runs/<name>; run_name set */
	VIEW_NODE_RUN_RESULT,   /* runs/<name>/result.json */
	VIEW_NODE_RUN_AUDIT,    /* runs/<name>/audit */
};

struct view_path {
	enum view_node node;
	uint64_t seq;
	/* Points into the parsed path (not a copy): valid while it is;
	 * run_name_len bytes, not NUL terminated. */
	const char *run_name;
	size_t run_name_len;
};

/* Parses an absolute path as FUSE passes it ("/", "/verify", ...).
 * Returns 0, or -ENOENT for a path that is not part of the view. Existence
 * of an entry number or a run is not checked here: the caller asks the log
 * or the drop directory. */
int view_path_parse(const char *path, struct view_path *out);

const char *view_node_to_string(enum view_node node);
bool view_node_is_dir(enum view_node node);

/* Formats the file name of entry seq ("000000000042.json") into buf, which
 * holds at least VIEW_ENTRY_NAME_SIZE bytes. */
#define VIEW_ENTRY_NAME_SIZE (VIEW_ENTRY_DIGITS + sizeof(".json"))
void view_entry_name(uint64_t seq, char *buf);

/* A run name is what precedes ".result.json" in the drop directory. It is
 * shown only when it is safe as one path component and printable: not empty,
 * not "." or "..", no '/', no control bytes (newlines included), no leading
 * '.', at most VIEW_RUN_NAME_MAX bytes, valid UTF-8. */
bool view_run_name_valid(const char *name, size_t len);

/* The names in the root directory, in listing order, NULL terminated. */
#define VIEW_ROOT_COUNT 9
extern const char *const view_root_names[];

#endif
