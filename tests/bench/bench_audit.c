/* Audit log benchmark: durable appends per second with group commit, full
 * verification speed, and inclusion proofs on a 1,000,000-record log. Run
 * through run.sh, which puts the numbers next to `openssl speed`. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "audit.h"
#include "audit_verify.h"
#include "fileio.h"
#include "macro.h"
#include "merkle.h"
#include "note_sign.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct worker {
	struct audit_log *log;
	int n;
};

static void *append_many(void *p)
{
	struct worker *w = p;
	json_t *f = json_pack("{s:s, s:s, s:i}", "file", "drop/example.py", "sha256",
			      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "exit_code", 0);
	for (int i = 0; i < w->n; i++)
		if (audit_append(w->log, "execution", f, NULL) < 0)
			abort();
	json_decref(f);
	return NULL;
}

static struct audit_log *open_log(const char *dir, const char *sub, int fsync)
{
	_cleanup_free_ char *log_dir = xasprintf("%s/%s", dir, sub), *key = xasprintf("%s/bench.key", dir);
	struct audit_options o = { .log_dir = log_dir, .signing_key = key, .origin = "mai.bench/audit",
				   .fsync = fsync };
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	if (audit_open(&o, &log, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		exit(2);
	}
	return log;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_audit SCRATCH_DIR [THREADS] [APPENDS] [RECORDS]\n");
		return 2;
	}
	const char *dir = argv[1];
	int threads = argc > 2 ? atoi(argv[2]) : 16;
	int appends = argc > 3 ? atoi(argv[3]) : 200000;
	int records = argc > 4 ? atoi(argv[4]) : 1000000;

	/* 1. Durable appends: every append returns only after fdatasync. */
	struct audit_log *log = open_log(dir, "durable", 1);
	pthread_t th[1024];
	static struct worker w[1024];
	if (threads > 1024)
		threads = 1024;
	double t0 = now();
	for (int i = 0; i < threads; i++) {
		w[i] = (struct worker){ log, appends / threads };
		pthread_create(&th[i], NULL, append_many, &w[i]);
	}
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	double t1 = now();
	uint64_t done = audit_size(log);
	audit_close(log);
	printf("durable_appends_per_s %.0f (%llu appends, %d threads, fdatasync per group)\n",
	       (double)done / (t1 - t0), (unsigned long long)done, threads);

	/* 2. Verification of a large log (written without fsync to save time;
	 * the bytes are the same). */
	log = open_log(dir, "big", 0);
	w[0] = (struct worker){ log, records };
	append_many(&w[0]);
	audit_close(log);
	_cleanup_free_ char *big = xasprintf("%s/big", dir), *pub = xasprintf("%s/big/pubkey", dir);
	_cleanup_free_ char *seg = xasprintf("%s/big/seg-000000000000.log", dir);
	struct stat st;
	stat(seg, &st);
	struct audit_verify_report rep;
	/* Warm the page cache once, then measure. */
	audit_verify_log(big, pub, &rep);
	audit_verify_report_clear(&rep);
	double c0 = cpu_seconds();
	t0 = now();
	int r = audit_verify_log(big, pub, &rep);
	t1 = now();
	double c1 = cpu_seconds();
	if (r < 0 || !rep.ok) {
		fprintf(stderr, "bench: verification failed\n");
		return 1;
	}
	printf("verify_records %llu\nverify_bytes %lld\nverify_seconds %.3f\nverify_mb_per_s %.1f\n"
	       "verify_cpu_seconds %.3f (both threads)\n",
	       (unsigned long long)rep.entries, (long long)st.st_size, t1 - t0,
	       (double)st.st_size / 1e6 / (t1 - t0), c1 - c0);
	audit_verify_report_clear(&rep);

	/* 3. Inclusion proofs on a 1,000,000-leaf tree. */
	struct merkle_tree *t = merkle_tree_new();
	for (int i = 0; i < records; i++) {
		uint8_t h[MERKLE_HASH_LEN];
		merkle_leaf_hash(&i, sizeof(i), h);
		merkle_tree_append(t, h);
	}
	uint8_t root[MERKLE_HASH_LEN], proof[MERKLE_MAX_PROOF][MERKLE_HASH_LEN];
	size_t n;
	merkle_tree_root(t, (uint64_t)records, root);
	srandom(1);
	const int rounds = 10000;
	t0 = now();
	for (int i = 0; i < rounds; i++) {
		uint64_t idx = (uint64_t)random() % (uint64_t)records;
		merkle_tree_inclusion_proof(t, idx, (uint64_t)records, proof, &n);
		if (merkle_verify_inclusion(merkle_tree_leaf(t, idx), idx, (uint64_t)records,
					    (const void *)proof, n, root) < 0)
			return 1;
	}
	t1 = now();
	printf("inclusion_proof_us %.2f (make + verify, %d-leaf tree)\n", (t1 - t0) / rounds * 1e6, records);
	merkle_tree_free(t);
	return 0;
}
