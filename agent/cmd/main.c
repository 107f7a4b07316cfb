/* mai-agent: the entry point dispatches to one subcommand. */
#include <getopt.h>
#include <signal.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

static const struct mai_command commands[] = {
	{ "run", "watch the drop directory and run what it receives", cmd_run, NULL },
	{ "check", "assess Python files without running them", cmd_check, NULL },
	{ "submit", "drop a file and wait for its result", cmd_submit, NULL },
	{ "verify", "verify an audit log or a .audit sidecar offline", cmd_verify, NULL },
	{ "approve", "confirm a HIGH file so that it runs", cmd_approve, NULL },
	{ "override", "let a BLOCKED file run, with an explanation", cmd_override, NULL },
	{ "pending", "list the scripts held for a person, and how to answer", cmd_pending, NULL },
	{ "status", "show the agent's health", cmd_status, NULL },
	{ "config", "check and print the effective configuration", cmd_config, NULL },
	{ "keygen", "create the audit signing key", cmd_keygen, NULL },
};

int cmd_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
			return 1;
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent [--version] [--help] COMMAND [ARGS...]\n"
		"\n"
		"Runs Python files dropped into a directory in single-use hardened\n"
		"containers, and records every step in a tamper-evident audit log.\n"
		"\n"
		"Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-9s %s%s\n", commands[i].name, commands[i].summary,
			commands[i].run ? "" : " (not in this build)");
	fprintf(out,
		"\n"
		"Run 'mai-agent COMMAND --help' for a command's options.\n"
		"\n"
		"Exit status: 0 success; 1 the answer is no (tampered log, failed run);\n"
		"2 usage or unreadable input; 3 invalid configuration; 4 Docker not\n"
		"usable; 5 command not part of this build. Some commands add their own\n"
		"(see their --help).\n");
}

static int run_unavailable(const struct mai_command *c, int argc, char **argv)
{
	if (cmd_wants_help(argc, argv)) {
		printf("Usage: mai-agent %s ...\n\n%s.\n\nThis subcommand is not part of this build "
		       "yet: it comes with %s.\n", c->name, c->summary, c->arrives_with);
		return MAI_EXIT_OK;
	}
	log_errorx("'%s' is not part of this build yet: it comes with %s; "
		   "see 'mai-agent --help' for what is available", c->name, c->arrives_with);
	return MAI_EXIT_UNAVAILABLE;
}

int main(int argc, char **argv)
{
	log_init("mai-agent", LOG_LEVEL_INFO);
	/* A reader that went away (`mai-agent run | head -1`, a tee that
	 * Ctrl-C ended first) must not end the agent in the middle of its work
	 * without its cleanup: a write to a closed pipe fails with EPIPE and is
	 * dropped (the --log-file, when given, keeps every line). Children
	 * get the default back (subprocess_spawnattr_init). */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		usage(stderr);
		return MAI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("mai-agent %s\n", MAI_VERSION);
		return MAI_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return MAI_EXIT_OK;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		const struct mai_command *c = &commands[i];
		if (strcmp(argv[1], c->name) != 0)
			continue;
		optind = 1;
		if (!c->run)
			return run_unavailable(c, argc - 1, argv + 1);
		return c->run(argc - 1, argv + 1);
	}
	log_errorx("unknown command '%s'; run 'mai-agent --help' for the list", argv[1]);
	return MAI_EXIT_USAGE;
}
