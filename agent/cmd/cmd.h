/* Subcommands of mai-agent. Each lives in its own cmd_*.c file and receives
 * argv with argv[0] set to the subcommand's name. Returns an exit status. */
#ifndef MAI_CMD_H
#define MAI_CMD_H

/* Exit statuses shared by every subcommand (docs/operations.md "Exit status").
 * A subcommand may define more in its own range, documented in its --help. */
enum mai_exit {
	MAI_EXIT_OK = 0,
	MAI_EXIT_FAILURE = 1,     /* the command ran and the answer is "no" */
	MAI_EXIT_USAGE = 2,       /* bad arguments or unreadable input */
	MAI_EXIT_CONFIG = 3,      /* the configuration is invalid */
	MAI_EXIT_DOCKER = 4,      /* Docker is not reachable or not usable */
	MAI_EXIT_UNAVAILABLE = 5, /* the subcommand is not part of this build */
};

struct mai_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	/* When run is NULL: the issue that brings the subcommand. */
	const char *arrives_with;
};

int cmd_config(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_override(int argc, char **argv);
int cmd_pending(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_verify(int argc, char **argv);

/* True when argv holds -h or --help; used by the commands that have no
 * getopt loop of their own. */
int cmd_wants_help(int argc, char **argv);

#endif
