/* Private to the sandbox: the confinement probes (sandbox_selftest.c). */
#ifndef MAI_SANDBOX_SELFTEST_H
#define MAI_SANDBOX_SELFTEST_H

#include "sandbox.h"

/* Runs the probes through sandbox_run(). 0, or -EPERM with *err (caller
 * frees) naming the probe that failed. */
int sandbox_selftest_run(struct sandbox *sb, char **err);

#endif
