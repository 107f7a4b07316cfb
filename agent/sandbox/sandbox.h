/* The sandbox: runs one snapshot of a Python script in a fresh single-use
 * container created through the Docker Engine API with every default of
 * docs/ARCHITECTURE.md "Sandbox defaults". The code goes in over the attach stream's
 * stdin; stdout and stderr come back separately, each capped. The wall-clock
 * timeout is the agent's own timer ending in SIGKILL. The container is
 * removed after every run.
 *
 * sandbox_run() is thread-safe: the daemon calls it from its worker threads
 * with one struct sandbox shared by all of them. */
#ifndef MAI_SANDBOX_H
#define MAI_SANDBOX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "level.h"
/* The value types: in their own headers, which the sandbox's parts use
 * without this one. */
#include "sandbox_engine.h"
#include "sandbox_job.h"
#include "sandbox_options.h"
#include "sandbox_result.h"

struct sandbox;

/* The pool size in force (per trust level, after auto sizing); 0: none. */
unsigned sandbox_pool_size(const struct sandbox *sb);

/* Connects to Docker, checks the image and the runtime of every trust level
 * (a missing runtime is an error here, not at the first job), removes the
 * leftovers of this instance and, when asked, runs the self-test. On failure
 * returns a negative value (-EHOSTDOWN when Docker does not answer at all)
 * and *err (caller frees) says what to do. *out is
 * freed with sandbox_free(). */
int sandbox_new(const struct sandbox_options *opts, struct sandbox **out, char **err);
void sandbox_free(struct sandbox *sb);
/* 0 when Docker answers; -EHOSTDOWN with *err (caller frees) when not. */
int sandbox_ping(struct sandbox *sb, char **err);
/* How many leftover containers sandbox_new() removed. */
size_t sandbox_leftovers_removed(const struct sandbox *sb);

/* Runs one job. Always fills *out (clear it with sandbox_result_clear());
 * returns 0 when the script ran (whatever its verdict), or a negative value
 * when the sandbox could not run it (then verdict is sandbox_error). */
int sandbox_run(struct sandbox *sb, const struct sandbox_job *job, struct sandbox_result *out);
/* Makes every sandbox_run() in flight (and every later one) kill its
 * container, remove it and return -ECANCELED within about a second: the
 * agent is stopping. Thread-safe. */
void sandbox_cancel_all(struct sandbox *sb);
/* A run's container is removed in the background once its result is known
 * (and at the latest by sandbox_free()); this blocks until every container
 * of a finished run is gone. */
void sandbox_wait_removed(struct sandbox *sb);
/* Background work (the warm pool's refill, removals) waits for moments
 * when no run is in flight. A caller that still has work of its own after
 * sandbox_run() (writing the run's answer) holds that moment off from
 * before the run until it is done: every sandbox_hold_quiet() is matched by
 * one sandbox_release_quiet(). Thread-safe. */
void sandbox_hold_quiet(struct sandbox *sb);
void sandbox_release_quiet(struct sandbox *sb);

/* A reload: takes the base limits and scaling of every trust level from
 * opts (the rest of opts is ignored: image, runtime, network, pool size and
 * socket need a new sandbox). Runs already started keep their limits; later
 * ones, warm or cold, get the new ones. Returns whether anything changed.
 * Thread-safe. */
bool sandbox_set_limits(struct sandbox *sb, const struct sandbox_options *opts);

/* The engine that runs this sandbox's jobs: its name, endpoint,
 * capabilities (sandbox_engine.h). Valid until sandbox_free(). */
const struct sandbox_engine_info *sandbox_engine(const struct sandbox *sb);
/* The nodes the engine places runs on and what their probes proved (a JSON
 * array, caller decrefs), or NULL for an engine that is one host. */
json_t *sandbox_nodes(struct sandbox *sb);

/* Whether trust level t joins the sandbox network (network: allowlist). */
bool sandbox_trust_has_network(const struct sandbox *sb, enum trust t);

/* How this sandbox learns the end of its runs (never AUTO), and how many
 * warm containers are ready now for trust level t (0 without a pool): for
 * status and tests. Thread-safe. */
enum sandbox_exit_source sandbox_exit_source_used(const struct sandbox *sb);
unsigned sandbox_warm_ready(struct sandbox *sb, enum trust t);

/* Parses the TOML of a PEP 723 block (pep723_locate) with Python's tomllib
 * in a container of the pip image without any network. 0 with *table (the
 * TOML table as JSON; caller decrefs); -EINVAL with *err (caller frees)
 * saying what is wrong with the TOML; -ENOENT when the pip image is missing;
 * another -errno when the container could not run (then retry). */
int sandbox_parse_toml(struct sandbox *sb, const char *toml, size_t len, json_t **table,
		       char **err);

#endif
