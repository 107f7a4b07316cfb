/* The trust table. A reload (SIGHUP) changes, per level, the base limits
 * (memory, CPUs, pids, timeout, tmpfs, ulimits, output caps) and whether
 * they scale; runs that have started keep the limits they were created
 * with. */
#include "sandbox_trust.h"

#include <pthread.h>
#include <string.h>

#include "macro.h"
#include "sandbox_limits.h"


struct sandbox_trust {
	pthread_mutex_t lock; /* base and no_scale: a reload changes them */
	struct sandbox_limits base[TRUST_COUNT];
	bool no_scale[TRUST_COUNT];
	char *runtime[TRUST_COUNT];
	bool allowlist[TRUST_COUNT];
	struct sandbox_machine machine;
	unsigned workers;
};

struct sandbox_trust *sandbox_trust_new(const struct sandbox_trust_options opts[TRUST_COUNT],
					unsigned workers)
{
	struct sandbox_trust *tt = xcalloc(1, sizeof(*tt));

	pthread_mutex_init(&tt->lock, NULL);
	for (int t = 0; t < TRUST_COUNT; t++) {
		tt->base[t] = opts[t].base;
		tt->no_scale[t] = opts[t].no_scale;
		tt->runtime[t] = xstrdup(opts[t].runtime ? opts[t].runtime : "runc");
		tt->allowlist[t] = opts[t].network_allowlist;
	}
	tt->workers = workers ? workers : 1;
	sandbox_machine_probe(&tt->machine);
	return tt;
}

void sandbox_trust_free(struct sandbox_trust *tt)
{
	if (!tt)
		return;
	pthread_mutex_destroy(&tt->lock);
	for (int t = 0; t < TRUST_COUNT; t++)
		free(tt->runtime[t]);
	free(tt);
}

bool sandbox_trust_reload(struct sandbox_trust *tt,
			  const struct sandbox_trust_options opts[TRUST_COUNT])
{
	bool changed = false;

	pthread_mutex_lock(&tt->lock);
	for (int t = 0; t < TRUST_COUNT; t++) {
		if (memcmp(&tt->base[t], &opts[t].base, sizeof(tt->base[t])) != 0 ||
		    tt->no_scale[t] != opts[t].no_scale)
			changed = true;
		tt->base[t] = opts[t].base;
		tt->no_scale[t] = opts[t].no_scale;
	}
	pthread_mutex_unlock(&tt->lock);
	return changed;
}

void sandbox_trust_limits(struct sandbox_trust *tt, enum trust t,
			  const struct sandbox_code_metrics *m, struct sandbox_limits *out)
{
	static const struct sandbox_code_metrics none = { 0 };
	struct sandbox_limits base;
	bool no_scale;

	pthread_mutex_lock(&tt->lock);
	base = tt->base[t];
	no_scale = tt->no_scale[t];
	pthread_mutex_unlock(&tt->lock);
	sandbox_limits_compute(&base, m ? m : &none, m && !no_scale, &tt->machine, tt->workers,
			       out);
}

const char *sandbox_trust_runtime(const struct sandbox_trust *tt, enum trust t)
{
	return tt->runtime[t];
}

bool sandbox_trust_is_gvisor(const struct sandbox_trust *tt, enum trust t)
{
	return strcmp(tt->runtime[t], "runsc") == 0;
}

int sandbox_trust_runc_level(const struct sandbox_trust *tt)
{
	for (int t = 0; t < TRUST_COUNT; t++)
		if (!sandbox_trust_is_gvisor(tt, (enum trust)t))
			return t;
	return -1;
}

int64_t sandbox_trust_host_pids(const struct sandbox_trust *tt, enum trust t, int64_t pids)
{
	return sandbox_trust_is_gvisor(tt, t) ? pids + SANDBOX_RUNSC_PIDS_ALLOWANCE : pids;
}

bool sandbox_trust_allowlist(const struct sandbox_trust *tt, enum trust t)
{
	return tt->allowlist[t];
}
