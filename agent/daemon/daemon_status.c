/* status.json and the counts it shows (daemon_status.h). */
#include "daemon_status.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

const double daemon_status_buckets[DAEMON_STATUS_BUCKETS] = {
	0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
};

struct histogram {
	uint64_t buckets[DAEMON_STATUS_BUCKETS]; /* not cumulative here */
	uint64_t count;
	double sum;
};

struct daemon_status {
	pthread_mutex_t lock;
	unsigned counts_state[RESULT_ERROR + 1];
	unsigned counts_level[LEVEL_BLOCKED + 1];
	uint64_t counts_verdict[RESULT_VERDICT_SANDBOX_ERROR + 1];
	uint64_t retries;
	struct histogram run, drop_to_result;
	bool dirty;
};

static void histogram_observe(struct histogram *h, double seconds)
{
	if (seconds < 0)
		seconds = 0;
	for (int i = 0; i < DAEMON_STATUS_BUCKETS; i++) {
		if (seconds <= daemon_status_buckets[i]) {
			h->buckets[i]++;
			break;
		}
	}
	h->count++;
	h->sum += seconds;
}

static json_t *histogram_json(const struct histogram *h)
{
	json_t *le = json_array(), *cum = json_array();
	uint64_t c = 0;

	for (int i = 0; i < DAEMON_STATUS_BUCKETS; i++) {
		c += h->buckets[i];
		json_array_append_new(le, json_real(daemon_status_buckets[i]));
		json_array_append_new(cum, json_integer((json_int_t)c));
	}
	return json_pack("{s:o, s:o, s:I, s:f}", "le", le, "buckets", cum, "count",
			 (json_int_t)h->count, "sum", h->sum);
}

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

struct daemon_status *daemon_status_new(void)
{
	struct daemon_status *st = xcalloc(1, sizeof(*st));
	pthread_mutex_init(&st->lock, NULL);
	return st;
}

void daemon_status_free(struct daemon_status *st)
{
	if (!st)
		return;
	pthread_mutex_destroy(&st->lock);
	free(st);
}

void daemon_status_count_state(struct daemon_status *st, enum result_state s)
{
	pthread_mutex_lock(&st->lock);
	/* Answers by state: the transient queued/running sidecars do not count. */
	if ((unsigned)s <= RESULT_ERROR && s != RESULT_QUEUED && s != RESULT_RUNNING)
		st->counts_state[s]++;
	st->dirty = true;
	pthread_mutex_unlock(&st->lock);
}

void daemon_status_count_level(struct daemon_status *st, enum level l)
{
	pthread_mutex_lock(&st->lock);
	if ((unsigned)l <= LEVEL_BLOCKED)
		st->counts_level[l]++;
	st->dirty = true;
	pthread_mutex_unlock(&st->lock);
}

void daemon_status_observe_result(struct daemon_status *st, const struct result_info *r)
{
	struct timespec now;

	if (r->state == RESULT_QUEUED || r->state == RESULT_RUNNING)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	const struct timespec *end = r->finished.tv_sec ? &r->finished : &now;
	pthread_mutex_lock(&st->lock);
	if (r->state == RESULT_COMPLETED && (unsigned)r->verdict <= RESULT_VERDICT_SANDBOX_ERROR)
		st->counts_verdict[r->verdict]++;
	if (r->state == RESULT_COMPLETED && r->started.tv_sec)
		histogram_observe(&st->run, seconds_between(&r->started, end));
	if (r->accepted.tv_sec)
		histogram_observe(&st->drop_to_result, seconds_between(&r->accepted, end));
	st->dirty = true;
	pthread_mutex_unlock(&st->lock);
}

void daemon_status_count_retry(struct daemon_status *st)
{
	pthread_mutex_lock(&st->lock);
	st->retries++;
	st->dirty = true;
	pthread_mutex_unlock(&st->lock);
}

bool daemon_status_dirty(struct daemon_status *st)
{
	pthread_mutex_lock(&st->lock);
	bool d = st->dirty;
	pthread_mutex_unlock(&st->lock);
	return d;
}

int daemon_status_write(struct daemon_status *st, const char *state_dir,
			const struct daemon_status_facts *f)
{
	json_t *states = json_object(), *levels = json_object(), *verdicts = json_object();

	pthread_mutex_lock(&st->lock);
	for (unsigned i = RESULT_VERDICT_EXITED; i <= RESULT_VERDICT_SANDBOX_ERROR; i++)
		json_object_set_new(verdicts, result_verdict_to_string(i),
				    json_integer((json_int_t)st->counts_verdict[i]));
	json_t *latency = json_pack("{s:o, s:o}", "run_seconds", histogram_json(&st->run),
				    "drop_to_result_seconds", histogram_json(&st->drop_to_result));
	json_int_t retries = (json_int_t)st->retries;
	for (unsigned i = RESULT_COMPLETED; i <= RESULT_ERROR; i++)
		json_object_set_new(states, result_state_to_string(i),
				    json_integer(st->counts_state[i]));
	for (unsigned i = 0; i <= LEVEL_BLOCKED; i++)
		json_object_set_new(levels, level_to_string(i), json_integer(st->counts_level[i]));
	st->dirty = false;
	pthread_mutex_unlock(&st->lock);

	json_t *o = json_pack("{s:i, s:s, s:I, s:I, s:s, s:s, s:b,"
			      " s:{s:i, s:i, s:i, s:I, s:I, s:I}, s:o, s:o, s:s}",
		"schema_version", 1, "agent_version", MAI_VERSION,
		"pid", (json_int_t)getpid(),
		"uptime_s", (json_int_t)f->uptime_s,
		"drop_dir", f->drop_dir,
		"drop_mode", f->drop_mode ? f->drop_mode : "watch",
		"watching", f->watching,
		"queue", "queued", f->queued, "running", f->running, "workers", f->workers,
		"retrying", (json_int_t)f->retrying, "submitted", (json_int_t)f->submitted,
		"superseded", (json_int_t)f->superseded,
		"states", states, "levels", levels,
		"config_sha256", f->config_sha256);
	json_object_set_new(o, "verdicts", verdicts);
	json_object_set_new(o, "latency", latency);
	json_object_set_new(o, "retries_total", json_integer(retries));
	json_object_set_new(o, "pool_size", json_integer(f->pool_size));
	if (f->config_dir)
		json_object_set_new(o, "config_dir", json_string(f->config_dir));
	if (!f->docker_known) {
		json_object_set_new(o, "docker_reachable", json_null());
	} else {
		char when[40];
		result_format_time(f->docker_checked, when, sizeof(when));
		json_object_set_new(o, "docker_reachable", json_boolean(f->docker_reachable));
		json_object_set_new(o, "docker_checked", json_string(when));
		if (f->docker_error)
			json_object_set_new(o, "docker_error", json_string(f->docker_error));
	}
	json_t *rt = json_object();
	for (int t = 0; t < TRUST_COUNT; t++)
		if (f->runtimes[t])
			json_object_set_new(rt, trust_to_string((enum trust)t),
					    json_string(f->runtimes[t]));
	json_object_set_new(o, "runtimes", rt);
	json_t *warnings = json_array();
	if (f->runtime_warning)
		json_array_append_new(warnings, json_string(f->runtime_warning));
	json_object_set_new(o, "warnings", warnings);
	if (f->engine)
		json_object_set(o, "engine", f->engine);
	if (f->audit_state)
		json_object_set_new(o, "audit", json_pack("{s:s, s:s?}", "state", f->audit_state, "message",
							  f->audit_message));
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	_cleanup_free_ char *path = xasprintf("%s/%s", state_dir, DAEMON_STATUS_NAME);
	int r = fileio_write_replace(path, text, strlen(text), 0644);
	free(text);
	return r;
}

enum daemon_liveness daemon_liveness(long long pid, long long age_s)
{
	if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
		return DAEMON_GONE;
	return age_s >= 0 && age_s <= DAEMON_STATUS_STALE_S ? DAEMON_RUNNING : DAEMON_STUCK;
}
