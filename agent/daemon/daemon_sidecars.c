#include "daemon_sidecars.h"

#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "hash.h"
#include "log.h"
#include "names.h"
#include "place.h"
#include "result.h"
#include "strmap.h"

/* A copy is a sidecar: a result document or an audit sidecar with its
 * proofs. 64 MiB is far above either (records are cut to 4 MiB). */
#define SIDECAR_MAX ((size_t)64 << 20)

/* The suffixes in the order they are placed: foo.audit before the result,
 * so that whoever waits for the result finds foo.audit in place. */
static const char *const suffixes[] = { ".audit", RESULT_SUFFIX };

struct held_sidecar {
	char *script;
	const char *suffix; /* one of suffixes[] */
	char *text;
	size_t len;
};

struct daemon_sidecars {
	char *dir; /* state_dir/answers */
	daemon_sidecars_place_fn place;
	void *arg;
	pthread_mutex_t lock;
	struct strmap *held; /* sidecar path -> struct held_sidecar */
};

static void held_free(void *v)
{
	struct held_sidecar *h = v;
	free(h->script);
	free(h->text);
	free(h);
}

struct daemon_sidecars *daemon_sidecars_new(const char *state_dir, daemon_sidecars_place_fn place,
					    void *arg)
{
	struct daemon_sidecars *s = xcalloc(1, sizeof(*s));
	s->dir = xasprintf("%s/%s", state_dir, DAEMON_SIDECARS_DIR);
	s->place = place;
	s->arg = arg;
	s->held = strmap_new(held_free);
	pthread_mutex_init(&s->lock, NULL);
	return s;
}

void daemon_sidecars_free(struct daemon_sidecars *s)
{
	if (!s)
		return;
	size_t n = strmap_size(s->held);
	if (n > 0)
		log_warnx("%zu answer file(s) could not be written before the agent stopped (a full "
			  "disk?): the next start writes them from the agent's copies in %s, as it "
			  "takes their scripts again", n, s->dir);
	strmap_free(s->held);
	pthread_mutex_destroy(&s->lock);
	free(s->dir);
	free(s);
}

static const char *suffix_of(const char *suffix)
{
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		if (strcmp(suffix, suffixes[i]) == 0)
			return suffixes[i];
	return NULL;
}

/* The path of the copy of script's sidecar with suffix. Caller frees. */
static char *copy_path(const struct daemon_sidecars *s, const char *script, const char *suffix)
{
	_cleanup_free_ char *side = names_result_sidecar(script, suffix);
	char sha[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(side, strlen(side), sha);
	return xasprintf("%s/%s", s->dir, sha);
}

/* Holds a copy of text, script's sidecar with suffix (one of suffixes[]),
 * to be placed again (replacing an older one held for it). */
static void hold(struct daemon_sidecars *s, const char *script, const char *suffix,
		 const char *text, size_t len)
{
	_cleanup_free_ char *side = names_result_sidecar(script, suffix);
	struct held_sidecar *h = xcalloc(1, sizeof(*h));
	h->script = xstrdup(script);
	h->suffix = suffix;
	h->text = xmalloc(len + 1);
	memcpy(h->text, text, len);
	h->text[len] = '\0';
	h->len = len;
	pthread_mutex_lock(&s->lock);
	strmap_put(s->held, side, h);
	pthread_mutex_unlock(&s->lock);
}

void daemon_sidecars_keep(struct daemon_sidecars *s, const char *script, const char *suffix,
			  const char *text, size_t len, bool final, int placed)
{
	const char *known = suffix_of(suffix);
	if (!known)
		return;
	_cleanup_free_ char *side = names_result_sidecar(script, suffix);
	if (final) {
		_cleanup_free_ char *path = copy_path(s, script, suffix);
		int r = fileio_mkdir_p(s->dir, 0700);
		/* Not synced: the index of final results is, and a copy lost to a
		 * power cut only means that a lost sidecar's content runs again. */
		if (r == 0)
			r = fileio_write_replace(path, text, len, 0600);
		if (r < 0) {
			_cleanup_free_ char *shown = names_printable(side);
			log_warnx("cannot keep a copy of %s in %s: %s; if it is lost, its content "
				  "runs again when dropped again", shown, s->dir, strerror(-r));
		}
	}
	if (placed >= 0) {
		pthread_mutex_lock(&s->lock);
		strmap_remove(s->held, side);
		pthread_mutex_unlock(&s->lock);
	} else if (final) {
		hold(s, script, known, text, len);
	}
}

struct collect {
	char **keys;
	size_t n;
};

static void collect_key(const char *key, void *value, void *arg)
{
	struct collect *c = arg;
	(void)value;
	c->keys = xrealloc(c->keys, (c->n + 1) * sizeof(*c->keys));
	c->keys[c->n++] = xstrdup(key);
}

size_t daemon_sidecars_place_pending(struct daemon_sidecars *s)
{
	struct collect c = { 0 };
	pthread_mutex_lock(&s->lock);
	strmap_foreach(s->held, collect_key, &c);
	pthread_mutex_unlock(&s->lock);

	/* Scripts whose foo.audit did not land this time: their result waits
	 * too, so that it never stands without foo.audit. */
	struct strmap *late = strmap_new(NULL);
	for (size_t pass = 0; pass < ARRAY_SIZE(suffixes); pass++) {
		for (size_t i = 0; i < c.n; i++) {
			pthread_mutex_lock(&s->lock);
			struct held_sidecar *h = strmap_get(s->held, c.keys[i]);
			if (!h || h->suffix != suffixes[pass] || strmap_get(late, h->script)) {
				pthread_mutex_unlock(&s->lock);
				continue;
			}
			/* Taken out while it is placed: a newer answer kept
			 * meanwhile is not undone by this older one. */
			h = strmap_take(s->held, c.keys[i]);
			pthread_mutex_unlock(&s->lock);
			int r = s->place(s->arg, h->script, h->suffix, h->text, h->len);
			_cleanup_free_ char *shown = names_printable(c.keys[i]);
			if (r >= 0) {
				log_info("%s: written now that the drop directory takes it (it could "
					 "not be written when its answer came)", shown);
				held_free(h);
				continue;
			}
			strmap_put(late, h->script, (void *)1);
			pthread_mutex_lock(&s->lock);
			if (!strmap_get(s->held, c.keys[i]))
				strmap_put(s->held, c.keys[i], h);
			else
				held_free(h);
			pthread_mutex_unlock(&s->lock);
		}
	}
	strmap_free(late);
	for (size_t i = 0; i < c.n; i++)
		free(c.keys[i]);
	free(c.keys);
	pthread_mutex_lock(&s->lock);
	size_t left = strmap_size(s->held);
	pthread_mutex_unlock(&s->lock);
	return left;
}

/* The sidecar rel in drop_dir when it is a regular file of at most max
 * bytes, into *out; -ENOENT when there is none, -EFBIG for a longer regular
 * file, -EEXIST when what is there is something else. */
static int read_placed(const char *drop_dir, const char *rel, size_t max, char **out, size_t *len)
{
	const char *base = rel;
	_cleanup_close_ int dfd = place_open_parent(drop_dir, rel, &base);
	if (dfd < 0)
		return dfd;
	_cleanup_close_ int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EEXIST : -errno;
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EEXIST;
	if ((size_t)st.st_size > max)
		return -EFBIG;
	return fileio_read_fd(fd, max, out, len);
}

/* Whether the kept result copy answers content sha256 (the copy's name
 * says whose it is). */
static bool copy_answers(const char *text, size_t len, const char *sha256)
{
	json_t *res = json_loadb(text, len, 0, NULL);
	bool r = res && result_json_answers(res, sha256, NULL);
	json_decref(res);
	return r;
}

enum daemon_sidecars_restored daemon_sidecars_restore(struct daemon_sidecars *s,
						      const char *drop_dir, const char *script,
						      const char *sha256, char **what, int *placed)
{
	char *copies[ARRAY_SIZE(suffixes)] = { NULL };
	size_t lens[ARRAY_SIZE(suffixes)] = { 0 };
	enum daemon_sidecars_restored ret = DAEMON_SIDECARS_IN_PLACE;

	*what = NULL;
	*placed = PLACE_IN_DROP_DIR;
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		_cleanup_free_ char *path = copy_path(s, script, suffixes[i]);
		if (fileio_read_path(path, SIDECAR_MAX, &copies[i], &lens[i]) < 0)
			copies[i] = NULL;
	}
	/* The result decides: a copy for other content (or none) is no answer
	 * for this one. */
	size_t ri = ARRAY_SIZE(suffixes) - 1;
	if (!copies[ri] || !copy_answers(copies[ri], lens[ri], sha256)) {
		ret = DAEMON_SIDECARS_NO_COPY;
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		if (!copies[i])
			continue;
		_cleanup_free_ char *side = names_result_sidecar(script, suffixes[i]);
		_cleanup_free_ char *now = NULL;
		size_t now_len = 0;
		int r = read_placed(drop_dir, side, lens[i], &now, &now_len);
		if (r == 0 && now_len == lens[i] && memcmp(now, copies[i], now_len) == 0)
			continue;
		int p = s->place(s->arg, script, suffixes[i], copies[i], lens[i]);
		if (p < 0)
			hold(s, script, suffixes[i], copies[i], lens[i]);
		/* Written nowhere, then in the fallback, then in place. */
		if (p < 0 || (*placed >= 0 && p > *placed))
			*placed = p;
		_cleanup_free_ char *shown = names_printable(side);
		char *w = xasprintf("%s%s%s %s", *what ? *what : "", *what ? "; " : "", shown,
				    r == -ENOENT ? "missing" : r == 0 || r == -EFBIG ? "changed" :
				    "not the agent's");
		free(*what);
		*what = w;
		ret = DAEMON_SIDECARS_RESTORED;
	}
out:
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++)
		free(copies[i]);
	return ret;
}
