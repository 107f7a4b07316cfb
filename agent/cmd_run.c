/* mai-agent run: the daemon. Until the watcher arrives (issue #6 [agent]) it
 * performs the start-up the daemon will perform: load the configuration,
 * connect to Docker, check the runtimes and the sandbox image, remove the
 * leftovers of an earlier run, run the self-test; then it reports and stops. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "config.h"
#include "docker.h"
#include "log.h"
#include "sandbox.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent run [--config-dir DIR]\n"
		"\n"
		"Watches the drop directory and runs what it receives. In this build it\n"
		"loads the configuration, checks that Docker answers, that the runtime of\n"
		"every trust level and the sandbox image exist, removes containers left by\n"
		"an earlier run, runs the sandbox self-test (sandbox.self_test) and stops:\n"
		"watching arrives with issue #6 [agent].\n"
		"\n"
		"  --config-dir DIR  configuration directory (default $%s, else %s)\n"
		"\n"
		"Exit status: 0 the checks passed; 2 usage; 3 invalid configuration;\n"
		"4 Docker or the sandbox not usable.\n", CONFIG_DIR_ENV, CONFIG_DEFAULT_DIR);
}

static void print_docker(const char *socket)
{
	struct docker_options o = { .socket_path = socket };
	struct docker *d = docker_new(&o);
	struct docker_version v;
	struct docker_info info;
	char *err = NULL;

	if (docker_version(d, &v, &err) == DOCKER_OK) {
		if (docker_info(d, &info, &err) == DOCKER_OK) {
			printf("docker: %s (API %s) at unix://%s, cgroup v%d, runtimes:", v.version,
			       v.api_version, socket, info.cgroup_version);
			for (size_t i = 0; i < info.n_runtimes; i++)
				printf(" %s", info.runtimes[i]);
			printf("\n");
			docker_info_clear(&info);
		}
		docker_version_clear(&v);
	}
	free(err);
	docker_free(d);
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir_arg = NULL;
	_cleanup_free_ char *dir = NULL, *err = NULL;
	struct mai_config *cfg = NULL;
	struct sandbox_options so;
	struct sandbox *sb = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': dir_arg = optarg; break;
		case 'h': run_usage(stdout); return MAI_EXIT_OK;
		default: run_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("run takes no arguments ('%s'); see 'mai-agent run --help'", argv[optind]);
		return MAI_EXIT_USAGE;
	}
	if (config_dir_resolve(dir_arg, &dir, &err) < 0 || config_load(dir, &cfg, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	/* One agent per state directory: its path names this instance's
	 * containers, so a restarted agent finds what its predecessor left. */
	sandbox_options_from_config(cfg, cfg->agent.state_dir, &so);
	if (sandbox_new(&so, &sb, &err) < 0) {
		log_errorx("%s", err);
		config_free(cfg);
		return MAI_EXIT_DOCKER;
	}
	print_docker(cfg->agent.docker.socket);
	printf("sandbox image: %s; leftover containers removed: %zu; self-test: %s\n",
	       cfg->sandbox.image, sandbox_leftovers_removed(sb),
	       cfg->sandbox.self_test ? "passed" : "disabled (sandbox.self_test)");
	printf("run: the checks passed; watching %s arrives with issue #6 [agent], so the agent "
	       "stops here\n", cfg->agent.drop_dir);
	sandbox_free(sb);
	config_free(cfg);
	return MAI_EXIT_OK;
}
