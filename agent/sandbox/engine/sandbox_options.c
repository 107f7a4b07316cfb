/* The built-in defaults of a sandbox's options: what config/sandbox.yaml
 * leaves unset. */
#include "sandbox_options.h"

#include <string.h>

static const struct sandbox_limits default_limits[TRUST_COUNT] = {
	[TRUST_TRUSTED] = {
		.memory_bytes = 512LL << 20, .nano_cpus = 1000000000, .pids = 128,
		.tmpfs_bytes = 64LL << 20, .nofile = 256, .fsize_bytes = 64LL << 20,
		.sigpending = 1024, .msgqueue_bytes = 800 << 10, .memlock_bytes = 8 << 20,
		.timeout_ms = 30000, .stdout_max = 1 << 20, .stderr_max = 1 << 20,
	},
	[TRUST_STANDARD] = {
		.memory_bytes = 256LL << 20, .nano_cpus = 1000000000, .pids = 64,
		.tmpfs_bytes = 32LL << 20, .nofile = 128, .fsize_bytes = 32LL << 20,
		.sigpending = 512, .msgqueue_bytes = 400 << 10, .memlock_bytes = 4 << 20,
		.timeout_ms = 15000, .stdout_max = 512 << 10, .stderr_max = 512 << 10,
	},
	[TRUST_UNTRUSTED] = {
		.memory_bytes = 128LL << 20, .nano_cpus = 500000000, .pids = 32,
		.tmpfs_bytes = 16LL << 20, .nofile = 64, .fsize_bytes = 16LL << 20,
		.sigpending = 256, .msgqueue_bytes = 200 << 10, .memlock_bytes = 1 << 20,
		.timeout_ms = 10000, .stdout_max = 256 << 10, .stderr_max = 256 << 10,
	},
};

void sandbox_options_defaults(struct sandbox_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->workers = 1;
	opts->uid_first = SANDBOX_UID_FIRST;
	opts->uid_last = SANDBOX_UID_LAST;
	for (int t = 0; t < TRUST_COUNT; t++) {
		opts->trust[t].base = default_limits[t];
		opts->trust[t].runtime = "runc";
	}
}
