/* The audit writer's memory against the number of jobs: appends each job's
 * records straight to a log (job_accepted, assessment, decision, execution,
 * with fields the size of real ones) and signs a checkpoint after every job
 * as the agent does for each job's sidecar, then reports the resident set
 * at each given number of jobs. Only the writer's API that every version
 * has is used, so bench_audit_rss.sh builds this same file against the
 * code before a change and after it and shows the two side by side. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit.h"
#include "macro.h"

static long status_kib(const char *field)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(field);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, field, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void append(struct audit_log *log, const char *type, json_t *f)
{
	if (audit_append(log, type, f, NULL) < 0) {
		fprintf(stderr, "bench_audit_rss: cannot append %s\n", type);
		exit(1);
	}
	json_decref(f);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: bench_audit_rss SCRATCH_DIR KEY JOBS...\n"
				"  reports rss_kib after each number of jobs (ascending)\n");
		return 2;
	}
	const char *sha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	_cleanup_free_ char *dir = xasprintf("%s/audit", argv[1]);
	struct audit_options o = { .log_dir = dir, .signing_key = argv[2], .origin = "mai.bench/audit",
				   .fsync = 0 };
	struct audit_log *log = NULL;
	_cleanup_free_ char *err = NULL;
	if (audit_open(&o, &log, &err) < 0) {
		fprintf(stderr, "bench_audit_rss: %s\n", err);
		return 2;
	}
	printf("start rss_kib %ld\n", status_kib("VmRSS"));
	long done = 0;
	double t0 = now();
	for (int a = 3; a < argc; a++) {
		long until = atol(argv[a]);
		for (; done < until; done++) {
			char file[32];
			snprintf(file, sizeof(file), "job%06ld.py", done % 1000);
			json_int_t job = (json_int_t)audit_size(log);
			append(log, "job_accepted", json_pack("{s:s, s:s, s:i, s:i, s:s}", "file", file, "sha256", sha,
							      "size", 812, "uid", 1000, "history", "changed"));
			append(log, "assessment", json_pack("{s:s, s:s, s:I, s:i, s:b, s:{s:s, s:f, s:[{s:s, s:s, s:i, s:i, s:s}]}}",
							    "file", file, "sha256", sha, "job", job, "level", 1,
							    "rejected", 0, "assessment", "level", "MEDIUM", "score", 24.0,
							    "findings", "rule_id", "MAI030", "severity", "MEDIUM", "line", 3,
							    "col", 5, "message", "opens a file for writing"));
			append(log, "decision", json_pack("{s:s, s:s, s:I, s:s, s:s}", "file", file, "sha256", sha, "job",
							  job, "action", "run", "by", "policy"));
			append(log, "execution", json_pack("{s:s, s:s, s:I, s:s, s:{s:i, s:{s:s, s:b}, s:i, s:i}}", "file",
							   file, "sha256", sha, "job", job, "verdict", "exited",
							   "execution", "exit_code", 0, "stdout", "text", "45\n",
							   "truncated", 0, "wall_ms", 180, "cpu_ms", 21));
			if (audit_checkpoint_now(log) < 0) {
				fprintf(stderr, "bench_audit_rss: checkpoint failed\n");
				return 1;
			}
		}
		printf("jobs %ld records %llu rss_kib %ld seconds %.1f\n", done, (unsigned long long)audit_size(log),
		       status_kib("VmRSS"), now() - t0);
		fflush(stdout);
	}
	printf("peak rss_kib %ld\n", status_kib("VmHWM"));
	audit_close(log);
	return 0;
}
