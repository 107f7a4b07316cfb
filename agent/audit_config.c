/* The bridge from audit.yaml (config.h) to the writer's options. */
#include <string.h>

#include "audit.h"
#include "config.h"

void audit_options_from_config(const struct config_audit *cfg, struct audit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->log_dir = cfg->log_dir;
	opt->signing_key = cfg->signing_key && *cfg->signing_key ? cfg->signing_key : NULL;
	opt->public_key = cfg->public_key && *cfg->public_key ? cfg->public_key : NULL;
	opt->origin = cfg->origin;
	opt->fsync = cfg->fsync;
	opt->group_commit_delay_us = (unsigned)(cfg->group_commit_delay_ms * 1000);
	/* The writer's timer ticks in seconds; anything below rounds up to 1 s. */
	opt->checkpoint_interval_s = (unsigned)((cfg->checkpoint_interval_ms + 999) / 1000);
	opt->rotate_size = cfg->rotate_size;
	opt->rotate_age_s = (unsigned)(cfg->rotate_age_ms / 1000);
	opt->retention_age_s = (unsigned)(cfg->retention_age_ms / 1000);
	opt->diff_max = (size_t)cfg->diff_max;
}
