/* Configuration -> module options (options.c). The strings of the filled
 * options stay owned by the configuration: keep it alive until the module's
 * constructor returns (each copies what it keeps). */
#ifndef MAI_OPTIONS_H
#define MAI_OPTIONS_H

#include "assess.h"
#include "audit.h"
#include "config.h"
#include "sandbox.h"

/* agent.docker.socket, agent.workers, agent.state_dir and sandbox.*. */
void sandbox_options_from_config(const struct mai_config *cfg, const char *instance_id,
				 struct sandbox_options *opts);

/* Resolves the runtime "auto" of every trust level that has it, with one
 * info call to Docker at o->socket_path: "runsc" when dockerd has gVisor
 * registered, else "runc", and then *warning (caller frees) says so once
 * for all of them. A level with network: allowlist gets "runc" with a
 * warning too: gVisor as the agent registers it has no network. Other
 * runtimes are left as they are. 0, or -EHOSTDOWN with *err (caller frees)
 * when Docker does not answer: "auto" stays, to be resolved when it does. */
int sandbox_options_resolve_auto(struct sandbox_options *o, char **warning, char **err);

/* audit.yaml as the writer's options (paths already resolved by the config
 * loader). An empty public_key means the default, log_dir/pubkey. */
void audit_options_from_config(const struct config_audit *cfg, struct audit_options *opt);

/* What the assessor needs to know of each trust level's sandbox
 * (sandbox.<level>.network). */
void assess_sandbox_from_config(const struct mai_config *cfg, struct assess_sandbox *out);

/* The assessor's metrics as the shape the sandbox scales its limits with. */
void sandbox_metrics_from_assess(const struct py_metrics *in, struct sandbox_code_metrics *out);

#endif
