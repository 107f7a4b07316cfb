/* mai-agent status: the agent's health. This build has the sandbox
 * self-test (--self-test); the running agent's report (queue, counts, pool)
 * arrives with issue #6 [agent]. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "log.h"
#include "sandbox.h"

static void status_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent status --self-test [--config-dir DIR]\n"
		"\n"
		"--self-test  runs the sandbox's confinement probes in a real container\n"
		"             with the configured image, user and limits: root read-only,\n"
		"             no network, no capabilities, no-new-privileges, seccomp,\n"
		"             non-root user, memory limit enforced. Names the probe that\n"
		"             failed.\n"
		"\n"
		"The running agent's report (queue, counts, pool) arrives with issue #6 [agent].\n"
		"\n"
		"Exit status: 0 every probe passed; 2 usage; 3 invalid configuration;\n"
		"4 Docker not usable or a probe failed; 5 report not part of this build.\n");
}

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "self-test", no_argument, NULL, 's' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	_cleanup_free_ char *dir = NULL, *err = NULL;
	struct mai_config *cfg = NULL;
	struct sandbox_options so;
	struct sandbox *sb = NULL;
	bool self_test = false;
	char instance[64];
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': self_test = true; break;
		case 'c': dir_arg = optarg; break;
		case 'h': status_usage(stdout); return MAI_EXIT_OK;
		default: status_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("status takes no arguments ('%s'); see 'mai-agent status --help'",
			   argv[optind]);
		return MAI_EXIT_USAGE;
	}
	if (!self_test) {
		log_errorx("the agent's status report is not part of this build yet: it comes with "
			   "issue #6 [agent]; 'mai-agent status --self-test' is available");
		return MAI_EXIT_UNAVAILABLE;
	}
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	/* Its own instance label: a running agent's containers are not touched. */
	snprintf(instance, sizeof(instance), "self-test-%ld", (long)getpid());
	sandbox_options_from_config(cfg, instance, &so);
	so.self_test = true;
	so.pool_size = 0;
	if (sandbox_new(&so, &sb, &err) < 0) {
		log_errorx("%s", err);
		config_free(cfg);
		return MAI_EXIT_DOCKER;
	}
	printf("self-test: passed (root read-only, no network, no capabilities, "
	       "no-new-privileges, seccomp, non-root user %s, memory limit enforced)\n",
	       cfg->sandbox.user);
	sandbox_free(sb);
	config_free(cfg);
	return MAI_EXIT_OK;
}
