/* What the sandbox's integration tests share: one sandbox with short limits
 * on the real engine, a way to run a script in it and to check the result,
 * and a main() that fails when a container of the test is left behind. */
#ifndef MAI_TEST_SANDBOX_FIXTURE_H
#define MAI_TEST_SANDBOX_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "docker.h"
#include "sandbox.h"

/* The wall-clock limit of every trust level but trusted: far more than any
 * script of the tests needs, even on a loaded machine where a container's
 * Python takes seconds to start; only a script that hangs meets it. */
#define TIMEOUT_MS 30000
/* Trusted's, for the cases about the timeout itself (run_short): short, so
 * that they stay quick. */
#define SHORT_TIMEOUT_MS 3000
#define OUTPUT_MAX (64 << 10)

extern struct docker *docker; /* the engine, for leftover checks */
extern struct sandbox *sb;    /* made with test_options() by sandbox_fixture_main() */

/* Defaults with this test's socket, image and instance, and at every trust
 * level 96 MiB, 1 CPU, 32 pids, TIMEOUT_MS (SHORT_TIMEOUT_MS at trusted) and
 * OUTPUT_MAX. */
void test_options(struct sandbox_options *o);
/* Runs code as file name at trust level standard in p; run() in sb;
 * run_short() in sb at trust level trusted (SHORT_TIMEOUT_MS). */
void run_in(struct sandbox *p, const char *name, const char *code, struct sandbox_result *r);
void run(const char *name, const char *code, struct sandbox_result *r);
void run_short(const char *name, const char *code, struct sandbox_result *r);
/* Fails unless r is verdict exited with this code. */
void expect_exit(const struct sandbox_result *r, int code);
/* Waits until p's pool has n containers ready for t: up to 60 s, what a
 * refill can take on a machine loaded by other work. */
void wait_pool_ready(struct sandbox *p, enum trust t, unsigned n);
/* Opens docker and sb; exits 77 (skipped) without the engine or the image,
 * 1 when the sandbox cannot be made. */
void sandbox_fixture_open(void);
/* Frees sb and docker; the tests' result r, or 1 when a container with this
 * test's label is left. */
int sandbox_fixture_close(int r);

#endif
