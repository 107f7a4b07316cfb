/* The maiaudit view started beside the agent (mai-agent run --mount): a
 * child process that mounts the read-only FUSE view and is stopped, so that
 * it unmounts, when the agent stops. */
#ifndef MAI_VIEWPROC_H
#define MAI_VIEWPROC_H

#include <sys/types.h>

#include "macro.h"

/* Starts maiaudit on mountpoint with the agent's configuration directory,
 * logging to log_file when not NULL. The program is $MAI_MAIAUDIT when set,
 * else 'maiaudit' beside the running mai-agent, else the build tree's
 * ../fs/maiaudit. Returns 0 with *pid set, or -errno with *err (caller frees). */
int viewproc_start(const char *mountpoint, const char *config_dir, const char *log_file,
		   pid_t *pid, char **err) _must_check_;

/* SIGTERM, then waits (up to a few seconds, then SIGKILL) for the view to
 * unmount and exit. Does nothing for pid <= 0. */
void viewproc_stop(pid_t pid);

#endif
