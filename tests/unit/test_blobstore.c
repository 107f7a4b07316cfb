#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <pthread.h>
#include <cmocka.h>

#include "blobstore.h"
#include "fileio.h"
#include "hash.h"
#include "macro.h"
#include "testdir.h"

#define V1 "print(1)\n"
#define V2 "print(2)\n"
/* A well-formed hash that no test stores. */
#define ABSENT_HASH "5dc8c4bf2ec5ec4e2ec9a27a3c4f6a8ec3e4b6ae3e5b0ee9b7b6f2c1e2c3c4d5"

static struct blobstore *open_store(const char *dir)
{
	struct blobstore *s = NULL;
	char *err = NULL;
	assert_int_equal(blobstore_open(dir, &s, &err), 0);
	assert_null(err);
	return s;
}

static void put(struct blobstore *s, const char *name, const char *data, size_t len, char *hex)
{
	char *err = NULL;
	assert_int_equal(blobstore_put(s, name, data, len, hex, &err), 0);
	assert_null(err);
}

static void test_round_trip(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char hex[HASH_SHA256_HEX_LEN + 1], want[HASH_SHA256_HEX_LEN + 1];
	char *data = NULL, *err = NULL;
	size_t len;
	struct stat st;

	put(s, "a.py", V1, strlen(V1), hex);
	hash_sha256_hex(V1, strlen(V1), want);
	assert_string_equal(hex, want);

	/* Where the blob lives and how it is protected. */
	char *path = blobstore_blob_path(s, hex);
	char *expect = NULL;
	assert_int_not_equal(asprintf(&expect, "%s/blobs/%.2s/%s", dir, hex, hex), -1);
	assert_string_equal(path, expect);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, strlen(V1));
	/* and its directory is the owner's alone */
	*strrchr(expect, '/') = '\0';
	assert_int_equal(stat(expect, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);

	assert_int_equal(blobstore_get(s, hex, 1 << 20, &data, &len, &err), 0);
	assert_int_equal(len, strlen(V1));
	assert_memory_equal(data, V1, len);
	free(data);

	/* Binary content with NUL bytes and the empty content round-trip too. */
	static const char bin[] = "a\0b\0\0c";
	put(s, "bin.py", bin, sizeof(bin) - 1, hex);
	assert_int_equal(blobstore_get(s, hex, 1 << 20, &data, &len, &err), 0);
	assert_int_equal(len, sizeof(bin) - 1);
	assert_memory_equal(data, bin, len);
	free(data);
	put(s, "empty.py", "", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	assert_int_equal(blobstore_get(s, hex, 1 << 20, &data, &len, &err), 0);
	assert_int_equal(len, 0);
	free(data);

	/* The read cap holds. */
	put(s, "a.py", V1, strlen(V1), hex);
	assert_int_equal(blobstore_get(s, hex, 3, &data, &len, &err), -EFBIG);
	assert_non_null(strstr(err, path));
	free(err);

	free(expect);
	free(path);
	blobstore_free(s);
}

static void test_dedup(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char h1[HASH_SHA256_HEX_LEN + 1], h2[HASH_SHA256_HEX_LEN + 1];
	struct stat before, after;

	put(s, "a.py", V1, strlen(V1), h1);
	char *path = blobstore_blob_path(s, h1);
	assert_int_equal(stat(path, &before), 0);
	put(s, "copy-of-a.py", V1, strlen(V1), h2);
	assert_string_equal(h1, h2);
	assert_int_equal(stat(path, &after), 0);
	/* Same file, not rewritten: an atomic rewrite would give a new inode. */
	assert_int_equal(before.st_ino, after.st_ino);

	/* One blob for the content, and one index entry per name. */
	char *sub = NULL;
	assert_int_not_equal(asprintf(&sub, "%s/blobs/%.2s", dir, h1), -1);
	int count = 0;
	char *cmd = NULL;
	assert_int_not_equal(asprintf(&cmd, "ls -A '%s' | wc -l > '%s/n'; ls -A '%s/blobs/names' | wc -l >> '%s/n'",
				      sub, dir, dir, dir), -1);
	assert_int_equal(system(cmd), 0);
	char *out, *n_path = NULL;
	size_t len;
	assert_int_not_equal(asprintf(&n_path, "%s/n", dir), -1);
	assert_int_equal(fileio_read_path(n_path, 100, &out, &len), 0);
	assert_int_equal(sscanf(out, "%d", &count), 1);
	assert_int_equal(count, 1);
	assert_string_equal(strchr(out, '\n') + 1, "2\n");
	free(out);
	free(n_path);
	free(cmd);
	free(sub);
	free(path);
	blobstore_free(s);
}

static void test_previous_across_reopen(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char h1[HASH_SHA256_HEX_LEN + 1], h2[HASH_SHA256_HEX_LEN + 1], prev[HASH_SHA256_HEX_LEN + 1];
	char *err = NULL;
	/* A hostile name: slashes, "..", a newline. Its index is keyed by hash. */
	const char *odd = "../../etc/passwd\nx.py";

	assert_int_equal(blobstore_previous(s, "a.py", prev, &err), -ENOENT);
	assert_null(err);
	put(s, "a.py", V1, strlen(V1), h1);
	put(s, odd, V2, strlen(V2), h2);
	blobstore_free(s);

	s = open_store(dir);
	assert_int_equal(blobstore_previous(s, "a.py", prev, &err), 0);
	assert_string_equal(prev, h1);
	assert_int_equal(blobstore_previous(s, odd, prev, &err), 0);
	assert_string_equal(prev, h2);
	assert_int_equal(blobstore_previous(s, "b.py", prev, &err), -ENOENT);
	assert_null(err);

	/* The index file is named by the name's hash and holds the hex hash. */
	char key[HASH_SHA256_HEX_LEN + 1], *ipath = NULL, *buf;
	size_t len;
	struct stat st;
	hash_sha256_hex("a.py", 4, key);
	assert_int_not_equal(asprintf(&ipath, "%s/blobs/names/%s", dir, key), -1);
	assert_int_equal(fileio_read_path(ipath, 1000, &buf, &len), 0);
	assert_int_equal(len, 65);
	assert_memory_equal(buf, h1, 64);
	assert_int_equal(buf[64], '\n');
	assert_int_equal(stat(ipath, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	free(buf);

	/* A new version moves the name on; the old blob stays readable. */
	put(s, "a.py", V2, strlen(V2), h2);
	assert_int_equal(blobstore_previous(s, "a.py", prev, &err), 0);
	assert_string_equal(prev, h2);
	char *data;
	assert_int_equal(blobstore_get(s, h1, 1000, &data, &len, &err), 0);
	assert_memory_equal(data, V1, strlen(V1));
	free(data);

	/* A damaged index entry is reported with its path. */
	assert_int_equal(fileio_write_atomic(ipath, "not a hash\n", 11, 0600), 0);
	assert_int_equal(blobstore_previous(s, "a.py", prev, &err), -EBADMSG);
	assert_non_null(strstr(err, ipath));
	assert_non_null(strstr(err, "is damaged"));
	free(err);
	free(ipath);
	blobstore_free(s);
}

static void test_corrupted_blob_detected(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char hex[HASH_SHA256_HEX_LEN + 1], again[HASH_SHA256_HEX_LEN + 1], bad[HASH_SHA256_HEX_LEN + 1];
	char *data = NULL, *err = NULL, *msg = NULL;
	size_t len;

	put(s, "a.py", V1, strlen(V1), hex);
	char *path = blobstore_blob_path(s, hex);
	/* Same length, one byte changed: only the hash check can see it. */
	assert_int_equal(fileio_write_atomic(path, "print(7)\n", 9, 0600), 0);
	hash_sha256_hex("print(7)\n", 9, bad);

	assert_int_equal(blobstore_get(s, hex, 1000, &data, &len, &err), -EBADMSG);
	assert_null(data);
	assert_int_not_equal(asprintf(&msg, "stored version %s is corrupted (its content hashes to %s); "
				      "remove it, the next version of the script is stored afresh",
				      path, bad), -1);
	assert_string_equal(err, msg);
	free(err);
	err = NULL;

	/* Storing the same content again repairs it instead of deduplicating. */
	put(s, "a.py", V1, strlen(V1), again);
	assert_string_equal(again, hex);
	assert_int_equal(blobstore_get(s, hex, 1000, &data, &len, &err), 0);
	assert_memory_equal(data, V1, len);
	free(data);

	/* A missing blob and a malformed hash are errors, not paths to open. */
	assert_int_equal(blobstore_get(s, "../../../../etc/passwd", 1000, &data, &len, &err), -EINVAL);
	assert_non_null(strstr(err, "not a SHA-256"));
	free(err);
	assert_int_equal(blobstore_get(s, ABSENT_HASH, 1000, &data, &len, &err), -ENOENT);
	assert_non_null(strstr(err, "no stored version " ABSENT_HASH));
	free(err);

	free(msg);
	free(path);
	blobstore_free(s);
}

/* A damaged version index (too long, the wrong length, not hex, not a
 * file) is refused with the file, the script's name and what to do, and
 * the next put of that script writes it afresh. */
static void test_damaged_index(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char hex[HASH_SHA256_HEX_LEN + 1], key[HASH_SHA256_HEX_LEN + 1];
	char *err = NULL;

	put(s, "a.py", V1, strlen(V1), hex);
	hash_sha256_hex("a.py", 4, key);
	_cleanup_free_ char *names = xasprintf("%s/blobs/names", dir);
	_cleanup_free_ char *index = xasprintf("%s/%s", names, key);
	char long_text[200];
	memset(long_text, 'a', sizeof(long_text));
	static const char not_hex[] = "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n";
	const struct {
		const char *text;
		size_t len;
		const char *says;
	} cases[] = {
		{ long_text, sizeof(long_text), "is damaged (too long); remove it" },
		{ "abc\n", 4, "is damaged (expected 64 hex digits and a newline); remove it" },
		{ not_hex, sizeof(not_hex) - 1, "is damaged (not a hex SHA-256); remove it" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(fileio_write_atomic(index, cases[i].text, cases[i].len, 0600), 0);
		assert_int_equal(blobstore_previous(s, "a.py", hex, &err), -EBADMSG);
		if (!strstr(err, index) || !strstr(err, "for 'a.py'") || !strstr(err, cases[i].says))
			fail_msg("case %zu: %s", i, err);
		free(err);
		err = NULL;
	}
	assert_int_equal(unlink(index), 0);
	assert_int_equal(mkdir(index, 0700), 0);
	assert_true(blobstore_previous(s, "a.py", hex, &err) < 0);
	assert_non_null(strstr(err, "cannot read version index "));
	free(err);
	err = NULL;
	assert_int_equal(rmdir(index), 0);
	put(s, "a.py", V2, strlen(V2), hex);
	char prev[HASH_SHA256_HEX_LEN + 1];
	assert_int_equal(blobstore_previous(s, "a.py", prev, &err), 0);
	assert_string_equal(prev, hex);
	blobstore_free(s);
}

/* What the store cannot write or read, for real: the blob's subdirectory
 * taken by a file, the blob itself and the name's index too large for the
 * disk (RLIMIT_FSIZE cuts them as a full disk does), a stored version that
 * is a directory. Each is refused with the path and the errno. */
static void test_store_failures(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	char hex[HASH_SHA256_HEX_LEN + 1], *err = NULL;
	char v1[HASH_SHA256_HEX_LEN + 1];
	hash_sha256_hex(V1, strlen(V1), v1);
	_cleanup_free_ char *sub = xasprintf("%s/blobs/%.2s", dir, v1);

	assert_int_equal(fileio_write_atomic(sub, "x", 1, 0600), 0);
	assert_int_equal(blobstore_put(s, "a.py", V1, strlen(V1), hex, &err), -ENOTDIR);
	assert_non_null(strstr(err, "cannot create "));
	assert_non_null(strstr(err, ": Not a directory"));
	free(err);
	assert_int_equal(unlink(sub), 0);

	struct rlimit saved, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	lim = saved;
	lim.rlim_cur = 4;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int r1 = blobstore_put(s, "a.py", V1, strlen(V1), hex, &err);
	char *err1 = steal_pointer(&err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	assert_int_equal(r1, -EFBIG);
	assert_non_null(strstr(err1, "cannot write stored version "));
	free(err1);

	/* The blob fits (9 bytes), the index line (65) does not. */
	lim.rlim_cur = 32;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int r2 = blobstore_put(s, "a.py", V1, strlen(V1), hex, &err);
	char *err2 = steal_pointer(&err);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
	signal(SIGXFSZ, old_handler);
	assert_int_equal(r2, -EFBIG);
	assert_non_null(strstr(err2, "cannot record a version of 'a.py' in "));
	free(err2);

	_cleanup_free_ char *blob = blobstore_blob_path(s, ABSENT_HASH);
	assert_int_equal(fileio_mkdir_p(blob, 0700), 0);
	char *data = NULL;
	size_t len;
	assert_int_equal(blobstore_get(s, ABSENT_HASH, 1024, &data, &len, &err), -EINVAL);
	assert_non_null(strstr(err, "cannot read stored version "));
	free(err);
	blobstore_free(s);
}

static void test_open_error_names_the_directory(void **state)
{
	const char *dir = *state;
	char *file = NULL, *err = NULL;
	struct blobstore *s = NULL;

	assert_int_not_equal(asprintf(&file, "%s/not-a-dir", dir), -1);
	assert_int_equal(fileio_write_atomic(file, "x", 1, 0600), 0);
	assert_int_equal(blobstore_open(file, &s, &err), -ENOTDIR);
	assert_null(s);
	assert_non_null(strstr(err, file));
	assert_non_null(strstr(err, "config/agent.yaml"));
	free(err);
	free(file);
}

struct put_job {
	struct blobstore *store;
	int id, failures;
};

static void *put_many(void *arg)
{
	struct put_job *job = arg;
	char hex[HASH_SHA256_HEX_LEN + 1], name[32];

	for (int i = 0; i < 20; i++) {
		char *err = NULL;
		snprintf(name, sizeof(name), "w%d.py", i % 2 ? job->id : 0);
		if (blobstore_put(job->store, name, V2, strlen(V2), hex, &err) < 0)
			job->failures++;
		free(err);
	}
	return NULL;
}

/* Workers storing the same content and name at once: all succeed and the
 * blob stays intact. */
static void test_concurrent_puts(void **state)
{
	const char *dir = *state;
	struct blobstore *s = open_store(dir);
	pthread_t t[4];
	struct put_job jobs[4];
	char want[HASH_SHA256_HEX_LEN + 1], prev[HASH_SHA256_HEX_LEN + 1];
	char *data, *err = NULL;
	size_t len;

	for (int i = 0; i < 4; i++) {
		jobs[i] = (struct put_job){ .store = s, .id = i };
		assert_int_equal(pthread_create(&t[i], NULL, put_many, &jobs[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(jobs[i].failures, 0);
	}
	hash_sha256_hex(V2, strlen(V2), want);
	assert_int_equal(blobstore_previous(s, "w0.py", prev, &err), 0);
	assert_string_equal(prev, want);
	assert_int_equal(blobstore_get(s, want, 1000, &data, &len, &err), 0);
	assert_memory_equal(data, V2, len);
	free(data);
	blobstore_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_dedup, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_previous_across_reopen, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_corrupted_blob_detected, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_damaged_index, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_open_error_names_the_directory, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_puts, testdir_setup, testdir_teardown),
		cmocka_unit_test_setup_teardown(test_store_failures, testdir_setup, testdir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
