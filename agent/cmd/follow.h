/* Which configuration a command uses: the directory named by --config-dir,
 * else $MAI_CONFIG_DIR, else the one the running agent uses (it records
 * its directory in status.json as "config_dir"), else CONFIG_DEFAULT_DIR.
 * So that 'mai-agent approve' after './run-agent' reads the configuration
 * of the agent that runs, not an /etc/mai that does not exist.
 *
 * The running agent is found through the state directory of the default
 * configuration (agent.state_dir of /etc/mai, or the defaults): an agent
 * whose state_dir is elsewhere is followed only with --config-dir. Only an
 * agent whose status.json is fresh counts (daemon_liveness: running). */
#ifndef MAI_FOLLOW_H
#define MAI_FOLLOW_H

#include <stdbool.h>

#include "config.h"
#include "macro.h"

/* The directory, as above. 0 and *dir (caller frees), or -errno with *err
 * (caller frees): a directory named explicitly must exist. */
int follow_config_dir(const char *arg, char **dir, char **err) _nonnull_(2, 3) _must_check_;

/* The configuration directory of the agent that runs with the state_dir of
 * the configuration in dir, when it is another directory; else NULL.
 * Caller frees. */
char *follow_running_elsewhere(const char *dir) _nonnull_(1);

/* follow_config_dir(), then config_load() of it. */
int follow_config_load(const char *arg, char **dir, struct mai_config **cfg, char **err)
	_nonnull_(2, 3, 4) _must_check_;

/* Whether an agent runs with state_dir: its status.json is fresh and names
 * a live process (daemon_liveness); true too when the caller may not read
 * it (it cannot tell). */
bool follow_agent_running(const char *state_dir) _nonnull_(1);

#endif
