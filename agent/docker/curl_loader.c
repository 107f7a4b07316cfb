/* libcurl, loaded when it is first used.
 *
 * libcurl drags some thirty shared libraries into a process (TLS, Kerberos,
 * LDAP, SSH, ...), and resolving their symbols at every start costs more
 * than `mai-agent check` spends assessing a small file. Only the commands
 * that talk to Docker need it, so the programs are not linked against it:
 * this file defines the few curl_* functions that docker_http.c and docker.c
 * call, and each one forwards to the real libcurl, opened with dlopen() the
 * first time any of them runs. The callers keep using libcurl's own API and
 * headers unchanged.
 *
 * If libcurl cannot be loaded, every call fails the way libcurl itself
 * reports failure (NULL handle, CURLE_FAILED_INIT), and the reason is logged
 * once, naming the library and the package that provides it. */

/* Our definitions must not be rewritten by curl.h's type-checking macros. */
#define CURL_DISABLE_TYPECHECK 1

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>

#include "log.h"

/* The soname of libcurl's ABI, unchanged since libcurl 7.16 (2006). */
#define CURL_LOADER_SONAME "libcurl.so.4"

static struct {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *c, CURLoption opt, ...);
	CURLcode (*easy_perform)(CURL *c);
	CURLcode (*easy_getinfo)(CURL *c, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *c);
	const char *(*easy_strerror)(CURLcode rc);
	CURLcode (*easy_send)(CURL *c, const void *buf, size_t len, size_t *n);
	CURLcode (*easy_recv)(CURL *c, void *buf, size_t len, size_t *n);
	char *(*easy_escape)(CURL *c, const char *s, int len);
	void (*free)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
} lib;
static int lib_loaded; /* 1 when every symbol was found */
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void curl_loader_open(void)
{
	void *h = dlopen(CURL_LOADER_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		log_warnx("cannot load %s (%s): Docker cannot be reached without it; "
			  "install it with 'apt-get install libcurl4'",
			  CURL_LOADER_SONAME, dlerror());
		return;
	}
	/* POSIX's sanctioned way to turn dlsym's object pointer into a
	 * function pointer: copy the representation. */
#define LOAD(field, name)                                                                    \
	do {                                                                                 \
		void *sym = dlsym(h, name);                                                  \
		if (!sym) {                                                                  \
			log_warnx("%s has no symbol %s: it is not a usable libcurl; "        \
				  "reinstall it with 'apt-get install --reinstall libcurl4'", \
				  CURL_LOADER_SONAME, name);                                 \
			return;                                                              \
		}                                                                            \
		_Static_assert(sizeof(lib.field) == sizeof(sym), "function pointer size");   \
		memcpy(&lib.field, &sym, sizeof(sym));                                       \
	} while (0)
	LOAD(global_init, "curl_global_init");
	LOAD(easy_init, "curl_easy_init");
	LOAD(easy_setopt, "curl_easy_setopt");
	LOAD(easy_perform, "curl_easy_perform");
	LOAD(easy_getinfo, "curl_easy_getinfo");
	LOAD(easy_cleanup, "curl_easy_cleanup");
	LOAD(easy_strerror, "curl_easy_strerror");
	LOAD(easy_send, "curl_easy_send");
	LOAD(easy_recv, "curl_easy_recv");
	LOAD(easy_escape, "curl_easy_escape");
	LOAD(free, "curl_free");
	LOAD(slist_append, "curl_slist_append");
	LOAD(slist_free_all, "curl_slist_free_all");
#undef LOAD
	/* The handle stays open for the life of the process. */
	lib_loaded = 1;
}

static int loaded(void)
{
	pthread_once(&lib_once, curl_loader_open);
	return lib_loaded;
}

CURLcode curl_global_init(long flags)
{
	return loaded() ? lib.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	return loaded() ? lib.easy_init() : NULL;
}

/* libcurl takes exactly one argument after the option, and its type follows
 * from the option's number range (curl.h, CURLOPTTYPE_*); read it as that
 * type and pass it on as that type. */
CURLcode curl_easy_setopt(CURL *c, CURLoption opt, ...)
{
	va_list ap;
	CURLcode rc;

	if (!loaded())
		return CURLE_FAILED_INIT;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = lib.easy_setopt(c, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = lib.easy_setopt(c, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = lib.easy_setopt(c, opt, va_arg(ap, void (*)(void)));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = lib.easy_setopt(c, opt, va_arg(ap, curl_off_t));
	else
		rc = lib.easy_setopt(c, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *c)
{
	return loaded() ? lib.easy_perform(c) : CURLE_FAILED_INIT;
}

/* Every CURLINFO takes one pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
	va_list ap;
	CURLcode rc;

	if (!loaded())
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	rc = lib.easy_getinfo(c, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

void curl_easy_cleanup(CURL *c)
{
	if (loaded())
		lib.easy_cleanup(c);
}

const char *curl_easy_strerror(CURLcode rc)
{
	return loaded() ? lib.easy_strerror(rc) : "libcurl could not be loaded";
}

CURLcode curl_easy_send(CURL *c, const void *buf, size_t len, size_t *n)
{
	return loaded() ? lib.easy_send(c, buf, len, n) : CURLE_FAILED_INIT;
}

CURLcode curl_easy_recv(CURL *c, void *buf, size_t len, size_t *n)
{
	return loaded() ? lib.easy_recv(c, buf, len, n) : CURLE_FAILED_INIT;
}

char *curl_easy_escape(CURL *c, const char *s, int len)
{
	return loaded() ? lib.easy_escape(c, s, len) : NULL;
}

void curl_free(void *p)
{
	if (loaded())
		lib.free(p);
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	return loaded() ? lib.slist_append(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	if (loaded())
		lib.slist_free_all(l);
}
