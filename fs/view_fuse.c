/* The FUSE operations of maiaudit, the read-only view of the audit log.
 *
 * Every file's content is built when it is opened and kept with the open
 * handle (fi->fh), so that a reader sees one consistent snapshot; reads are
 * direct_io and served from that snapshot at any offset. Nothing is ever
 * written: the mount is read-only and every modifying call answers EROFS
 * even if the kernel lets one through. */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "log.h"
#include "macro.h"
#include "view_content.h"
#include "view_fuse.h"
#include "view_tree.h"

static time_t mount_time;

static struct view_ctx *ctx_get(void)
{
	return fuse_get_context()->private_data;
}

/* ---- handles --------------------------------------------------------- */

/* An open directory: what it lists is fixed at opendir, like file content. */
struct view_dir {
	enum view_node node;
	uint64_t first;     /* entries/: records [first, count) when opened */
	uint64_t count;
	char **names;       /* runs/: run names; runs/<name>/: file names */
	size_t n;
};

static void view_dir_free(struct view_dir *d)
{
	if (!d)
		return;
	view_runs_free(d->names, d->n);
	free(d);
}

/* Every open file and directory. A reader that still holds one when the
 * view stops never sends its release (the session has ended), so what is
 * left here is freed when the file system is destroyed. */
struct handle {
	struct handle *prev, *next;
	void *obj;      /* struct view_file or struct view_dir */
	bool dir;
};
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static struct handle *handles;

static void handle_obj_free(struct handle *h)
{
	if (h->dir)
		view_dir_free(h->obj);
	else
		view_file_free(h->obj);
	free(h);
}

static uint64_t handle_new(void *obj, bool dir)
{
	struct handle *h = xcalloc(1, sizeof(*h));
	h->obj = obj;
	h->dir = dir;
	pthread_mutex_lock(&handles_lock);
	h->next = handles;
	if (handles)
		handles->prev = h;
	handles = h;
	pthread_mutex_unlock(&handles_lock);
	return (uint64_t)(uintptr_t)h;
}

static void *handle_get(const struct fuse_file_info *fi)
{
	const struct handle *h = (const struct handle *)(uintptr_t)fi->fh;
	return h ? h->obj : NULL;
}

static void handle_release(struct fuse_file_info *fi)
{
	struct handle *h = (struct handle *)(uintptr_t)fi->fh;
	if (!h)
		return;
	pthread_mutex_lock(&handles_lock);
	if (h->prev)
		h->prev->next = h->next;
	else
		handles = h->next;
	if (h->next)
		h->next->prev = h->prev;
	pthread_mutex_unlock(&handles_lock);
	handle_obj_free(h);
	fi->fh = 0;
}

/* ---- attributes ------------------------------------------------------ */

static void fill_stat(struct stat *st, bool dir, size_t size, time_t when)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = dir ? (S_IFDIR | 0555) : (S_IFREG | 0444);
	st->st_nlink = dir ? 2 : 1;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_size = (off_t)size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((size + 511) / 512);
	st->st_atime = st->st_mtime = st->st_ctime = when;
}

/* Whether the thing a parsed path names is there right now. */
static int node_exists(struct view_ctx *ctx, const struct view_path *p)
{
	switch (p->node) {
	case VIEW_NODE_ENTRY: {
		/* Records only get appended: refresh only for a number past the
		 * end as last seen. */
		uint64_t first, count;
		view_entries_range(ctx, false, &first, &count);
		if (p->seq >= count)
			view_entries_range(ctx, true, &first, &count);
		return p->seq >= first && p->seq < count ? 0 : -ENOENT;
	}
	case VIEW_NODE_RUN_DIR: {
		struct view_path q = *p;
		q.node = VIEW_NODE_RUN_RESULT;
		return view_run_exists(ctx, &q) ? 0 : -ENOENT;
	}
	case VIEW_NODE_RUN_RESULT:
	case VIEW_NODE_RUN_AUDIT:
		return view_run_exists(ctx, p) ? 0 : -ENOENT;
	default:
		return 0;
	}
}

static int op_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct view_ctx *ctx = ctx_get();
	struct view_path p;
	int r = view_path_parse(path, &p);
	if (r < 0)
		return r;
	if (fi && fi->fh && !view_node_is_dir(p.node)) {
		/* fstat on an open file: the size of what this handle holds. */
		const struct view_file *f = handle_get(fi);
		fill_stat(st, false, f->len, time(NULL));
		return 0;
	}
	r = node_exists(ctx, &p);
	if (r < 0)
		return r;
	if (view_node_is_dir(p.node)) {
		fill_stat(st, true, 0, mount_time);
		return 0;
	}
	size_t size = 0;
	r = view_content_size(ctx, &p, &size);
	/* A file that exists but cannot be built now (the log is unreadable)
	 * is still listed; opening it reports the error, and the log says why. */
	if (r == -ENOENT)
		return r;
	fill_stat(st, false, size, p.node == VIEW_NODE_ENTRY ? mount_time : time(NULL));
	return 0;
}

/* ---- files ----------------------------------------------------------- */

static int op_open(const char *path, struct fuse_file_info *fi)
{
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & (O_TRUNC | O_CREAT)))
		return -EROFS;
	struct view_ctx *ctx = ctx_get();
	struct view_path p;
	int r = view_path_parse(path, &p);
	if (r < 0)
		return r;
	if (view_node_is_dir(p.node))
		return -EISDIR;
	r = node_exists(ctx, &p);
	if (r < 0)
		return r;
	struct view_file *f = NULL;
	r = view_content_build(ctx, &p, &f);
	if (r < 0)
		return r;
	fi->fh = handle_new(f, false);
	/* Sizes of recomputed files are known only once built: reads must
	 * reach us whatever size getattr reported. */
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int op_read(const char *path, char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi)
{
	const struct view_file *f = handle_get(fi);
	if (!f)
		return -EBADF;
	return (int)view_file_read(f, buf, size, off);
}

static int op_release(const char *path, struct fuse_file_info *fi)
{
	handle_release(fi);
	return 0;
}

/* ---- directories ----------------------------------------------------- */

static int op_opendir(const char *path, struct fuse_file_info *fi)
{
	struct view_ctx *ctx = ctx_get();
	struct view_path p;
	int r = view_path_parse(path, &p);
	if (r < 0)
		return r;
	if (!view_node_is_dir(p.node))
		return -ENOTDIR;
	r = node_exists(ctx, &p);
	if (r < 0)
		return r;
	struct view_dir *d = xcalloc(1, sizeof(*d));
	d->node = p.node;
	if (p.node == VIEW_NODE_ENTRIES_DIR) {
		view_entries_range(ctx, true, &d->first, &d->count);
	} else if (p.node == VIEW_NODE_RUNS_DIR) {
		(void)view_runs_list(ctx, &d->names, &d->n);
	} else if (p.node == VIEW_NODE_RUN_DIR) {
		d->names = xcalloc(2, sizeof(char *));
		d->names[d->n++] = xstrdup("result.json");
		struct view_path q = p;
		q.node = VIEW_NODE_RUN_AUDIT;
		if (view_run_exists(ctx, &q))
			d->names[d->n++] = xstrdup("audit");
	}
	fi->fh = handle_new(d, true);
	return 0;
}

/* Offsets: 1 after ".", 2 after "..", then 3 + i after the i-th name, so
 * that a listing resumes where the kernel's buffer filled up. */
static int op_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off,
		      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	const struct view_dir *d = handle_get(fi);
	struct stat st;
	if (!d)
		return -EBADF;
	fill_stat(&st, true, 0, mount_time);
	if (off < 1 && filler(buf, ".", &st, 1, 0))
		return 0;
	if (off < 2 && filler(buf, "..", &st, 2, 0))
		return 0;
	uint64_t first = off > 2 ? (uint64_t)off - 2 : 0;

	switch (d->node) {
	case VIEW_NODE_ROOT:
		for (uint64_t i = first; i < VIEW_ROOT_COUNT; i++) {
			bool dir = strcmp(view_root_names[i], "entries") == 0 ||
				   strcmp(view_root_names[i], "runs") == 0;
			fill_stat(&st, dir, 0, mount_time);
			if (filler(buf, view_root_names[i], &st, (off_t)(i + 3), 0))
				break;
		}
		break;
	case VIEW_NODE_ENTRIES_DIR: {
		char name[VIEW_ENTRY_NAME_SIZE];
		fill_stat(&st, false, 0, mount_time);
		/* Offsets count from the first record kept, so that retention
		 * does not make a listing start with a run of holes. */
		for (uint64_t i = first; d->first + i < d->count &&
					 d->first + i <= VIEW_ENTRY_MAX; i++) {
			view_entry_name(d->first + i, name);
			if (filler(buf, name, &st, (off_t)(i + 3), 0))
				break;
		}
		break;
	}
	default:
		fill_stat(&st, d->node == VIEW_NODE_RUNS_DIR, 0, mount_time);
		for (uint64_t i = first; i < d->n; i++) {
			if (filler(buf, d->names[i], &st, (off_t)(i + 3), 0))
				break;
		}
		break;
	}
	return 0;
}

static int op_releasedir(const char *path, struct fuse_file_info *fi)
{
	handle_release(fi);
	return 0;
}

/* ---- everything that would modify: EROFS ------------------------------ */

static int op_rofs_mode(const char *path, mode_t mode) { return -EROFS; }
static int op_rofs_path(const char *path) { return -EROFS; }
static int op_rofs_2path(const char *from, const char *to) { return -EROFS; }
static int op_mknod(const char *path, mode_t mode, dev_t dev) { return -EROFS; }
static int op_rename(const char *from, const char *to, unsigned int flags) { return -EROFS; }
static int op_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) { return -EROFS; }
static int op_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	return -EROFS;
}
static int op_truncate(const char *path, off_t size, struct fuse_file_info *fi) { return -EROFS; }
static int op_write(const char *path, const char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	return -EROFS;
}
static int op_create(const char *path, mode_t mode, struct fuse_file_info *fi) { return -EROFS; }
static int op_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	return -EROFS;
}
static int op_setxattr(const char *path, const char *name, const char *value, size_t size,
		       int flags)
{
	return -EROFS;
}
static int op_removexattr(const char *path, const char *name) { return -EROFS; }
static int op_fallocate(const char *path, int mode, off_t off, off_t len,
			struct fuse_file_info *fi)
{
	return -EROFS;
}

static int op_statfs(const char *path, struct statvfs *sv)
{
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = 4096;
	sv->f_frsize = 4096;
	sv->f_namemax = 255;
	sv->f_flag = ST_RDONLY | ST_NOSUID | ST_NODEV;
	return 0;
}

static void *op_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Attributes change under us (verify, status.json, new records): ask
	 * every time. Names under entries/ never change meaning. */
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 1;
	cfg->negative_timeout = 0;
	cfg->kernel_cache = 0;
	/* Plain readdir: with readdirplus the library would look up every
	 * name, i.e. read every record, for a mere 'ls entries'. */
	conn->want &= ~FUSE_CAP_READDIRPLUS;
	return fuse_get_context()->private_data;
}

/* The handles readers still held when the view stopped. */
static void op_destroy(void *private_data)
{
	pthread_mutex_lock(&handles_lock);
	while (handles) {
		struct handle *h = handles;
		handles = h->next;
		handle_obj_free(h);
	}
	pthread_mutex_unlock(&handles_lock);
}

static const struct fuse_operations view_ops = {
	.init = op_init,
	.destroy = op_destroy,
	.getattr = op_getattr,
	.open = op_open,
	.read = op_read,
	.release = op_release,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_releasedir,
	.statfs = op_statfs,
	.mknod = op_mknod,
	.mkdir = op_rofs_mode,
	.unlink = op_rofs_path,
	.rmdir = op_rofs_path,
	.symlink = op_rofs_2path,
	.link = op_rofs_2path,
	.rename = op_rename,
	.chmod = op_chmod,
	.chown = op_chown,
	.truncate = op_truncate,
	.write = op_write,
	.create = op_create,
	.utimens = op_utimens,
	.setxattr = op_setxattr,
	.removexattr = op_removexattr,
	.fallocate = op_fallocate,
};

const struct fuse_operations *view_fuse_ops(void)
{
	mount_time = time(NULL);
	return &view_ops;
}
