/* Notes of the scripts open for writing (dropfs.h "Incomplete content").
 *
 * While a handle writes to a script, a note names it in the notes
 * directory (agent.state_dir/writing): one file per script, named by the
 * SHA-256 of its path in the drop directory and holding that path. The
 * note goes when the last writing handle is released. A note found at the
 * next start names a script that was being written when the agent stopped
 * (killed, or the machine went down): its writer got ENOTCONN half-way, and
 * what reached the directory may be only part of it. Such a script is held
 * as incomplete (answered, not run) until it is written again, and its note
 * stays until then, so that a second restart holds it too. A script one of
 * whose writes failed is held the same way, its note carrying the errno
 * after a NUL ("rel\0errno").
 *
 * The notes are not synced: an agent that is killed leaves them in the page
 * cache, which outlives it. A power cut may lose the newest note; the
 * content written since is then taken as it is, as before notes. */
#include "dropfs_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "hash.h"
#include "log.h"

#define NOTE_MAX 8192 /* a path in the drop directory, with room */

static char *note_path(const struct dropfs *fs, const char *rel)
{
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(rel, strlen(rel), sha);
	return xasprintf("%s/%s", fs->notes_dir, sha);
}

/* Whether rel names a regular file below the backing directory. */
static bool exists(struct dropfs *fs, const char *rel)
{
	_cleanup_free_ char *path = xasprintf("/%s", rel);
	struct dropfs_at at;
	struct stat st;
	if (dropfs_at_open(fs, path, &at) < 0)
		return false;
	bool r = fstatat(at.dirfd, at.leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	dropfs_at_close(&at);
	return r;
}

int dropfs_notes_load(struct dropfs *fs, const char *dir, char **err)
{
	fs->notes_dir = xstrdup(dir);
	fs->held = strmap_new(NULL);
	int r = fileio_mkdir_p(dir, 0700);
	if (r < 0) {
		*err = xasprintf("cannot create %s (the notes of scripts being written): %s", dir,
				 strerror(-r));
		return r;
	}
	DIR *d = opendir(dir);
	if (!d) {
		r = -errno;
		*err = xasprintf("cannot read %s: %s", dir, strerror(-r));
		return r;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		_cleanup_free_ char *path = xasprintf("%s/%s", dir, de->d_name);
		_cleanup_free_ char *rel = NULL;
		size_t len = 0;
		if (fileio_read_path(path, NOTE_MAX, &rel, &len) < 0 || len == 0 ||
		    !exists(fs, rel)) {
			/* Gone since, or not a note: nothing to hold. */
			unlink(path);
			continue;
		}
		/* "rel" alone, or "rel\0errno" for a write that failed. */
		size_t n = strlen(rel);
		int e = n + 1 < len ? atoi(rel + n + 1) : 0;
		_cleanup_free_ char *shown = names_printable(rel);
		if (e > 0)
			log_warnx("%s: a write to it failed (%s): it is held as incomplete until it "
				  "is written again", shown, strerror(e));
		else
			log_warnx("%s was open for writing when the agent stopped: it is held as "
				  "incomplete until it is written again", shown);
		strmap_put(fs->held, rel, (void *)(uintptr_t)(e + 1));
	}
	closedir(d);
	return 0;
}

void dropfs_notes_free(struct dropfs *fs)
{
	if (fs->held)
		strmap_free(fs->held);
	free(fs->notes_dir);
}

/* Writes rel's note, with the errno of a write that failed (0: none). */
static int write_note(struct dropfs *fs, const char *rel, int err)
{
	_cleanup_free_ char *path = note_path(fs, rel);
	size_t n = strlen(rel);
	_cleanup_free_ char *text = err > 0 ? xasprintf("%s%c%d", rel, '\0', err) : xstrdup(rel);
	return fileio_write_replace(path, text, err > 0 ? n + 1 + strlen(text + n + 1) : n, 0600);
}

void dropfs_note_writing(struct dropfs *fs, const char *rel)
{
	if (!fs->notes_dir)
		return;
	int r = write_note(fs, rel, 0);
	if (r < 0) {
		_cleanup_free_ char *shown = names_printable(rel);
		log_warnx("cannot note that %s is being written (%s): if the agent is killed "
			  "before its last close, its next start takes it as it is",
			  shown, strerror(-r));
	}
}

void dropfs_note_done(struct dropfs *fs, const char *rel)
{
	if (!fs->notes_dir)
		return;
	_cleanup_free_ char *path = note_path(fs, rel);
	if (unlink(path) < 0 && errno != ENOENT)
		log_warn("cannot remove %s", path);
	pthread_mutex_lock(&fs->files_lock);
	strmap_remove(fs->held, rel);
	pthread_mutex_unlock(&fs->files_lock);
}

void dropfs_note_failed(struct dropfs *fs, const char *rel, int err)
{
	if (!fs->notes_dir)
		return;
	int r = write_note(fs, rel, err);
	if (r < 0) {
		_cleanup_free_ char *shown = names_printable(rel);
		log_warnx("cannot note that a write to %s failed (%s): a restart of the agent "
			  "takes it as it is", shown, strerror(-r));
	}
	pthread_mutex_lock(&fs->files_lock);
	strmap_put(fs->held, rel, (void *)(uintptr_t)(err + 1));
	pthread_mutex_unlock(&fs->files_lock);
}

bool dropfs_note_held(struct dropfs *fs, const char *rel, int *err)
{
	if (!fs->held)
		return false;
	pthread_mutex_lock(&fs->files_lock);
	uintptr_t v = (uintptr_t)strmap_get(fs->held, rel);
	pthread_mutex_unlock(&fs->files_lock);
	if (err)
		*err = v ? (int)v - 1 : 0;
	return v != 0;
}
