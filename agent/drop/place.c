#include "place.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "dirwrite.h"
#include "fileio.h"
#include "log.h"
#include "names.h"

/* Deep enough for any drop directory a person keeps; a deeper tree is left
 * to the next start's rescan of what the watch reports. */
#define CLEAR_MAX_DEPTH 16

char *place_fallback_name(const char *rel)
{
	size_t n = strlen(rel);
	char *out = xmalloc(3 * n + 1), *o = out;

	for (size_t i = 0; i < n; i++) {
		if (rel[i] == '%' || rel[i] == '/' || (i == 0 && rel[i] == '.'))
			o += sprintf(o, "%%%02X", (unsigned char)rel[i]);
		else
			*o++ = rel[i];
	}
	*o = '\0';
	return out;
}

int place_open_parent(const char *drop_dir, const char *rel, const char **base)
{
	int fd = open(drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *p = rel, *slash;

	if (fd < 0)
		return -errno;
	while ((slash = strchr(p, '/'))) {
		_cleanup_free_ char *comp = xstrndup(p, (size_t)(slash - p));
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		fd = next;
		p = slash + 1;
	}
	*base = p;
	return fd;
}

/* The fallback copy of rel: written (buf) or removed (buf NULL). */
static int fallback(const struct place_dirs *p, const char *rel, const void *buf, size_t len,
		    bool durable)
{
	_cleanup_free_ char *name = place_fallback_name(rel);
	_cleanup_free_ char *path = xasprintf("%s/%s", p->fallback_dir, name);

	if (!buf)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	int r = fileio_mkdir_p(p->fallback_dir, 0700);
	if (r < 0)
		return r;
	/* The state directory is the agent's alone: no one prepares names there. */
	return durable ? fileio_write_atomic(path, buf, len, 0644)
		       : fileio_write_replace(path, buf, len, 0644);
}

void place_script_access(uid_t uid, gid_t gid, mode_t mode, struct dirwrite_access *out)
{
	out->uid = uid;
	out->gid = gid;
	out->mode = (mode & 0444) | ((mode & 0400) ? 0200 : 0);
	out->marked = true;
}

int place_sidecar(const struct place_dirs *p, const char *rel, const void *buf, size_t len,
		  const struct dirwrite_access *acc, enum place_sync sync, char **err)
{
	bool durable = sync != PLACE_SYNC_NONE;
	_cleanup_free_ char *detail = NULL, *shown = names_printable(rel);
	const char *base = rel;
	int r;

	*err = NULL;
	_cleanup_close_ int dfd = place_open_parent(p->drop_dir, rel, &base);
	if (dfd < 0) {
		r = dfd;
		detail = xasprintf("cannot open its directory: %s", strerror(-r));
	} else {
		struct dirwrite_access own = { .uid = geteuid(), .gid = (gid_t)-1, .mode = 0644,
					       .marked = true };
		r = dirwrite_replace_as(dfd, base, buf, len, acc ? acc : &own,
					sync == PLACE_SYNC ? DIRWRITE_DURABLE
					: sync == PLACE_SYNC_DATA ? DIRWRITE_DURABLE_DATA : 0, &detail);
	}
	if (r == 0) {
		if (p->fallback_dir && fallback(p, rel, NULL, 0, false) < 0)
			log_warn("cannot remove the fallback copy of %s from %s", shown,
				 p->fallback_dir);
		return PLACE_IN_DROP_DIR;
	}
	bool refused = r == -EEXIST || r == -EISDIR || r == -ELOOP || r == -ENOTDIR;
	if (!refused || !p->fallback_dir) {
		*err = xasprintf("cannot write %s/%s: %s (is the drop directory writable and its "
				 "disk not full?)", p->drop_dir, shown, detail);
		return r;
	}
	/* A sidecar written before with PLACE_SYNC_DATA waits for its
	 * directory's fsync. */
	if (sync == PLACE_SYNC && dfd >= 0 && fsync(dfd) < 0)
		log_warn("cannot sync the directory of %s in %s", shown, p->drop_dir);
	int fr = fallback(p, rel, buf, len, durable);
	if (fr < 0) {
		*err = xasprintf("cannot write %s/%s: %s; nor its copy in %s: %s", p->drop_dir, shown,
				 detail, p->fallback_dir, strerror(-fr));
		return fr;
	}
	_cleanup_free_ char *name = place_fallback_name(rel);
	*err = xasprintf("refused to write %s/%s: %s; the answer is in %s/%s and in the audit "
			 "view (runs/), and the job's records are in the audit log; remove what is "
			 "at that name so the next answer lands there",
			 p->drop_dir, shown, detail, p->fallback_dir, name);
	return PLACE_IN_FALLBACK;
}

static unsigned clear_dir(int dfd, bool recursive, unsigned depth)
{
	unsigned removed = 0;
	if (dirwrite_clear_temporaries(dfd, &removed) < 0 || !recursive || depth >= CLEAR_MAX_DEPTH)
		return removed;
	DIR *d = fileio_opendir_at(dfd);
	if (!d)
		return removed;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		_cleanup_close_ int sub = openat(dfd, de->d_name,
						 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			removed += clear_dir(sub, recursive, depth + 1);
	}
	closedir(d);
	return removed;
}

void place_clear_temporaries(const char *drop_dir, bool recursive)
{
	_cleanup_close_ int dfd = open(drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return;
	unsigned n = clear_dir(dfd, recursive, 0);
	if (n > 0)
		log_info("removed %u temporary file(s) that an interrupted write left in %s", n,
			 drop_dir);
}
