#include "sandbox_core.h"

#include <errno.h>
#include <string.h>

#include "fileio.h"
#include "macro.h"

int sandbox_core_check(const char *pattern, int64_t core_limit, bool limit_locked, char **msg)
{
	size_t n = strcspn(pattern, "\n");

	if (pattern[0] != '|') {
		*msg = xasprintf("core_pattern '%.*s' writes files, and the runs' ulimit core %lld "
				 "is below the smallest dump: no core is written", (int)n, pattern,
				 (long long)core_limit);
		return 0;
	}
	if (core_limit == 1 && limit_locked) {
		*msg = xasprintf("core_pattern pipes to '%.*s', which the kernel would start as root "
				 "for every crash; the runs' ulimit core is 1, at which the kernel "
				 "aborts a dump to a pipe, and the seccomp profile keeps a run from "
				 "changing it", (int)n - 1, pattern + 1);
		return 0;
	}
	*msg = xasprintf("core_pattern pipes to '%.*s' and a run's crash would start it as root on "
			 "the host (the kernel ignores ulimit core %lld for a pipe%s): set "
			 "kernel.core_pattern to a file name (sysctl kernel.core_pattern=core), or "
			 "give the containers ulimit core 1 and keep them from changing it",
			 (int)n - 1, pattern + 1, (long long)core_limit,
			 limit_locked ? "" : ", and a run may change it");
	return -EPERM;
}

int sandbox_core_check_host(char **msg)
{
	_cleanup_free_ char *pattern = NULL;
	size_t len = 0;

	int r = fileio_read_path(SANDBOX_CORE_PATTERN_PATH, 4096, &pattern, &len);

	if (r < 0) {
		*msg = xasprintf("cannot read %s: %s", SANDBOX_CORE_PATTERN_PATH, strerror(-r));
		return -EPERM;
	}
	return sandbox_core_check(pattern, SANDBOX_CORE_LIMIT, true, msg);
}
