/* mai-agent run: the daemon. Until the watcher arrives (issue #6 [agent]) it
 * performs the start-up checks the daemon will perform (Docker reachable,
 * runtime present, sandbox image present), reports them and stops. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "docker.h"
#include "log.h"

static void run_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent run [--socket PATH] [--image REF] [--runtime NAME]\n"
		"\n"
		"Watches the drop directory and runs what it receives. In this build it\n"
		"checks that Docker answers, that the runtime and the sandbox image exist,\n"
		"and stops: watching arrives with issue #6 [agent].\n"
		"\n"
		"  --socket PATH   Docker socket (default " DOCKER_DEFAULT_SOCKET ")\n"
		"  --image REF     sandbox image (default mai-sandbox:latest)\n"
		"  --runtime NAME  OCI runtime (default runc)\n"
		"\n"
		"Exit status: 0 the checks passed; 2 usage; 4 Docker not usable.\n");
}

int cmd_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "image", required_argument, NULL, 'i' },
		{ "runtime", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct docker_options dopts = { 0 };
	const char *image = "mai-sandbox:latest", *runtime = "runc";
	struct docker_version v = { 0 };
	struct docker_info info = { 0 };
	struct docker_image img = { 0 };
	struct docker *d;
	char *err = NULL;
	int c, status = MAI_EXIT_DOCKER;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': dopts.socket_path = optarg; break;
		case 'i': image = optarg; break;
		case 'r': runtime = optarg; break;
		case 'h': run_usage(stdout); return MAI_EXIT_OK;
		default: run_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		log_errorx("run takes no arguments ('%s'); see 'mai-agent run --help'", argv[optind]);
		return MAI_EXIT_USAGE;
	}

	d = docker_new(&dopts);
	if (docker_ping(d, &err) || docker_version(d, &v, &err) || docker_info(d, &info, &err))
		goto out;
	printf("docker: %s (API %s) at unix://%s, cgroup v%d, runtimes:", v.version, v.api_version,
	       docker_socket_path(d), info.cgroup_version);
	for (size_t i = 0; i < info.n_runtimes; i++)
		printf(" %s", info.runtimes[i]);
	printf("\n");
	if (!docker_info_has_runtime(&info, runtime)) {
		err = xasprintf("Docker has no runtime '%s': install it and register it in dockerd's "
				"daemon.json, or choose another runtime in config/sandbox.yaml", runtime);
		goto out;
	}
	if (docker_image_inspect(d, image, &img, &err))
		goto out;
	printf("sandbox image: %s (%s, %lld MB)\n", image, img.id, (long long)(img.size >> 20));
	printf("run: the checks passed; watching the drop directory arrives with issue #6 [agent], "
	       "so the agent stops here\n");
	status = MAI_EXIT_OK;
out:
	if (err)
		log_errorx("%s", err);
	free(err);
	docker_image_clear(&img);
	docker_info_clear(&info);
	docker_version_clear(&v);
	docker_free(d);
	return status;
}
