/* The Docker client against the real engine: ping, version, info, image
 * inspect, then one run of the sandbox image with every hardened setting of
 * docs/ARCHITECTURE.md "Sandbox defaults" (create, attach, start, wait, remove). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <unistd.h>

#include "docker.h"
#include "docker_swarm.h"
#include "docker_env.h"
#include "netproxy_conf.h"
#include "sandbox_attach.h"
#include "sandbox_net.h"
#include "sandbox_options.h"
#include "swarm_engine.h"
#include "swarm_proxy.h"
#include "macro.h"
#include "monoclock.h"

static struct docker *docker;

static void test_ping_version_info(void **state)
{
	struct docker_version v;
	struct docker_info info;
	char *err = NULL;

	assert_int_equal(docker_ping(docker, &err), DOCKER_OK);
	assert_int_equal(docker_version(docker, &v, &err), DOCKER_OK);
	assert_non_null(strchr(v.api_version, '.'));
	assert_true(strlen(v.version) > 0);
	assert_int_equal(docker_info(docker, &info, &err), DOCKER_OK);
	assert_true(info.cgroup_version == 1 || info.cgroup_version == 2);
	assert_true(docker_info_has_runtime(&info, "runc"));
	assert_false(docker_info_has_runtime(&info, "no-such-runtime"));
	assert_true(info.ncpu >= 1);
	assert_true(info.mem_total > 0);
	assert_string_equal(info.server_version, v.version);
	docker_info_clear(&info);
	docker_version_clear(&v);
}

static void test_unreachable_socket_message(void **state)
{
	struct docker_options o = { .socket_path = "/nonexistent/docker.sock" };
	struct docker *d = docker_new(&o);
	char *err = NULL;

	assert_int_equal(docker_ping(d, &err), DOCKER_ERR_UNREACHABLE);
	assert_non_null(strstr(err, "Docker not reachable at unix:///nonexistent/docker.sock ("));
	assert_non_null(strstr(err, "start dockerd"));
	assert_non_null(strstr(err, "docker.socket in config/agent.yaml"));
	free(err);
	docker_free(d);
}

/* Docker gone in the middle of the agent's work: every call says so, with
 * where it looked and what to do, and hands back nothing. */
static void test_every_call_unreachable(void **state)
{
	struct docker_options o = { .socket_path = "/nonexistent/docker.sock" };
	struct docker *d = docker_new(&o);
	struct docker_version v;
	struct docker_image img;
	struct docker_stats st;
	struct docker_network net;
	struct docker_swarm_task *tasks = (void *)1;
	struct docker_swarm_node *nodes = (void *)1;
	char **ids = (char **)1, *id = (char *)1, *logs = (char *)1;
	size_t n = 1, len = 1;
	struct docker_stream *stream = (void *)1;
	enum docker_error e[18];
	char *err[18] = { 0 };
	int k = 0;

	e[k] = docker_version(d, &v, &err[k]), k++;
	e[k] = docker_image_inspect(d, "mai-sandbox:latest", &img, &err[k]), k++;
	e[k] = docker_container_start(d, "c1", &err[k]), k++;
	e[k] = docker_container_update(d, "c1", 1 << 28, 1000000000, 64, &err[k]), k++;
	e[k] = docker_container_attach(d, "c1", &stream, &err[k]), k++;
	assert_null(stream);
	e[k] = docker_container_stats(d, "c1", &st, &err[k]), k++;
	e[k] = docker_container_list_by_label(d, "mai.instance", "x", &ids, &n, &err[k]), k++;
	assert_null(ids);
	assert_int_equal(n, 0);
	e[k] = docker_network_create_internal(d, "mai-x", "br-x", NULL, 0, &id, &err[k]), k++;
	assert_null(id);
	e[k] = docker_network_inspect(d, "mai-x", &net, &err[k]), k++;
	e[k] = docker_network_remove(d, "mai-x", &err[k]), k++;
	e[k] = docker_swarm_manager(d, &id, &err[k]), k++;
	assert_null(id);
	e[k] = docker_node_list(d, "mai.trust", &nodes, &n, &err[k]), k++;
	assert_null(nodes);
	e[k] = docker_config_create(d, "mai-x", NULL, 0, "x", 1, &id, &err[k]), k++;
	assert_null(id);
	e[k] = docker_service_tasks(d, "svc1", &tasks, &n, &err[k]), k++;
	assert_null(tasks);
	e[k] = docker_service_logs(d, "svc1", 4096, &logs, &len, &err[k]), k++;
	assert_null(logs);
	assert_int_equal(len, 0);
	e[k] = docker_swarm_list_by_label(d, DOCKER_SWARM_CONFIG, "mai.instance", "x", &ids, &n,
					  &err[k]), k++;
	assert_null(ids);
	e[k] = docker_service_stop(d, "svc1", &err[k]), k++;
	e[k] = docker_swarm_remove(d, DOCKER_SWARM_SERVICE, "svc1", &err[k]), k++;
	assert_int_equal(k, ARRAY_SIZE(e));
	for (int i = 0; i < k; i++) {
		if (e[i] != DOCKER_ERR_UNREACHABLE || !err[i] ||
		    !strstr(err[i], "Docker not reachable at unix:///nonexistent/docker.sock (") ||
		    !strstr(err[i], "start dockerd"))
			fail_msg("call %d: %d '%s'", i, e[i], err[i]);
		free(err[i]);
	}
	docker_free(d);
}

static void test_image_inspect(void **state)
{
	struct docker_image img;
	char *err = NULL;

	assert_int_equal(docker_image_inspect(docker, docker_env_image(), &img, &err), DOCKER_OK);
	assert_int_equal(strncmp(img.id, "sha256:", 7), 0);
	assert_int_equal(strlen(img.id), 7 + 64);
	assert_true(img.size > 1000000);
	docker_image_clear(&img);

	assert_int_equal(docker_image_inspect(docker, "mai-no-such-image:none", &img, &err),
			 DOCKER_ERR_IMAGE_NOT_FOUND);
	assert_string_equal(err, "image mai-no-such-image:none not found: build it with "
				 "packaging/sandbox-image/build.sh or set sandbox.image in "
				 "config/sandbox.yaml");
	free(err);
}

/* The probe prints what the container lets it see; the test checks each
 * line against the hardened defaults. */
static const char probe[] =
	"import os, socket, sys\n"
	"print('uid', os.getuid(), os.getgid())\n"
	"st = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
	"print('capeff', st['CapEff'].strip(), 'nnp', st['NoNewPrivs'].strip(), 'seccomp', st['Seccomp'].strip())\n"
	"try:\n"
	"    open('/etc/mai-probe', 'w')\n"
	"    print('rootfs writable')\n"
	"except OSError as e:\n"
	"    print('rootfs', e.strerror)\n"
	"open('/tmp/x', 'w').write('ok')\n"
	"print('tmp', open('/tmp/x').read())\n"
	"print('ifaces', sorted(n for _, n in socket.if_nameindex()))\n"
	"print('pid1', open('/proc/1/cmdline').read().split('\\0')[0].rsplit('/', 1)[-1])\n"
	"print('memory', open('/sys/fs/cgroup/memory/memory.limit_in_bytes').read().strip()"
	" if os.path.exists('/sys/fs/cgroup/memory/memory.limit_in_bytes')"
	" else open('/sys/fs/cgroup/memory.max').read().strip())\n"
	"print('caf\\u00e9 \\u2713')\n"
	"sys.stderr.write('to stderr\\n')\n"
	"sys.exit(3)\n";

static void test_hardened_run(void **state)
{
	const char *cmd[] = { "python3", "-I", "-", NULL };
	const char *env[] = { "HOME=/tmp", "LANG=C.UTF-8", NULL };
	const struct docker_label labels[] = {
		{ "mai.agent", "1" },
		{ "mai.instance", docker_env_instance() },
		{ "mai.job", "integration-hardened-run" },
	};
	struct docker_create_params p = {
		.image = docker_env_image(), .cmd = cmd, .env = env, .user = "1000:1000",
		.workdir = "/tmp", .labels = labels, .n_labels = 3,
		.memory_bytes = 128 << 20, .nano_cpus = 1000000000, .pids_limit = 64,
		.tmpfs_bytes = 16 << 20, .nofile = 64, .fsize_bytes = 8 << 20,
		.runtime = "runc", .open_stdin = true,
	};
	struct docker_stream *s = NULL;
	struct { struct sandbox_demux d; } h;
	struct docker_container_state st;
	char *id = NULL, *err = NULL;
	int64_t code = -1;
	int io_error = 0;

	assert_int_equal(docker_container_create(docker, &p, &id, &err), DOCKER_OK);
	assert_int_equal(docker_env_count_ours(docker), 1);
	assert_int_equal(docker_container_attach(docker, id, &s, &err), DOCKER_OK);
	assert_int_equal(docker_container_start(docker, id, &err), DOCKER_OK);
	sandbox_demux_init(&h.d, 65536, 65536);
	assert_int_equal(sandbox_attach_pump(s, &h.d, (const uint8_t *)probe, strlen(probe), NULL, NULL,
					     monoclock_ms() + 30000, true, NULL, &io_error),
			 SANDBOX_ATTACH_EOF);
	docker_stream_close(s);
	assert_int_equal(docker_container_wait(docker, id, 30000, &code, &err), DOCKER_OK);
	assert_int_equal(code, 3);
	assert_int_equal(docker_container_inspect(docker, id, &st, &err), DOCKER_OK);
	assert_string_equal(st.status, "exited");
	assert_false(st.oom_killed);
	assert_int_equal(st.exit_code, 3);
	docker_container_state_clear(&st);

	assert_string_equal(h.d.out.data,
			    "uid 1000 1000\n"
			    "capeff 0000000000000000 nnp 1 seccomp 2\n"
			    "rootfs Read-only file system\n"
			    "tmp ok\n"
			    "ifaces ['lo']\n"
			    "pid1 docker-init\n"
			    "memory 134217728\n"
			    "caf\xc3\xa9 \xe2\x9c\x93\n");
	assert_string_equal(h.d.err.data, "to stderr\n");
	assert_false(h.d.out.truncated);
	sandbox_demux_clear(&h.d);

	assert_int_equal(docker_container_remove(docker, id, &err), DOCKER_OK);
	/* Removing twice is not an error: cleanup paths may race. */
	assert_int_equal(docker_container_remove(docker, id, &err), DOCKER_OK);
	assert_int_equal(docker_env_count_ours(docker), 0);
	assert_int_equal(docker_container_inspect(docker, id, &st, &err), DOCKER_ERR_NOT_FOUND);
	free(err);
	free(id);
}

static void test_missing_runtime_is_typed(void **state)
{
	const char *cmd[] = { "true", NULL };
	const struct docker_label labels[] = { { "mai.instance", docker_env_instance() } };
	struct docker_create_params p = {
		.image = docker_env_image(), .cmd = cmd, .labels = labels, .n_labels = 1,
		.memory_bytes = 64 << 20, .nano_cpus = 500000000, .pids_limit = 16,
		.tmpfs_bytes = 1 << 20, .nofile = 16, .fsize_bytes = 1 << 20,
		.runtime = "mai-no-such-runtime",
	};
	char *id = NULL, *err = NULL;
	enum docker_error e = docker_container_create(docker, &p, &id, &err);

	if (e == DOCKER_OK) {
		/* Some engines only notice at start. */
		e = docker_container_start(docker, id, &err);
		docker_container_remove(docker, id, &err);
	}
	assert_int_equal(e, DOCKER_ERR_RUNTIME_MISSING);
	assert_non_null(strstr(err, "Docker has no runtime 'mai-no-such-runtime'"));
	assert_non_null(strstr(err, "config/sandbox.yaml"));
	free(err);
	free(id);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

/* What the real engine refuses, as the agent reports it: Docker's own
 * words after what was refused, typed so that callers can tell a missing
 * image or container from a bad request. */
static void test_refusals(void **state)
{
	const char *cmd[] = { "true", NULL };
	const struct docker_label labels[] = { { "mai.instance", docker_env_instance() } };
	struct docker_create_params p = {
		.image = "mai-no-such-image:none", .cmd = cmd, .labels = labels, .n_labels = 1,
		.memory_bytes = 64 << 20, .nano_cpus = 500000000, .pids_limit = 16,
		.tmpfs_bytes = 1 << 20, .nofile = 16, .fsize_bytes = 1 << 20,
	};
	_cleanup_free_ char *gone = xasprintf("mai-no-such-container-%d", (int)getpid());
	struct docker_image img;
	char *id = NULL, *err = NULL;

	assert_int_equal(docker_container_create(docker, &p, &id, &err), DOCKER_ERR_IMAGE_NOT_FOUND);
	assert_string_equal(err, "image mai-no-such-image:none not found: build it with "
				 "packaging/sandbox-image/build.sh or set sandbox.image in "
				 "config/sandbox.yaml");
	free(err);
	/* Below Docker's minimum memory (6 MB): refused at the create. */
	p.image = docker_env_image();
	p.memory_bytes = 1 << 20;
	assert_int_equal(docker_container_create(docker, &p, &id, &err), DOCKER_ERR_BAD_REQUEST);
	assert_null(id);
	assert_non_null(strstr(err, "Docker refused to create the container (HTTP 400): Minimum memory"));
	free(err);
	assert_int_equal(docker_image_inspect(docker, "Mai-Upper-Case", &img, &err),
			 DOCKER_ERR_BAD_REQUEST);
	assert_non_null(strstr(err, "Docker refused to inspect the image (HTTP 400): "));
	assert_non_null(strstr(err, "invalid reference format"));
	free(err);
	assert_int_equal(docker_container_start(docker, gone, &err), DOCKER_ERR_NOT_FOUND);
	assert_non_null(strstr(err, "Docker refused to start container mai-no-such-" /* .12s */
				    " (HTTP 404): No such container: mai-no-such-container-"));
	free(err);
	assert_int_equal(docker_container_update(docker, gone, 1 << 28, 1000000000, 64, &err),
			 DOCKER_ERR_NOT_FOUND);
	assert_non_null(strstr(err, "Docker refused to update the container's limits (HTTP 404): "
				    "No such container"));
	free(err);
	/* A pre-defined network, which Docker never removes (403). */
	assert_int_equal(docker_network_remove(docker, "none", &err), DOCKER_ERR_SERVER);
	assert_string_equal(err, "Docker refused to remove the network (HTTP 403): none is a "
				 "pre-defined network and cannot be removed");
	free(err);

	/* A kill of a container that is not running (created, never
	 * started): Docker answers 409, and the caller, who wanted it
	 * stopped, has what it wanted. */
	p.memory_bytes = 64 << 20;
	assert_int_equal(docker_container_create(docker, &p, &id, &err), DOCKER_OK);
	assert_int_equal(docker_container_kill(docker, id, "KILL", &err), DOCKER_OK);
	assert_null(err);
	assert_int_equal(docker_container_remove(docker, id, &err), DOCKER_OK);
	free(id);
	assert_int_equal(docker_env_count_ours(docker), 0);
}

/* The Swarm engine pointed at an engine that is in no swarm (the suite's
 * engine is in none: swarm.sh makes private ones, and does not run this
 * program): told to point engine.host at a
 * manager; the Swarm calls are refused with Docker's words. */
static void test_not_a_swarm_manager(void **state)
{
	char *node = NULL, *err = NULL, *logs = NULL;
	size_t len = 0;

	assert_int_equal(docker_swarm_manager(docker, &node, &err), DOCKER_ERR_BAD_REQUEST);
	assert_null(node);
	assert_non_null(strstr(err, " is not a manager of an active swarm: point engine.host in "
				    "config/sandbox.yaml at a manager"));
	free(err);
	assert_int_equal(docker_service_logs(docker, "mai-none", 4096, &logs, &len, &err),
			 DOCKER_ERR_SERVER);
	assert_null(logs);
	assert_non_null(strstr(err, "Docker refused to read a service's logs (HTTP 503): This node "
				    "is not a swarm manager."));
	free(err);
	assert_int_equal(docker_swarm_remove(docker, DOCKER_SWARM_CONFIG, "mai-none", &err),
			 DOCKER_ERR_SERVER);
	assert_non_null(strstr(err, "Docker refused to remove a Swarm object (HTTP 503)"));
	free(err);
}

/* network: allowlist on Swarm refused at the engine's start: an image a
 * node lacks names the build step; an engine in no swarm refuses the
 * instance's overlay network. */
static void test_swarm_proxies_refused(void **state)
{
	static const char *const hosts[] = { "pypi.org" };
	struct sandbox_network_options no = {
		.state_dir = "/nonexistent", .allowed_hosts = hosts, .n_hosts = 1, .proxy_port = 3128,
		.proxy_image = "mai-no-such-image:none",
	};
	struct swarm_proxies *ps = NULL;
	char *err = NULL;

	assert_int_equal(swarm_proxies_open(docker, docker_env_instance(), "mai-x", &no, &ps, &err),
			 -ENOENT);
	assert_null(ps);
	assert_string_equal(err, "image mai-no-such-image:none not found: build it with "
				 "packaging/sandbox-image/build.sh or set sandbox.image in "
				 "config/sandbox.yaml; network: allowlist on Swarm needs "
				 "mai-no-such-image:none on every node of its levels: "
				 "packaging/sandbox-image/build.sh --variant proxy with DOCKER_SOCKET "
				 "at each node (docs/SCALING.md)");
	free(err);
	/* The images this engine has (those the suite builds). */
	no.proxy_image = NULL;
	assert_int_equal(swarm_proxies_open(docker, docker_env_instance(), "mai-x", &no, &ps, &err),
			 -EIO);
	assert_null(ps);
	assert_non_null(strstr(err, "Docker refused to create an overlay network (HTTP 500): This "
				    "node is not a swarm manager."));
	free(err);
}

/* The Swarm engine (engine.mode swarm) refusing to open: an engine.host
 * that names no engine, an engine that is not there, an engine in no
 * swarm; each says what to change. */
static void test_swarm_engine_refused(void **state)
{
	static const struct {
		const char *socket, *host;
		int r;
		const char *says;
	} cases[] = {
		{ NULL, "ftp://manager:2376", -EINVAL, "ftp://manager:2376" },
		{ "/nonexistent/docker.sock", NULL, -EHOSTDOWN,
		  "Docker not reachable at unix:///nonexistent/docker.sock (" },
		{ NULL, NULL, -EIO, " is not a manager of an active swarm: point engine.host in "
				    "config/sandbox.yaml at a manager" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sandbox_options o;
		sandbox_options_defaults(&o);
		o.socket_path = cases[i].socket ? cases[i].socket : docker_env_socket();
		o.engine.host = cases[i].host;
		o.instance_id = docker_env_instance();
		const struct sandbox_engine_setup setup = { .opts = &o };
		void *ctx = (void *)1;
		char *err = NULL;
		int r = swarm_engine.open(&setup, &ctx, &err);
		if (r != cases[i].r || !err || !strstr(err, cases[i].says))
			fail_msg("case %zu: %d '%s', expected %d '%s'", i, r, err, cases[i].r,
				 cases[i].says);
		assert_null(ctx);
		free(err);
	}
}

/* network: allowlist on an engine without the pip image: refused with
 * the build step; without an allowlist level the image is not required
 * (and no leftover network of this instance is there to remove). */
static void test_allowlist_without_the_pip_image(void **state)
{
	static const char *const hosts[] = { "pypi.org" };
	const struct sandbox_network_options o = {
		.state_dir = "/nonexistent", .allowed_hosts = hosts, .n_hosts = 1,
		.proxy_port = 3128, .image = "mai-no-such-image:none",
	};
	struct sandbox_net *n = (void *)1;
	char *err = NULL;

	assert_int_equal(sandbox_net_start(docker, docker_env_instance(), true, &o, &n, &err),
			 -ENOENT);
	assert_null(n);
	assert_string_equal(err, "image mai-no-such-image:none not found: build it with "
				 "packaging/sandbox-image/build.sh or set sandbox.image in "
				 "config/sandbox.yaml; a trust level has network: allowlist and needs "
				 "it: build it with packaging/sandbox-image/build.sh --variant pip, or "
				 "set network.image in config/sandbox.yaml");
	free(err);
	assert_int_equal(sandbox_net_start(docker, docker_env_instance(), false, &o, &n, &err), 0);
	assert_null(sandbox_net_name(n));
	assert_null(sandbox_net_pip(n)->image_id);
	sandbox_net_stop(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ping_version_info),
		cmocka_unit_test(test_unreachable_socket_message),
		cmocka_unit_test(test_every_call_unreachable),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_not_a_swarm_manager),
		cmocka_unit_test(test_swarm_proxies_refused),
		cmocka_unit_test(test_swarm_engine_refused),
		cmocka_unit_test(test_allowlist_without_the_pip_image),
		cmocka_unit_test(test_image_inspect),
		cmocka_unit_test(test_hardened_run),
		cmocka_unit_test(test_missing_runtime_is_typed),
	};
	int r;

	docker = docker_env_require();
	r = cmocka_run_group_tests(tests, NULL, NULL);
	docker_free(docker);
	return r;
}
