#include "blobstore.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "log.h"

struct blobstore {
	char *dir;        /* <state_dir>/blobs */
	char *names_dir;  /* <state_dir>/blobs/names */
	char *ran_dir;    /* <state_dir>/blobs/ran */
	/* fileio_write_atomic's temporary name is per process, so two workers
	 * storing the same content or name at once must take turns. */
	pthread_mutex_t put_lock;
};

/* The index file holds the hex hash and a newline. */
#define INDEX_LEN (HASH_SHA256_HEX_LEN + 1)

static bool is_hash_hex(const char *s)
{
	size_t i;
	for (i = 0; s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return i == HASH_SHA256_HEX_LEN;
}

int blobstore_open(const char *state_dir, struct blobstore **out, char **err)
{
	struct blobstore *s = xcalloc(1, sizeof(*s));
	int r;

	s->dir = xasprintf("%s/blobs", state_dir);
	s->names_dir = xasprintf("%s/blobs/names", state_dir);
	s->ran_dir = xasprintf("%s/blobs/ran", state_dir);
	pthread_mutex_init(&s->put_lock, NULL);
	if ((r = fileio_mkdir_p(s->names_dir, 0700)) < 0 || (r = fileio_mkdir_p(s->ran_dir, 0700)) < 0) {
		*err = xasprintf("cannot create the version store %s: %s; check state_dir in "
				 "config/agent.yaml and its permissions", s->dir, strerror(-r));
		blobstore_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void blobstore_free(struct blobstore *store)
{
	if (!store)
		return;
	free(store->dir);
	free(store->names_dir);
	free(store->ran_dir);
	pthread_mutex_destroy(&store->put_lock);
	free(store);
}

char *blobstore_blob_path(const struct blobstore *store, const char *hash_hex)
{
	return xasprintf("%s/%.2s/%s", store->dir, hash_hex, hash_hex);
}

static char *name_index_path(const char *dir, const char *name)
{
	char key[HASH_SHA256_HEX_LEN + 1];
	/* Hashing the name keeps any file name (slashes, "..", newlines) out of
	 * the path. */
	hash_sha256_hex(name, strlen(name), key);
	return xasprintf("%s/%s", dir, key);
}

/* Records hex (64 digits) in the index file of name in dir. */
static int write_index(const char *dir, const char *name, const char *hex, char **err)
{
	_cleanup_free_ char *index = name_index_path(dir, name);
	char line[INDEX_LEN + 1];
	memcpy(line, hex, HASH_SHA256_HEX_LEN);
	line[HASH_SHA256_HEX_LEN] = '\n';
	int r = fileio_write_atomic(index, line, INDEX_LEN, 0600);
	if (r < 0)
		*err = xasprintf("cannot record a version of '%s' in %s: %s", name, index,
				 strerror(-r));
	return r;
}

int blobstore_get(struct blobstore *store, const char *hash_hex, size_t max,
		  char **data, size_t *len, char **err)
{
	if (!is_hash_hex(hash_hex)) {
		*err = xasprintf("'%.80s' is not a SHA-256 in lower-case hex (64 digits)", hash_hex);
		return -EINVAL;
	}
	_cleanup_free_ char *path = blobstore_blob_path(store, hash_hex);
	_cleanup_free_ char *buf = NULL;
	size_t n;
	int r = fileio_read_path(path, max, &buf, &n);
	if (r == -ENOENT) {
		*err = xasprintf("no stored version %s (%s is missing)", hash_hex, path);
		return r;
	}
	if (r == -EFBIG) {
		*err = xasprintf("stored version %s is larger than %zu bytes", path, max);
		return r;
	}
	if (r < 0) {
		*err = xasprintf("cannot read stored version %s: %s", path, strerror(-r));
		return r;
	}
	char actual[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(buf, n, actual);
	if (strcmp(actual, hash_hex) != 0) {
		*err = xasprintf("stored version %s is corrupted (its content hashes to %s); "
				 "remove it, the next version of the script is stored afresh",
				 path, actual);
		return -EBADMSG;
	}
	*data = steal_pointer(&buf);
	*len = n;
	return 0;
}

/* Writes the blob unless an intact copy is already there. */
static int store_blob(struct blobstore *store, const char *hex, const void *data, size_t len,
		      char **err)
{
	_cleanup_free_ char *path = blobstore_blob_path(store, hex);
	_cleanup_free_ char *sub = xasprintf("%s/%.2s", store->dir, hex);
	struct stat st;
	int r;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
		_cleanup_free_ char *old = NULL, *why = NULL;
		size_t n;
		r = blobstore_get(store, hex, len, &old, &n, &why);
		if (r == 0)
			return 0;    /* deduplicated */
		log_warnx("%s; rewriting it", why);
	}
	r = fileio_mkdir_p(sub, 0700);
	if (r < 0) {
		*err = xasprintf("cannot create %s: %s", sub, strerror(-r));
		return r;
	}
	r = fileio_write_atomic(path, data, len, 0600);
	if (r < 0) {
		*err = xasprintf("cannot write stored version %s: %s", path, strerror(-r));
		return r;
	}
	return 0;
}

static int put_locked(struct blobstore *store, const char *name, const void *data, size_t len,
		      char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err)
{
	char hex[HASH_SHA256_HEX_LEN + 1];
	int r;

	hash_sha256_hex(len ? data : "", len, hex);
	r = store_blob(store, hex, len ? data : "", len, err);
	if (r < 0)
		return r;

	/* The index is replaced only after the blob is durable, so it never
	 * names content that is not on disk. */
	r = write_index(store->names_dir, name, hex, err);
	if (r < 0)
		return r;
	memcpy(hash_hex, hex, sizeof(hex));
	return 0;
}

int blobstore_put(struct blobstore *store, const char *name, const void *data, size_t len,
		  char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err)
{
	pthread_mutex_lock(&store->put_lock);
	int r = put_locked(store, name, data, len, hash_hex, err);
	pthread_mutex_unlock(&store->put_lock);
	return r;
}

static int read_index(const char *dir, const char *name, char hash_hex[HASH_SHA256_HEX_LEN + 1],
		      char **err)
{
	_cleanup_free_ char *index = name_index_path(dir, name);
	_cleanup_free_ char *buf = NULL;
	size_t n;
	int r = fileio_read_path(index, INDEX_LEN, &buf, &n);

	if (r == -ENOENT)
		return r;
	if (r == -EFBIG) {
		*err = xasprintf("version index %s for '%s' is damaged (too long); remove it",
				 index, name);
		return -EBADMSG;
	}
	if (r < 0) {
		*err = xasprintf("cannot read version index %s for '%s': %s",
				 index, name, strerror(-r));
		return r;
	}
	if (n != INDEX_LEN || buf[HASH_SHA256_HEX_LEN] != '\n') {
		*err = xasprintf("version index %s for '%s' is damaged (expected 64 hex digits "
				 "and a newline); remove it", index, name);
		return -EBADMSG;
	}
	buf[HASH_SHA256_HEX_LEN] = '\0';
	if (!is_hash_hex(buf)) {
		*err = xasprintf("version index %s for '%s' is damaged (not a hex SHA-256); "
				 "remove it", index, name);
		return -EBADMSG;
	}
	memcpy(hash_hex, buf, HASH_SHA256_HEX_LEN + 1);
	return 0;
}

int blobstore_previous(struct blobstore *store, const char *name,
		       char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err)
{
	return read_index(store->names_dir, name, hash_hex, err);
}

int blobstore_mark_ran(struct blobstore *store, const char *name, const char *hash_hex, char **err)
{
	if (!is_hash_hex(hash_hex)) {
		*err = xasprintf("'%.80s' is not a SHA-256 in lower-case hex (64 digits)", hash_hex);
		return -EINVAL;
	}
	pthread_mutex_lock(&store->put_lock);
	int r = write_index(store->ran_dir, name, hash_hex, err);
	pthread_mutex_unlock(&store->put_lock);
	return r;
}

int blobstore_last_ran(struct blobstore *store, const char *name,
		       char hash_hex[HASH_SHA256_HEX_LEN + 1], char **err)
{
	return read_index(store->ran_dir, name, hash_hex, err);
}
