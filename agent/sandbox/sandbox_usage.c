#include "sandbox_usage.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fileio.h"
#include "macro.h"
#include "sandbox_cgroup.h"

#define SAMPLE_INTERVAL_NS 50000000L

static int64_t read_value(const char *dir, const char *file, const char *key)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, file);
	_cleanup_free_ char *s = NULL;
	size_t len;
	long long v;

	if (fileio_read_path(path, 8192, &s, &len) < 0)
		return -1;
	if (!key)
		return sscanf(s, "%lld", &v) == 1 ? v : -1;
	for (char *line = s; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		size_t k = strlen(key);
		if (strncmp(line, key, k) == 0 && line[k] == ' ' && sscanf(line + k + 1, "%lld", &v) == 1)
			return v;
	}
	return -1;
}

static void max_into(int64_t *dst, int64_t v)
{
	if (v > *dst)
		*dst = v;
}

/* One sample from the cgroup files. Whether the counters a verdict rests on
 * (OOM kills, refused forks) could be read: not once the cgroup is gone. */
static bool sample_files(struct sandbox_usage *u)
{
	int64_t v, oom = -1, refused = -1;

	if (u->memory_dir) {
		if (u->cgroup_version == 1) {
			max_into(&u->peak_memory_bytes,
				 read_value(u->memory_dir, "memory.max_usage_in_bytes", NULL));
			oom = read_value(u->memory_dir, "memory.oom_control", "oom_kill");
		} else {
			/* memory.peak exists from Linux 5.19; sample current otherwise. */
			v = read_value(u->memory_dir, "memory.peak", NULL);
			max_into(&u->peak_memory_bytes,
				 v >= 0 ? v : read_value(u->memory_dir, "memory.current", NULL));
			oom = read_value(u->memory_dir, "memory.events", "oom_kill");
		}
		max_into(&u->oom_kills, oom);
	}
	if (u->cpu_dir) {
		v = u->cgroup_version == 1 ? read_value(u->cpu_dir, "cpuacct.usage", NULL)
					   : read_value(u->cpu_dir, "cpu.stat", "usage_usec");
		if (v >= 0)
			u->cpu_ns = u->cgroup_version == 1 ? v : v * 1000;
	}
	if (u->pids_dir) {
		max_into(&u->pids_peak, read_value(u->pids_dir, "pids.current", NULL));
		refused = read_value(u->pids_dir, "pids.events", "max");
		max_into(&u->pids_limit_hits, refused);
	}
	return oom >= 0 && refused >= 0;
}

/* Under u->lock: the Engine API's numbers (asked without the lock). */
static void add_api_stats(struct sandbox_usage *u, const struct docker_stats *st)
{
	if (!st->valid)
		return;
	max_into(&u->peak_memory_bytes, st->mem_max_usage);
	max_into(&u->peak_memory_bytes, st->mem_usage);
	max_into(&u->pids_peak, st->pids_current);
	if ((int64_t)st->cpu_total_ns > u->cpu_ns)
		u->cpu_ns = (int64_t)st->cpu_total_ns;
}

/* Under u->lock. The cgroup appears at start; look again until it does. */
static void find_cgroup(struct sandbox_usage *u)
{
	if (u->from_cgroup_files || !u->local)
		return;
	u->memory_dir = sandbox_cgroup_dir(u->cgroup_version, "memory", u->id);
	if (!u->memory_dir)
		return;
	u->cpu_dir = sandbox_cgroup_dir(u->cgroup_version, "cpuacct", u->id);
	u->pids_dir = sandbox_cgroup_dir(u->cgroup_version, "pids", u->id);
	u->from_cgroup_files = true;
}

static void *sampler(void *arg)
{
	struct sandbox_usage *u = arg;

	pthread_mutex_lock(&u->lock);
	while (!u->stop) {
		struct timespec until;

		find_cgroup(u);
		if (u->from_cgroup_files) {
			sample_files(u);
		} else {
			/* An HTTP call: without the lock, so that a sample at the
			 * end never waits for it. */
			struct docker_stats st;
			char *err = NULL;
			pthread_mutex_unlock(&u->lock);
			enum docker_error de = docker_container_stats(u->docker, u->id, &st, &err);
			free(err);
			pthread_mutex_lock(&u->lock);
			if (de == DOCKER_OK)
				add_api_stats(u, &st);
		}
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += SAMPLE_INTERVAL_NS;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		if (!u->stop)
			pthread_cond_timedwait(&u->wake, &u->lock, &until);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

void sandbox_usage_start(struct sandbox_usage *u, struct docker *d, const char *container_id,
			 int cgroup_version, bool local)
{
	pthread_condattr_t attr;

	memset(u, 0, sizeof(*u));
	u->docker = d;
	u->id = xstrdup(container_id);
	u->cgroup_version = cgroup_version;
	u->local = local;
	pthread_mutex_init(&u->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&u->wake, &attr);
	pthread_condattr_destroy(&attr);
	u->started = pthread_create(&u->thread, NULL, sampler, u) == 0;
}

/* Under u->lock. */
static void sample_end(struct sandbox_usage *u)
{
	/* Even when the thread has not looked yet (a loaded machine). */
	find_cgroup(u);
	if (u->from_cgroup_files && sample_files(u))
		u->final_from_cgroup = true;
}

bool sandbox_usage_end(struct sandbox_usage *u)
{
	bool r;

	pthread_mutex_lock(&u->lock);
	sample_end(u);
	r = u->final_from_cgroup;
	pthread_mutex_unlock(&u->lock);
	return r;
}

bool sandbox_usage_stop(struct sandbox_usage *u)
{
	if (!u->id)
		return u->final_from_cgroup;
	if (u->started) {
		pthread_mutex_lock(&u->lock);
		u->stop = true;
		pthread_cond_signal(&u->wake);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
		u->started = false;
	}
	sample_end(u);
	pthread_mutex_destroy(&u->lock);
	pthread_cond_destroy(&u->wake);
	free(u->id);
	free(u->memory_dir);
	free(u->cpu_dir);
	free(u->pids_dir);
	u->id = u->memory_dir = u->cpu_dir = u->pids_dir = NULL;
	return u->final_from_cgroup;
}
