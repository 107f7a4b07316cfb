/* The fuse_operations table of the maiaudit view. Its private data (the
 * user_data given to fuse_new) must be a struct view_ctx. */
#ifndef MAI_VIEW_FUSE_H
#define MAI_VIEW_FUSE_H

#ifndef FUSE_USE_VERSION
#define FUSE_USE_VERSION 31
#endif
#include <fuse.h>

/* The static table; the first call also records the mount time that the
 * directories report. */
const struct fuse_operations *view_fuse_ops(void);

#endif
