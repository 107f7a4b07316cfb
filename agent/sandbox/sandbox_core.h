/* Core dumps of a run never reach the host. core_pattern is not
 * namespaced: when it starts with '|', the kernel runs that helper
 * (systemd-coredump, apport) as root in the host's namespaces for every
 * crash, containers' included, and ignores RLIMIT_CORE 0 for pipes. It
 * aborts the dump only when RLIMIT_CORE is exactly 1 (its guard against a
 * helper that crashes itself, fs/coredump.c); for a core file, 1 byte is
 * below the smallest dump, so no file is written either. So every
 * container gets ulimit core 1, and the seccomp profile (sandbox_seccomp.h)
 * keeps a run from lowering it to 0. Under gVisor no crash reaches the
 * host kernel's dumper at all. */
#ifndef MAI_SANDBOX_CORE_H
#define MAI_SANDBOX_CORE_H

#include <stdbool.h>
#include <stdint.h>

/* The ulimit core every container gets. */
#define SANDBOX_CORE_LIMIT 1

/* Where the host's kernel reads its core pattern. */
#define SANDBOX_CORE_PATTERN_PATH "/proc/sys/kernel/core_pattern"

/* Whether crashes of runs with this core ulimit (soft = hard), that a run
 * can (limit_locked false) or cannot change, can start the core_pattern
 * helper pattern (its text, "" when unknown). 0 with *msg (caller frees) saying
 * why not; -EPERM with *msg saying which helper would run and how to fix it. */
int sandbox_core_check(const char *pattern, int64_t core_limit, bool limit_locked, char **msg);

/* sandbox_core_check() for this host's core_pattern and the agent's
 * containers under runc (SANDBOX_CORE_LIMIT, locked by the profile). */
int sandbox_core_check_host(char **msg);

#endif
