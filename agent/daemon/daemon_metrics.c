/* daemon_metrics.h: one table-like function per family, written in the
 * order a reader scans them. Values come from status.json, whose fields
 * daemon_status.c writes; a field that is missing (an older agent) leaves
 * its family out rather than printing a made-up zero. */
#include "daemon_metrics.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "macro.h"

/* status.json is small; anything bigger is not the agent's. */
#define STATUS_MAX (1u << 20)

int daemon_status_read(const char *state_dir, json_t **status, long long *age_s,
		       enum daemon_liveness *live)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", state_dir, DAEMON_STATUS_NAME);
	_cleanup_free_ char *data = NULL;
	struct stat st;
	size_t n;
	int r = fileio_read_path(path, STATUS_MAX, &data, &n);

	*status = NULL;
	if (r < 0)
		return r;
	json_t *j = json_loadb(data, n, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return -EBADMSG;
	}
	*age_s = stat(path, &st) == 0 ? (long long)(time(NULL) - st.st_mtime) : -1;
	json_t *pid = json_object_get(j, "pid");
	*live = json_is_integer(pid) ? daemon_liveness(json_integer_value(pid), *age_s) : DAEMON_GONE;
	*status = j;
	return 0;
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, double quote and newline escaped. */
static void label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fprintf(f, "\\%c", *s);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* One sample per key of the object obj, labelled label="key". */
static void by_label(FILE *f, const json_t *status, const char *field, const char *name,
		     const char *type, const char *help, const char *label)
{
	json_t *obj = json_object_get(status, field), *v;
	const char *key;

	if (!json_is_object(obj))
		return;
	family(f, name, type, help);
	json_object_foreach(obj, key, v) {
		fprintf(f, "%s{%s=\"", name, label);
		label_value(f, key);
		fprintf(f, "\"} %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
	}
}

static void number(FILE *f, const json_t *v, const char *name, const char *type, const char *help)
{
	if (!json_is_number(v))
		return;
	family(f, name, type, help);
	fprintf(f, "%s %.17g\n", name, json_number_value(v));
}

static void histogram(FILE *f, const json_t *h, const char *name, const char *help)
{
	json_t *le = json_object_get(h, "le"), *buckets = json_object_get(h, "buckets");
	size_t n = json_array_size(le);

	if (!n || json_array_size(buckets) != n || !json_is_integer(json_object_get(h, "count")))
		return;
	family(f, name, "histogram", help);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s_bucket{le=\"%g\"} %" JSON_INTEGER_FORMAT "\n", name,
			json_number_value(json_array_get(le, i)),
			json_integer_value(json_array_get(buckets, i)));
	json_int_t count = json_integer_value(json_object_get(h, "count"));
	fprintf(f, "%s_bucket{le=\"+Inf\"} %" JSON_INTEGER_FORMAT "\n", name, count);
	fprintf(f, "%s_sum %.17g\n", name, json_number_value(json_object_get(h, "sum")));
	fprintf(f, "%s_count %" JSON_INTEGER_FORMAT "\n", name, count);
}

static void agent_families(FILE *f, const json_t *s)
{
	json_t *queue = json_object_get(s, "queue"), *latency = json_object_get(s, "latency");
	const char *version = json_string_value(json_object_get(s, "agent_version"));

	if (version) {
		family(f, "mai_agent_info", "gauge", "The running agent's version (always 1).");
		fputs("mai_agent_info{version=\"", f);
		label_value(f, version);
		fputs("\"} 1\n", f);
	}
	number(f, json_object_get(s, "uptime_s"), "mai_agent_uptime_seconds", "gauge",
	       "Seconds since the agent started.");
	by_label(f, s, "states", "mai_agent_results_total", "counter",
		 "Final answers written to result.json, by state, since the agent started.", "state");
	by_label(f, s, "levels", "mai_agent_assessments_total", "counter",
		 "Scripts assessed, by level, since the agent started.", "level");
	by_label(f, s, "verdicts", "mai_agent_runs_total", "counter",
		 "Completed sandbox runs, by verdict, since the agent started.", "verdict");
	if (json_is_object(queue)) {
		family(f, "mai_agent_queue_jobs", "gauge", "Jobs waiting for a worker and running now.");
		fprintf(f, "mai_agent_queue_jobs{state=\"queued\"} %" JSON_INTEGER_FORMAT "\n",
			json_integer_value(json_object_get(queue, "queued")));
		fprintf(f, "mai_agent_queue_jobs{state=\"running\"} %" JSON_INTEGER_FORMAT "\n",
			json_integer_value(json_object_get(queue, "running")));
		number(f, json_object_get(queue, "workers"), "mai_agent_workers", "gauge",
		       "Jobs the agent runs at a time.");
		number(f, json_object_get(queue, "retrying"), "mai_agent_retrying_jobs", "gauge",
		       "Scripts waiting to be taken again (Docker down, a failed stage).");
		number(f, json_object_get(queue, "submitted"), "mai_agent_jobs_submitted_total",
		       "counter", "Jobs submitted to the workers since the agent started.");
		number(f, json_object_get(queue, "superseded"), "mai_agent_jobs_superseded_total",
		       "counter", "Jobs dropped because their file changed again before they ran.");
	}
	number(f, json_object_get(s, "retries_total"), "mai_agent_retries_total", "counter",
	       "Retries scheduled since the agent started.");
	histogram(f, json_object_get(latency, "run_seconds"), "mai_agent_run_duration_seconds",
		  "Sandbox run time of completed jobs, from the container's start to the end of the run.");
	histogram(f, json_object_get(latency, "drop_to_result_seconds"),
		  "mai_agent_drop_to_result_seconds",
		  "Time from the agent's intake of a file to its final result.");
	json_t *docker = json_object_get(s, "docker_reachable");
	if (json_is_boolean(docker)) {
		family(f, "mai_agent_docker_up", "gauge",
		       "Whether Docker answered when last checked (1) or not (0).");
		fprintf(f, "mai_agent_docker_up %d\n", json_is_true(docker));
	}
	number(f, json_object_get(s, "pool_size"), "mai_agent_warm_pool_size", "gauge",
	       "Warm containers the sandbox keeps per trust level (0: no warm pool).");
}

static void audit_families(FILE *f, const struct audit_stats *a, time_t now)
{
	family(f, "mai_agent_audit_records_total", "counter",
	       "Records written to the audit log (the last sequence number plus one).");
	fprintf(f, "mai_agent_audit_records_total %" PRIu64 "\n", a->records);
	family(f, "mai_agent_audit_bytes", "gauge", "Size of the audit log's segment files.");
	fprintf(f, "mai_agent_audit_bytes %" PRIu64 "\n", a->bytes);
	if (!a->checkpoint_time)
		return;
	family(f, "mai_agent_audit_checkpoint_tree_size", "gauge",
	       "Records covered by the latest signed checkpoint.");
	fprintf(f, "mai_agent_audit_checkpoint_tree_size %" PRIu64 "\n", a->checkpoint_size);
	family(f, "mai_agent_audit_checkpoint_age_seconds", "gauge",
	       "Seconds since the latest signed checkpoint was written.");
	fprintf(f, "mai_agent_audit_checkpoint_age_seconds %lld\n",
		(long long)(now > a->checkpoint_time ? now - a->checkpoint_time : 0));
}

char *daemon_metrics_render(const struct daemon_metrics_input *in)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	bool up = in->status && in->live == DAEMON_RUNNING;

	if (!f)
		abort(); /* out of memory: the xmalloc policy */
	family(f, "mai_agent_up", "gauge",
	       "Whether the agent runs and rewrites status.json every second (1) or not (0).");
	fprintf(f, "mai_agent_up %d\n", up);
	if (in->status && in->status_age_s >= 0) {
		family(f, "mai_agent_status_age_seconds", "gauge",
		       "Seconds since the agent last wrote status.json.");
		fprintf(f, "mai_agent_status_age_seconds %lld\n", in->status_age_s);
	}
	if (up)
		agent_families(f, in->status);
	if (in->audit)
		audit_families(f, in->audit, in->now);
	fclose(f);
	return text;
}
