/* The self-test: probes run in a real container with the untrusted level's
 * settings (and a runc level's, when untrusted runs under gVisor). If confinement is weaker than configured, no job may run. */
#ifndef MAI_SANDBOX_SELFTEST_H
#define MAI_SANDBOX_SELFTEST_H

#include <stdbool.h>

#include "sandbox_runner.h"

/* Runs the probes through runner, at the untrusted level, which runs under
 * gVisor when gvisor is set; then, when it does and runc_level is a level
 * (not -1) that runs under runc, the host kernel's probes (no-new-privileges,
 * the seccomp profile in force) at that level too. The default image has no
 * ctypes, so nothing in it can make an io_uring call: with ctypes_image (an
 * image that has ctypes, as the pip image does; NULL: none) the io_uring
 * call is made there, at a level the host kernel answers, to prove that the
 * profile refuses it. 0, or -EPERM with *err (caller frees) naming the probe
 * that failed. */
int sandbox_selftest_run(const struct sandbox_runner *runner, bool gvisor, int runc_level,
			 const char *ctypes_image, char **err);

#endif
