/* What the files of the maiaudit view contain. Content is built once, when
 * a file is opened, into a view_file that the open handle owns: a reader
 * never sees the content change under an open descriptor. */
#ifndef MAI_VIEW_CONTENT_H
#define MAI_VIEW_CONTENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "view_log.h"
#include "view_tree.h"

/* Largest sidecar or status file the view will serve. */
#define VIEW_FILE_MAX (64u * 1024 * 1024)

struct view_ctx;

/* Paths are copied. drop_dir may be NULL: runs/ is then empty. The log is
 * taken over: view_ctx_free frees it. */
struct view_ctx *view_ctx_new(struct view_log *log, const char *state_dir, const char *drop_dir);
void view_ctx_free(struct view_ctx *ctx);

struct view_file {
	char *data;
	size_t len;
};

/* Builds the content of a regular file of the view. 0, or -ENOENT when it
 * does not exist (a record past the end, a run without an audit sidecar),
 * or -errno; the reason for anything but -ENOENT is logged. The caller frees
 * *out with view_file_free. */
int view_content_build(struct view_ctx *ctx, const struct view_path *p, struct view_file **out);
void view_file_free(struct view_file *f);

/* Copies up to size bytes from offset off; returns the count (0 at EOF). */
size_t view_file_read(const struct view_file *f, char *buf, size_t size, off_t off);

/* The size getattr reports, for tools that seek to the end (tail). For the
 * files that are recomputed at each open (verify, verify.json, status.json)
 * it is the size of the last content built, which is the one an open that
 * just happened holds; the reads themselves are direct_io and never depend
 * on it. 0 or -errno as view_content_build. */
int view_content_size(struct view_ctx *ctx, const struct view_path *p, size_t *size);

/* Whether a path in runs/ exists: the sidecar it shows is a regular file in
 * the drop directory (symlinks, FIFOs and directories do not count). */
bool view_run_exists(struct view_ctx *ctx, const struct view_path *p);

/* The valid run names in the drop directory, sorted. Names that are not
 * safe (see view_run_name_valid) are left out and logged at debug level.
 * The caller frees with view_runs_free. 0 or -errno. */
int view_runs_list(struct view_ctx *ctx, char ***names, size_t *count);
void view_runs_free(char **names, size_t count);

/* The records in the log are [first, count); both 0 when it cannot be read
 * (logged at debug level). */
void view_entries_range(struct view_ctx *ctx, bool refresh, uint64_t *first, uint64_t *count);

#endif
