/* What a mount of the drop directory (drop_mode: mount) asks the daemon on
 * its serving threads (dropfs.h): may this caller write an answer file,
 * what to do of a refusal at the call, and of a script renamed by someone
 * other than its author. arg is the loop's struct
 * daemon_job_env. */
#ifndef MAI_DAEMON_MOUNT_H
#define MAI_DAEMON_MOUNT_H

#include "dropfs.h"
#include "writer.h"

/* dropfs_options.answer_allowed: the approvers of security.yaml. */
int daemon_mount_answer_allowed(void *arg, const struct drop_writer *caller, const char *script,
				long script_uid, const char **status, char **why);

/* dropfs_options.refused: a log line for each refusal, and for an answer
 * file an approval or override record. */
void daemon_mount_refused(void *arg, const struct dropfs_refusal *rf);

/* dropfs_options.renamed: a log line and a renamed audit record. */
void daemon_mount_renamed(void *arg, const struct dropfs_rename *rn);

#endif
