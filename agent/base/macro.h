/* Small helpers shared by every module: attributes and cleanup. */
#ifndef MAI_MACRO_H
#define MAI_MACRO_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _printf_(a, b)  __attribute__((format(printf, a, b)))
#define _must_check_    __attribute__((warn_unused_result))
#define _nonnull_(...)  __attribute__((nonnull(__VA_ARGS__)))
#define _unused_        __attribute__((unused))
#define _noreturn_      __attribute__((noreturn))
#define _cleanup_(f)    __attribute__((cleanup(f)))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline void freep(void *p) { free(*(void **)p); }
static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		close(*fd);
		errno = saved;
	}
}
static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_   _cleanup_(freep)
#define _cleanup_close_  _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Take ownership out of a cleanup variable: the caller now frees it. */
#define steal_pointer(pp) ({ __typeof__(*(pp)) _p = *(pp); *(pp) = NULL; _p; })
#define steal_fd(fdp)     ({ int _fd = *(fdp); *(fdp) = -1; _fd; })

/* Allocation policy: every allocation in this project goes through these; an
 * out-of-memory condition is a broken invariant and aborts with a message. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);

#endif
