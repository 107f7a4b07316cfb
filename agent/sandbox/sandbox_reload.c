/* The limits a reload (SIGHUP) changes in a running sandbox: per trust
 * level the base limits (memory, CPUs, pids, timeout, tmpfs, ulimits, output
 * caps) and whether they scale. Runs that have started keep the limits they
 * were created with; the warm pool is emptied so that no container made
 * with the old limits serves a later job. */
#include <string.h>

#include "log.h"
#include "sandbox_internal.h"

void sandbox_trust_base(struct sandbox *sb, enum trust t, struct sandbox_limits *base,
			bool *no_scale)
{
	pthread_mutex_lock(&sb->trust_lock);
	*base = sb->trust[t].base;
	if (no_scale)
		*no_scale = sb->trust[t].no_scale;
	pthread_mutex_unlock(&sb->trust_lock);
}

bool sandbox_set_limits(struct sandbox *sb, const struct sandbox_options *opts)
{
	bool changed = false;

	pthread_mutex_lock(&sb->trust_lock);
	for (int t = 0; t < TRUST_COUNT; t++) {
		struct sandbox_trust_options *cur = &sb->trust[t];
		const struct sandbox_trust_options *want = &opts->trust[t];
		if (memcmp(&cur->base, &want->base, sizeof(cur->base)) != 0 ||
		    cur->no_scale != want->no_scale)
			changed = true;
		cur->base = want->base;
		cur->no_scale = want->no_scale;
	}
	pthread_mutex_unlock(&sb->trust_lock);
	if (changed && sb->pool) {
		log_info("sandbox limits changed: replacing the warm pool's containers");
		sandbox_pool_flush(sb->pool);
	}
	return changed;
}
