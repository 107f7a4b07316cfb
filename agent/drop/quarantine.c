#include "quarantine.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirwrite.h"
#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "names.h"

#define SWEEP_MAX_DEPTH 16

/* The holder (quarantine.h): set at start, read-only afterwards. */
static char *holder;

int quarantine_set_holder(const char *dir)
{
	free(holder);
	holder = NULL;
	if (!dir)
		return 0;
	int r = fileio_mkdir_p(dir, 0700);
	if (r < 0)
		return r;
	holder = xstrdup(dir);
	return 0;
}

const char *quarantine_where(void)
{
	return holder ? holder : QUARANTINE_DIR;
}

bool quarantine_holder_reaches(int dirfd)
{
	struct stat a, b;
	return holder && stat(holder, &a) == 0 && fstat(dirfd, &b) == 0 && a.st_dev == b.st_dev;
}

/* The holder, the agent's own directory, or -errno. */
static int open_holder(void)
{
	struct stat st;
	int fd = open(holder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The quarantine directory of dirfd, the agent's own: created when missing;
 * anything else at its name (another user's directory, a symlink) is renamed
 * out of the way under a random name first. fd or -errno. */
static int open_quarantine(int dirfd, char **detail)
{
	for (int attempt = 0; attempt < 3; attempt++) {
		struct stat st;
		if (mkdirat(dirfd, QUARANTINE_DIR, 0700) < 0 && errno != EEXIST) {
			*detail = xasprintf("cannot create %s: %s", QUARANTINE_DIR, strerror(errno));
			return -errno;
		}
		int fd = openat(dirfd, QUARANTINE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		/* 0700 whatever the set-group-ID bit a setgid drop directory
		 * passed on. */
		if (fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
		    (st.st_mode & 0777) == 0700 && st.st_nlink >= 2)
			return fd;
		if (fd >= 0)
			close(fd);
		/* Not the agent's: out of the way, kept (it may be evidence too). */
		uint8_t rnd[8];
		char hex[2 * sizeof(rnd) + 1];
		if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
			uint64_t v = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)attempt;
			memcpy(rnd, &v, sizeof(rnd));
		}
		hash_to_hex(rnd, sizeof(rnd), hex);
		_cleanup_free_ char *aside = xasprintf("%s.foreign.%s", QUARANTINE_DIR, hex);
		if (renameat(dirfd, QUARANTINE_DIR, dirfd, aside) < 0 && errno != ENOENT) {
			*detail = xasprintf("%s is not the agent's and cannot be moved: %s",
					    QUARANTINE_DIR, strerror(errno));
			return -errno;
		}
		log_warnx("%s was not the agent's own directory: moved to %s", QUARANTINE_DIR, aside);
	}
	*detail = xasprintf("%s keeps being replaced", QUARANTINE_DIR);
	return -EAGAIN;
}

int quarantine_move(int dirfd, const char *name, char **moved_to, char **detail)
{
	struct stat st;

	*moved_to = NULL;
	*detail = NULL;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	_cleanup_free_ char *to = xasprintf("%.200s.%lld.%llu", name, (long long)time(NULL),
					    (unsigned long long)st.st_ino);
	if (holder) {
		_cleanup_close_ int hfd = open_holder();
		if (hfd >= 0 && renameat2(dirfd, name, hfd, to, RENAME_NOREPLACE) == 0) {
			*moved_to = xasprintf("%s/%s", holder, to);
			return 0;
		}
		int e = hfd < 0 ? -hfd : errno;
		if (e == ENOENT && hfd >= 0)
			return -ENOENT;
		if (e != EXDEV)
			log_warnx("cannot move %s into %s (%s): it goes to %s of its directory",
				  name, holder, strerror(e), QUARANTINE_DIR);
	}
	_cleanup_close_ int qfd = open_quarantine(dirfd, detail);
	if (qfd < 0)
		return qfd;
	if (renameat2(dirfd, name, qfd, to, RENAME_NOREPLACE) < 0) {
		int e = errno;
		if (e != ENOENT)
			*detail = xasprintf("cannot move %s aside: %s", name, strerror(e));
		return -e;
	}
	*moved_to = xasprintf("%s/%s", QUARANTINE_DIR, to);
	return 0;
}

static const char *const sidecar_suffixes[] = { ".result.json", ".audit" };

/* The script a sidecar or answer name belongs to ("foo.result.json" ->
 * "foo.py"), or NULL for any other name; *sidecar says which it is. */
static char *script_of(const char *name, bool *sidecar)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(sidecar_suffixes); i++) {
		size_t m = strlen(sidecar_suffixes[i]);
		if (n > m && strcmp(name + n - m, sidecar_suffixes[i]) == 0) {
			*sidecar = true;
			return xasprintf("%.*s.py", (int)(n - m), name);
		}
	}
	*sidecar = false;
	enum names_kind k = names_classify(name, NULL);
	return k == NAMES_APPROVE || k == NAMES_OVERRIDE ? names_script_for_answer(name) : NULL;
}

/* Whether name (st) in dfd may stay: see quarantine_sweep(). */
static bool may_stay(int dfd, const char *name, const struct stat *st, bool sidecar)
{
	if (sidecar)
		return dirwrite_is_own(dfd, name, st);
	return S_ISREG(st->st_mode) && st->st_nlink == 1;
}

static void sweep_dir(int dfd, const char *rel, bool recursive, unsigned depth, quarantine_fn fn,
		      void *arg)
{
	DIR *d = fileio_opendir_at(dfd);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		bool sidecar;
		if (de->d_name[0] == '.' || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		_cleanup_free_ char *path = *rel ? xasprintf("%s/%s", rel, de->d_name)
						 : xstrdup(de->d_name);
		_cleanup_free_ char *script = script_of(de->d_name, &sidecar);
		if (!script && S_ISDIR(st.st_mode) && recursive && depth < SWEEP_MAX_DEPTH) {
			_cleanup_close_ int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
							 O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0)
				sweep_dir(sub, path, recursive, depth + 1, fn, arg);
			continue;
		}
		if (!script || may_stay(dfd, de->d_name, &st, sidecar))
			continue;
		_cleanup_free_ char *what = dirwrite_describe(&st), *to = NULL, *detail = NULL;
		_cleanup_free_ char *shown = names_printable(path);
		if (quarantine_move(dfd, de->d_name, &to, &detail) < 0) {
			log_warnx("%s: %s is there and cannot be moved aside: %s", shown, what,
				  detail ? detail : "gone");
			continue;
		}
		_cleanup_free_ char *moved = *rel && to[0] != '/' ? xasprintf("%s/%s", rel, to)
								: xstrdup(to);
		_cleanup_free_ char *spath = *rel ? xasprintf("%s/%s", rel, script) : xstrdup(script);
		log_warnx("%s: %s was there at start (put there while the agent was stopped?): "
			  "moved aside to %s", shown, what, moved);
		if (fn)
			fn(arg, path, moved, what, spath);
	}
	closedir(d);
}

void quarantine_sweep(const char *drop_dir, bool recursive, quarantine_fn fn, void *arg)
{
	_cleanup_close_ int dfd = open(drop_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0)
		sweep_dir(dfd, "", recursive, 0, fn, arg);
}
