/* Sandbox benchmark (not part of the test suite; run through run.sh):
 *   bench_sandbox latency warm|cold N    each run's latency of a trivial script
 *       (MAI_BENCH_END=events|docker forces how the end of a run is learnt,
 *       as on kernels before 6.15, or with neither of the kernel's ways)
 *   bench_sandbox throughput N WORKERS   runs/s through sandbox_run (pooled)
 *   bench_sandbox churn N WORKERS        runs/s of a bare create/start/wait/
 *                                        remove loop: the engine's churn limit
 * Output: one line "name value..." per measure, for bench_sandbox.sh to
 * tabulate; latencies as samples, for the benchmarks' one percentile
 * definition (pct.py). Every wait gives up after a minute and says so. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "docker.h"
#include "sandbox.h"
#include "sandbox_attach.h"
#include "monoclock.h"
#include "stagetime.h"

static const char trivial[] = "print('ok')\n";

/* Milliseconds with a microsecond's resolution, for the latencies. */
static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *image(void)
{
	const char *s = getenv("MAI_SANDBOX_IMAGE");
	return s && *s ? s : "mai-sandbox:latest";
}

static struct sandbox *open_sandbox(unsigned pool, unsigned workers)
{
	struct sandbox_options o;
	struct sandbox *sb = NULL;
	char *err = NULL, inst[64];

	snprintf(inst, sizeof(inst), "bench-%ld", (long)getpid());
	sandbox_options_defaults(&o);
	o.image = image();
	o.instance_id = inst;
	o.pool_size = pool;
	o.workers = workers;
	const char *end = getenv("MAI_BENCH_END");
	if (end && strcmp(end, "events") == 0)
		o.exit_source = SANDBOX_EXIT_NETLINK;
	else if (end && strcmp(end, "docker") == 0)
		o.exit_source = SANDBOX_EXIT_DOCKER;
	if (sandbox_new(&o, &sb, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err);
		exit(1);
	}
	return sb;
}

/* 0 or 1: whether the run ended on the kernel's word (sandbox_attach.h);
 * -1 on a failed run. */
static int one_run(struct sandbox *sb)
{
	struct sandbox_job job = { .job_id = "bench", .file_name = "bench.py",
				   .code = (const uint8_t *)trivial, .len = sizeof(trivial) - 1,
				   .trust = TRUST_STANDARD };
	struct sandbox_result r;
	int ok, by_kernel;

	sandbox_run(sb, &job, &r);
	ok = r.verdict == SANDBOX_VERDICT_EXITED && r.exit_code == 0 && strcmp(r.out.data, "ok\n") == 0;
	if (!ok)
		fprintf(stderr, "bench: run failed: %s\n", r.message ? r.message : "wrong output");
	by_kernel = r.ended_by_kernel;
	sandbox_result_clear(&r);
	return ok ? by_kernel : -1;
}

/* Until the warm pool of trust level STANDARD has want containers ready;
 * exits the benchmark after a minute. */
static void wait_warm(struct sandbox *sb, unsigned want)
{
	int64_t end = monoclock_ms() + 60000;
	while (sandbox_warm_ready(sb, TRUST_STANDARD) < want) {
		if (monoclock_ms() > end) {
			fprintf(stderr, "bench: gave up after 60 s waiting for %u warm container%s "
				"(ready: %u)\n", want, want == 1 ? "" : "s",
				sandbox_warm_ready(sb, TRUST_STANDARD));
			exit(1);
		}
		usleep(10000);
	}
}

/* The stages of a run the sandbox times (stagetime.h). */
static const enum stage run_stages[] = { STAGE_CONTAINER, STAGE_SCRIPT, STAGE_END, STAGE_OUTPUT,
					 STAGE_REMOVAL };
#define N_RUN_STAGES (sizeof(run_stages) / sizeof(run_stages[0]))

static int latency(bool warm, int n)
{
	struct sandbox *sb = open_sandbox(warm ? 1 : 0, 1);
	double *ms = calloc((size_t)n, sizeof(*ms));
	double *stage_ms = calloc((size_t)n * N_RUN_STAGES, sizeof(*stage_ms));
	int by_kernel = 0, e;

	for (int i = 0; i < n; i++) {
		double t;
		/* Warm: measure a job that finds its container ready and the last
		 * one removed, as a job arriving at an idle agent does. */
		if (warm) {
			sandbox_wait_removed(sb);
			wait_warm(sb, 1);
		}
		struct stagetime st = { 0 };
		stagetime_bind(&st);
		t = now_ms();
		if ((e = one_run(sb)) < 0)
			return 1;
		ms[i] = now_ms() - t;
		stagetime_bind(NULL);
		for (size_t k = 0; k < N_RUN_STAGES; k++)
			stage_ms[(size_t)i * N_RUN_STAGES + k] = (double)st.ns[run_stages[k]] / 1e6;
		by_kernel += e;
	}
	printf("%s_latency_ms kernel_end %d samples", warm ? "warm" : "cold", by_kernel);
	for (int i = 0; i < n; i++)
		printf(" %.1f", ms[i]);
	printf("\n");
	for (size_t k = 0; k < N_RUN_STAGES; k++) {
		printf("%s_stage_ms %s samples", warm ? "warm" : "cold", stage_to_string(run_stages[k]));
		for (int i = 0; i < n; i++)
			printf(" %.2f", stage_ms[(size_t)i * N_RUN_STAGES + k]);
		printf("\n");
	}
	free(stage_ms);
	free(ms);
	sandbox_free(sb);
	return 0;
}

struct worker_ctx {
	struct sandbox *sb;
	struct docker *d;
	atomic_int left;
	atomic_int failed;
};

static void *sandbox_worker(void *arg)
{
	struct worker_ctx *c = arg;

	while (atomic_fetch_sub(&c->left, 1) > 0)
		if (one_run(c->sb) < 0)
			atomic_fetch_add(&c->failed, 1);
	return NULL;
}

static void *churn_worker(void *arg)
{
	struct worker_ctx *c = arg;
	const char *cmd[] = { "python3", "-c", "print('ok')", NULL };
	char inst[64];
	struct docker_label labels[] = { { "mai.agent", "1" }, { "mai.instance", inst } };
	struct docker_create_params p = {
		.image = image(), .cmd = cmd, .user = "1000:1000", .workdir = "/tmp",
		.labels = labels, .n_labels = 2, .memory_bytes = 256 << 20,
		.nano_cpus = 1000000000, .pids_limit = 64, .tmpfs_bytes = 32 << 20, .nofile = 128,
		.fsize_bytes = 16 << 20,
	};

	snprintf(inst, sizeof(inst), "bench-%ld", (long)getpid());
	while (atomic_fetch_sub(&c->left, 1) > 0) {
		char *id = NULL, *err = NULL;
		int64_t code;
		if (docker_container_create(c->d, &p, &id, &err) ||
		    docker_container_start(c->d, id, &err) ||
		    docker_container_wait(c->d, id, 60000, &code, &err) ||
		    docker_container_remove(c->d, id, &err)) {
			fprintf(stderr, "bench: churn: %s\n", err);
			free(err);
			atomic_fetch_add(&c->failed, 1);
			if (id)
				docker_container_remove(c->d, id, &err);
		}
		free(id);
	}
	return NULL;
}

static int parallel(bool churn, int n, int workers)
{
	struct worker_ctx c = { 0 };
	pthread_t th[64];
	int64_t t;

	if (workers < 1 || workers > 64)
		workers = 1;
	atomic_init(&c.left, n);
	atomic_init(&c.failed, 0);
	if (churn) {
		c.d = docker_new(NULL);
	} else {
		c.sb = open_sandbox((unsigned)workers, (unsigned)workers);
		wait_warm(c.sb, (unsigned)workers); /* the pool full, as between bursts */
	}
	t = monoclock_ms();
	for (int i = 0; i < workers; i++)
		pthread_create(&th[i], NULL, churn ? churn_worker : sandbox_worker, &c);
	for (int i = 0; i < workers; i++)
		pthread_join(th[i], NULL);
	t = monoclock_ms() - t;
	printf("%s_runs_per_s %.2f runs %d workers %d failed %d seconds %.1f\n",
	       churn ? "churn" : "sandbox", n * 1000.0 / (double)t, n, workers,
	       atomic_load(&c.failed), t / 1000.0);
	if (c.sb)
		sandbox_free(c.sb);
	if (c.d)
		docker_free(c.d);
	return atomic_load(&c.failed) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "latency") == 0)
		return latency(strcmp(argv[2], "warm") == 0, atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "throughput") == 0)
		return parallel(false, atoi(argv[2]), atoi(argv[3]));
	if (argc >= 4 && strcmp(argv[1], "churn") == 0)
		return parallel(true, atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: bench_sandbox latency warm|cold N | throughput N WORKERS | "
			"churn N WORKERS\n");
	return 2;
}
