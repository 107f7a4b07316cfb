/* PEP 723 dependencies in the sandbox: the spec the bootstrap installs
 * from, pip's report taken off the front of stdout, and the TOML of a block
 * parsed by tomllib in a container without network. */
#ifndef MAI_SANDBOX_DEPS_H
#define MAI_SANDBOX_DEPS_H

#include <jansson.h>
#include <stddef.h>

#include "sandbox_job.h"
#include "sandbox_net.h"
#include "sandbox_result.h"
#include "sandbox_runner.h"

/* The JSON spec the bootstrap reads before the script (caller frees). */
char *sandbox_deps_spec(const struct sandbox_pip *pip, const struct sandbox_job *job);
/* Takes pip's report off the front of the script's stdout into
 * r->dependencies, with a message when the install failed. */
void sandbox_deps_collect(struct sandbox_result *r);
/* sandbox_parse_toml() (sandbox.h), run through runner in pip's image. */
int sandbox_deps_parse_toml(const struct sandbox_runner *runner, const struct sandbox_pip *pip,
			    const char *toml, size_t len, json_t **table, char **err);

#endif
