/* mai-agent config: check the configuration and print it as the agent will
 * use it, with the hash that the audit log records; list the keys. */
#include <getopt.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "follow.h"
#include "log.h"
#include "sandbox_seccomp.h"

static void config_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent config check [--config-dir DIR]\n"
		"       mai-agent config keys\n"
		"       mai-agent config seccomp\n"
		"\n"
		"check  loads agent.yaml, security.yaml, sandbox.yaml and audit.yaml from the\n"
		"       configuration directory, prints the effective configuration (every key,\n"
		"       defaults included) and its SHA-256 as a last line 'sha256: HEX', and\n"
		"       which seccomp profile every sandbox container gets.\n"
		"       A bad file gives one error 'file:line:col: what is wrong; expected ...'.\n"
		"keys   lists every key with its type, range, default and meaning.\n"
		"seccomp prints the seccomp profile every sandbox container gets, as the JSON\n"
		"       that dockerd's \"seccomp-profile\" takes: the default profile of a Swarm\n"
		"       node, where the Engine API cannot send it with each run\n"
		"       (docs/SCALING.md).\n"
		"\n"
		"The directory is --config-dir DIR, else $%s, else %s\n"
		"(a file missing from it means that file's defaults).\n"
		"\n"
		"Sizes: a number of bytes or a whole number with k, m, g or t (512m, 64k, 1g).\n"
		"Durations: a whole number with ms, s, m, h or d (500ms, 120s, 2m, 1h); 0 alone.\n"
		"\n"
		"Exit status: 0 the configuration is valid; 2 bad arguments; 3 invalid\n"
		"configuration.\n", CONFIG_DIR_ENV, CONFIG_DEFAULT_DIR);
}

static int config_check(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	_cleanup_free_ char *dir = NULL, *err = NULL, *text = NULL;
	struct mai_config *cfg = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			dir_arg = optarg;
			break;
		case 'h':
			config_usage(stdout);
			return MAI_EXIT_OK;
		default:
			config_usage(stderr);
			return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("config check: unexpected argument '%s'; expected only "
			   "[--config-dir DIR]", argv[optind]);
		return MAI_EXIT_USAGE;
	}
	/* What is checked is what was named (an operator checks the file they
	 * edit), but a running agent that uses another directory is pointed
	 * out. */
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	config_note_missing(dir);
	_cleanup_free_ char *running = dir_arg ? NULL : follow_running_elsewhere(dir);
	if (running)
		log_info("the running agent uses the configuration in %s, not this one; check it "
			 "with 'mai-agent config check --config-dir %s'", running, running);
	text = config_render(cfg);
	_cleanup_free_ char *seccomp = sandbox_seccomp_describe();
	/* Not a key: every container gets it (sandbox_seccomp.h). */
	printf("# effective configuration from %s\n# seccomp profile in force: %s\n%ssha256: %s\n",
	       dir, seccomp, text, cfg->sha256);
	config_free(cfg);
	return MAI_EXIT_OK;
}

int cmd_config(int argc, char **argv)
{
	if (argc < 2) {
		config_usage(stderr);
		return MAI_EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		config_usage(stdout);
		return MAI_EXIT_OK;
	}
	if (strcmp(argv[1], "check") == 0)
		return config_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "keys") == 0 || strcmp(argv[1], "seccomp") == 0) {
		if (cmd_wants_help(argc - 1, argv + 1)) {
			config_usage(stdout);
			return MAI_EXIT_OK;
		}
		_cleanup_free_ char *text = strcmp(argv[1], "keys") == 0 ? config_describe()
									  : sandbox_seccomp_profile();
		printf("%s%s", text, strcmp(argv[1], "keys") == 0 ? "" : "\n");
		return MAI_EXIT_OK;
	}
	log_errorx("config: unknown action '%s'; expected 'check', 'keys' or 'seccomp' "
		   "(see 'mai-agent config --help')", argv[1]);
	return MAI_EXIT_USAGE;
}
