/* The wrappers of fault.h: each __wrap_NAME asks fail_here() and either
 * fails with the armed errno or calls __real_NAME (the linker's name for
 * the real call under -Wl,--wrap=NAME). The list of wrapped calls is
 * fault_calls in tests/unit/meson.build, which must name exactly the
 * wrappers defined here. */
#include "fault.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define FAULT_CALLS(X)                                                                         \
	X(fsync) X(fdatasync) X(write) X(pwrite64) X(read) X(rename) X(renameat) X(renameat2)  \
	X(fchmod) X(fchown) X(fsetxattr) X(linkat) X(open64) X(openat64) X(mkdir) X(mkdirat)   \
	X(unlink) X(unlinkat) X(ftruncate64) X(fstat64) X(fchownat) X(fchmodat) X(fdopendir)   \
	X(opendir) X(pthread_create) X(eventfd) X(fallocate64) X(getrandom)

#define AS_ENUM(n) CALL_##n,
enum call { FAULT_CALLS(AS_ENUM) CALL_COUNT };
#define AS_NAME(n) #n,
static const char *const call_names[] = { FAULT_CALLS(AS_NAME) };

struct armed {
	char match[256]; /* "" matches every call */
	unsigned skip;   /* matching calls still to let through */
	unsigned left;   /* failures still to give; UINT_MAX: until cleared */
	unsigned hits;
	int err;
};

static atomic_bool armed_any[CALL_COUNT];
static struct armed armed[CALL_COUNT];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int call_of(const char *fn)
{
	for (int i = 0; i < CALL_COUNT; i++)
		if (strcmp(call_names[i], fn) == 0)
			return i;
	fprintf(stderr, "fault: %s is not a wrapped call (tests/unit/fault.c)\n", fn);
	abort();
}

void fault_arm(const char *fn, const char *match, unsigned nth, unsigned times, int err)
{
	int c = call_of(fn);
	pthread_mutex_lock(&lock);
	snprintf(armed[c].match, sizeof(armed[c].match), "%s", match ? match : "");
	armed[c].skip = nth > 0 ? nth - 1 : 0;
	armed[c].left = times > 0 ? times : ~0u;
	armed[c].hits = 0;
	armed[c].err = err;
	atomic_store(&armed_any[c], true);
	pthread_mutex_unlock(&lock);
}

void fault_clear(void)
{
	pthread_mutex_lock(&lock);
	for (int c = 0; c < CALL_COUNT; c++) {
		atomic_store(&armed_any[c], false);
		memset(&armed[c], 0, sizeof(armed[c]));
	}
	pthread_mutex_unlock(&lock);
}

unsigned fault_hits(const char *fn)
{
	int c = call_of(fn);
	pthread_mutex_lock(&lock);
	unsigned n = armed[c].hits;
	pthread_mutex_unlock(&lock);
	return n;
}

/* The path a call acts on, for the match: see fault_arm(). */
static void describe(int dirfd, const char *path, int fd, char *out, size_t size)
{
	char link[64];
	ssize_t n = 0;

	out[0] = '\0';
	if (path && (path[0] == '/' || dirfd == AT_FDCWD)) {
		snprintf(out, size, "%s", path);
		return;
	}
	snprintf(link, sizeof(link), "/proc/self/fd/%d", path ? dirfd : fd);
	n = readlink(link, out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	if (path)
		snprintf(out + strlen(out), size - strlen(out), "/%s", path);
}

/* Whether this call fails: then errno is the armed error. */
static bool fail_here(enum call c, int dirfd, const char *path, int fd)
{
	if (!atomic_load(&armed_any[c]))
		return false;
	int saved = errno, err = 0;
	pthread_mutex_lock(&lock);
	struct armed *a = &armed[c];
	bool matches = a->left > 0;
	if (matches && a->match[0]) {
		char what[4096];
		describe(dirfd, path, fd, what, sizeof(what));
		size_t m = strlen(a->match), w = strlen(what);
		if (a->match[m - 1] == '$') /* anchored at the end */
			matches = w >= m - 1 && memcmp(what + w - (m - 1), a->match, m - 1) == 0;
		else
			matches = strstr(what, a->match) != NULL;
	}
	if (matches && a->skip > 0) {
		a->skip--;
		matches = false;
	}
	if (matches) {
		if (a->left != ~0u)
			a->left--;
		a->hits++;
		err = a->err;
	}
	pthread_mutex_unlock(&lock);
	errno = matches ? err : saved;
	return matches;
}

#define WRAP(ret, name, params, args, dirfd, path, fd)        \
	ret __real_##name params;                              \
	ret __wrap_##name params;                              \
	ret __wrap_##name params                               \
	{                                                      \
		if (fail_here(CALL_##name, dirfd, path, fd))   \
			return (ret)-1;                        \
		return __real_##name args;                     \
	}

WRAP(int, fsync, (int fd), (fd), -1, NULL, fd)
WRAP(int, fdatasync, (int fd), (fd), -1, NULL, fd)
WRAP(ssize_t, write, (int fd, const void *b, size_t n), (fd, b, n), -1, NULL, fd)
WRAP(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), (fd, b, n, o), -1, NULL, fd)
WRAP(ssize_t, read, (int fd, void *b, size_t n), (fd, b, n), -1, NULL, fd)
WRAP(int, rename, (const char *a, const char *b), (a, b), AT_FDCWD, b, -1)
WRAP(int, renameat, (int d1, const char *a, int d2, const char *b), (d1, a, d2, b), d2, b, -1)
WRAP(int, renameat2, (int d1, const char *a, int d2, const char *b, unsigned f), (d1, a, d2, b, f),
     d2, b, -1)
WRAP(int, fchmod, (int fd, mode_t m), (fd, m), -1, NULL, fd)
WRAP(int, fchown, (int fd, uid_t u, gid_t g), (fd, u, g), -1, NULL, fd)
WRAP(int, fsetxattr, (int fd, const char *n, const void *v, size_t s, int f), (fd, n, v, s, f),
     -1, NULL, fd)
WRAP(int, linkat, (int d1, const char *a, int d2, const char *b, int f), (d1, a, d2, b, f), d2, b,
     -1)
WRAP(int, mkdir, (const char *p, mode_t m), (p, m), AT_FDCWD, p, -1)
WRAP(int, mkdirat, (int d, const char *p, mode_t m), (d, p, m), d, p, -1)
WRAP(int, unlink, (const char *p), (p), AT_FDCWD, p, -1)
WRAP(int, unlinkat, (int d, const char *p, int f), (d, p, f), d, p, -1)
WRAP(int, ftruncate64, (int fd, off_t n), (fd, n), -1, NULL, fd)
WRAP(int, fstat64, (int fd, void *st), (fd, st), -1, NULL, fd)
WRAP(int, fchownat, (int d, const char *p, uid_t u, gid_t g, int f), (d, p, u, g, f), d, p, -1)
WRAP(int, fchmodat, (int d, const char *p, mode_t m, int f), (d, p, m, f), d, p, -1)
WRAP(int, eventfd, (unsigned v, int f), (v, f), -1, NULL, -1)
WRAP(ssize_t, getrandom, (void *b, size_t n, unsigned f), (b, n, f), -1, NULL, -1)
WRAP(int, fallocate64, (int fd, int m, off_t o, off_t n), (fd, m, o, n), -1, NULL, fd)

/* The calls whose failure is not -1. */
void *__real_fdopendir(int fd);
void *__wrap_fdopendir(int fd);
void *__wrap_fdopendir(int fd)
{
	return fail_here(CALL_fdopendir, -1, NULL, fd) ? NULL : __real_fdopendir(fd);
}

void *__real_opendir(const char *p);
void *__wrap_opendir(const char *p);
void *__wrap_opendir(const char *p)
{
	return fail_here(CALL_opendir, AT_FDCWD, p, -1) ? NULL : __real_opendir(p);
}

int __real_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
	return fail_here(CALL_pthread_create, -1, NULL, -1) ? errno : __real_pthread_create(t, a, f, arg);
}

/* The open calls take a mode only with O_CREAT or O_TMPFILE. */
static mode_t open_mode(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int __real_open64(const char *p, int flags, ...);
int __wrap_open64(const char *p, int flags, ...);
int __wrap_open64(const char *p, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	return fail_here(CALL_open64, AT_FDCWD, p, -1) ? -1 : __real_open64(p, flags, mode);
}

int __real_openat64(int d, const char *p, int flags, ...);
int __wrap_openat64(int d, const char *p, int flags, ...);
int __wrap_openat64(int d, const char *p, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	return fail_here(CALL_openat64, d, p, -1) ? -1 : __real_openat64(d, p, flags, mode);
}
