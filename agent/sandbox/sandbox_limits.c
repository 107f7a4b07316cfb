#include "sandbox_limits.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"

static int64_t read_int_file(const char *path)
{
	_cleanup_free_ char *s = NULL;
	size_t len;
	long long v;

	if (fileio_read_path(path, 256, &s, &len) < 0)
		return -1;
	if (strncmp(s, "max", 3) == 0)
		return -1;
	if (sscanf(s, "%lld", &v) != 1)
		return -1;
	return v;
}

static int64_t meminfo_available(void)
{
	_cleanup_free_ char *s = NULL;
	size_t len;
	const char *p;
	long long kb;

	if (fileio_read_path("/proc/meminfo", 1 << 16, &s, &len) < 0)
		return -1;
	p = strstr(s, "MemAvailable:");
	if (!p || sscanf(p, "MemAvailable: %lld kB", &kb) != 1)
		return -1;
	return kb * 1024;
}

void sandbox_machine_probe(struct sandbox_machine *m)
{
	cpu_set_t set;
	int64_t limit, quota, period;
	_cleanup_free_ char *max = NULL;
	size_t len;

	m->cpus_nano = 1000000000LL;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		m->cpus_nano = (int64_t)CPU_COUNT(&set) * 1000000000LL;
	/* cgroup v1 quota, then v2 "quota period". */
	quota = read_int_file("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
	period = read_int_file("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
	if (fileio_read_path("/sys/fs/cgroup/cpu.max", 256, &max, &len) == 0) {
		long long q, p;
		if (sscanf(max, "%lld %lld", &q, &p) == 2) {
			quota = q;
			period = p;
		}
	}
	if (quota > 0 && period > 0 && quota * 1000000000LL / period < m->cpus_nano)
		m->cpus_nano = quota * 1000000000LL / period;

	m->memory_available = meminfo_available();
	if (m->memory_available <= 0)
		m->memory_available = 1LL << 30;
	limit = read_int_file("/sys/fs/cgroup/memory.max");
	if (limit <= 0)
		limit = read_int_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
	if (limit > 0 && limit < m->memory_available)
		m->memory_available = limit;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void sandbox_limits_compute(const struct sandbox_limits *base, const struct sandbox_code_metrics *m,
			    bool scale, const struct sandbox_machine *machine, unsigned workers,
			    struct sandbox_limits *out)
{
	/* Scale factors in percent, each capped at +100%: a long script with
	 * many loops may run longer; many imports need more memory. */
	int64_t time_pct = 100 + clamp64((int64_t)m->loops * 5 + (int64_t)m->lines / 50 +
					 (int64_t)m->max_nesting * 5, 0, 100);
	int64_t mem_pct = 100 + clamp64((int64_t)m->imports * 5 + (int64_t)(m->bytes >> 14), 0, 100);
	int64_t share;

	*out = *base;
	if (scale) {
		out->timeout_ms = base->timeout_ms * time_pct / 100;
		out->memory_bytes = base->memory_bytes * mem_pct / 100;
	}

	/* Every worker may run at once: each gets its share of the memory. */
	share = machine->memory_available / (workers ? workers : 1);
	out->memory_bytes = clamp64(out->memory_bytes, SANDBOX_MEMORY_FLOOR,
				    share > SANDBOX_MEMORY_FLOOR ? share : SANDBOX_MEMORY_FLOOR);
	out->nano_cpus = clamp64(out->nano_cpus, SANDBOX_CPU_FLOOR,
				 machine->cpus_nano > SANDBOX_CPU_FLOOR ? machine->cpus_nano
									: SANDBOX_CPU_FLOOR);
	/* The tmpfs counts against the memory limit: keep room for python. */
	if (out->tmpfs_bytes > out->memory_bytes / 2)
		out->tmpfs_bytes = out->memory_bytes / 2;
}
