/* Where the Docker client may connect (docker_endpoint_parse: a plain
 * tcp:// is refused), and Swarm's JSON: a service's body carries the
 * hardening API 1.41 can set per service, and replies recorded from Docker
 * 20.10 (trimmed) are read, malformed ones refused. */
#include <errno.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "docker_http.h"
#include "macro.h"
#include "docker_swarm_codec.h"

#define LEN(s) (sizeof(s) - 1)

static void test_endpoint_unix_and_tls(void **state)
{
	const struct docker_tls tls = { "/c/ca.pem", "/c/cert.pem", "/c/key.pem" };
	struct docker_endpoint ep;
	char *err = NULL;

	assert_int_equal(docker_endpoint_parse("unix:///run/d.sock", NULL, &ep, &err), 0);
	assert_string_equal(ep.unix_path, "/run/d.sock");
	assert_string_equal(ep.name, "unix:///run/d.sock");
	docker_endpoint_clear(&ep);
	assert_int_equal(docker_endpoint_parse("/run/d.sock", NULL, &ep, &err), 0);
	assert_string_equal(ep.url, "http://docker");
	docker_endpoint_clear(&ep);
	assert_int_equal(docker_endpoint_parse(NULL, NULL, &ep, &err), 0);
	assert_string_equal(ep.unix_path, "/var/run/docker.sock");
	docker_endpoint_clear(&ep);
	assert_int_equal(docker_endpoint_parse("tcp://10.0.0.5:2376", &tls, &ep, &err), 0);
	assert_null(ep.unix_path);
	assert_string_equal(ep.url, "https://10.0.0.5:2376");
	assert_string_equal(ep.name, "tcp://10.0.0.5:2376");
	assert_string_equal(ep.key, "/c/key.pem");
	docker_endpoint_clear(&ep);
}

static void test_endpoint_refused(void **state)
{
	static const struct docker_tls half = { "/c/ca.pem", NULL, NULL };
	static const struct {
		const char *host;
		const struct docker_tls *tls;
		const char *says;
	} cases[] = {
		{ "tcp://10.0.0.5:2376", NULL, "plain TCP is refused" },
		{ "tcp://10.0.0.5:2376", &half, "without a complete TLS client certificate" },
		{ "tcp://10.0.0.5", NULL, "tcp://HOST:PORT" },
		{ "tcp://10.0.0.5:2376/x", NULL, "tcp://HOST:PORT" },
		{ "unix://relative.sock", NULL, "unix:///absolute/path" },
		{ "ssh://me@host", NULL, "is not a Docker host" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct docker_endpoint ep;
		char *err = NULL;
		assert_int_equal(docker_endpoint_parse(cases[i].host, cases[i].tls, &ep, &err),
				 -EINVAL);
		if (!strstr(err, cases[i].says))
			fail_msg("%s: '%s' does not say '%s'", cases[i].host, err, cases[i].says);
		free(err);
	}
}

static void test_service_body_hardening(void **state)
{
	const struct docker_label labels[] = { { "mai.agent", "1" }, { "mai.job", "7" } };
	const char *cmd[] = { "python3", "-c", "print(1)", NULL };
	const char *env[] = { "HOME=/tmp", NULL };
	const char *constraints[] = { "node.labels.mai.trust==untrusted", "node.id!=abc", NULL };
	const struct docker_service_config cfgs[] = {
		{ "cfg1", "mai-x-1", "/mai-job", "1879048200", "1879048200" },
	};
	const struct docker_service_params p = {
		.name = "mai-x-1", .labels = labels, .n_labels = 2, .image = "mai-sandbox:latest",
		.cmd = cmd, .env = env, .user = "1879048200:1879048200", .workdir = "/tmp",
		.memory_bytes = 128 << 20, .nano_cpus = 500000000, .pids_limit = 160,
		.tmpfs_bytes = 16 << 20, .nofile = 64, .fsize_bytes = 4 << 20, .core_bytes = 1,
		.sigpending = 256, .msgqueue_bytes = 200 << 10, .memlock_bytes = 1 << 20,
		.configs = cfgs, .n_configs = 1, .networks = { "net1" },
		.constraints = constraints, .log_max_bytes = 1 << 20,
	};
	char *body = docker_swarm_codec_service_body(&p);
	json_t *j = json_loads(body, 0, NULL), *cs, *t;

	assert_non_null(j);
	t = json_object_get(j, "TaskTemplate");
	cs = json_object_get(t, "ContainerSpec");
	assert_true(json_is_true(json_object_get(cs, "ReadOnly")));
	/* The command is the init (the supervisor), stopped with SIGKILL. */
	assert_true(json_is_false(json_object_get(cs, "Init")));
	assert_string_equal(json_string_value(json_object_get(cs, "StopSignal")), "SIGKILL");
	assert_string_equal(json_string_value(json_array_get(json_object_get(cs, "CapabilityDrop"), 0)),
			    "ALL");
	assert_string_equal(json_string_value(json_object_get(cs, "User")), "1879048200:1879048200");
	/* The container carries the service's labels (a node's events name the job). */
	assert_string_equal(json_string_value(json_object_get(json_object_get(cs, "Labels"),
							      "mai.job")), "7");
	/* nofile, fsize, core and the run uid's kernel quotas. */
	json_t *ul = json_object_get(cs, "Ulimits");
	assert_int_equal(json_array_size(ul), 6);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ul, 3), "Name")),
			    "sigpending");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ul, 4), "Hard")),
			 200 << 10);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ul, 5), "Name")),
			    "memlock");
	json_t *cfg = json_array_get(json_object_get(cs, "Configs"), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(cfg, "File"), "UID")),
			    "1879048200");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(cfg, "File"), "Mode")),
			 0444);
	json_t *lim = json_object_get(json_object_get(t, "Resources"), "Limits");
	assert_int_equal(json_integer_value(json_object_get(lim, "Pids")), 160);
	assert_int_equal(json_integer_value(json_object_get(lim, "MemoryBytes")), 128 << 20);
	assert_string_equal(json_string_value(json_object_get(json_object_get(t, "RestartPolicy"),
							      "Condition")), "none");
	assert_int_equal(json_array_size(json_object_get(json_object_get(t, "Placement"),
							 "Constraints")), 2);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(t, "Networks"), 0), "Target")),
			    "net1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
				    json_object_get(t, "LogDriver"), "Options"), "max-size")),
			    "1048576");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
				 json_object_get(j, "Mode"), "ReplicatedJob"), "TotalCompletions")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "EndpointSpec"),
							      "Mode")), "dnsrr");
	/* A run mounts nothing of the node: only its tmpfs. */
	assert_int_equal(json_array_size(json_object_get(cs, "Mounts")), 1);
	json_decref(j);
	free(body);

	/* A probe's look at the node's files: read-only. */
	struct docker_service_params probe = p;
	probe.bind_source = "/etc";
	probe.bind_target = "/mai-node/etc";
	body = docker_swarm_codec_service_body(&probe);
	j = json_loads(body, 0, NULL);
	json_t *m = json_array_get(json_object_get(json_object_get(json_object_get(j, "TaskTemplate"),
								   "ContainerSpec"), "Mounts"), 1);
	assert_string_equal(json_string_value(json_object_get(m, "Type")), "bind");
	assert_string_equal(json_string_value(json_object_get(m, "Source")), "/etc");
	assert_string_equal(json_string_value(json_object_get(m, "Target")), "/mai-node/etc");
	assert_true(json_is_true(json_object_get(m, "ReadOnly")));
	json_decref(j);
	free(body);

	/* An allowlist run's proxy: two configs (its tinyproxy.conf and
	 * filter), the run's network and the egress network; and a run with
	 * dependencies: a second tmpfs at DOCKER_DEPS_DIR. */
	const struct docker_service_config two[] = {
		{ "c1", "mai-x-1-proxy-conf", "/mai-proxy/tinyproxy.conf", "7", "7" },
		{ "c2", "mai-x-1-proxy-filter", "/mai-proxy/filter", "7", "7" },
	};
	struct docker_service_params proxy = p;
	proxy.configs = two;
	proxy.n_configs = 2;
	proxy.networks[1] = "egress1";
	proxy.deps_tmpfs_bytes = 8 << 20;
	body = docker_swarm_codec_service_body(&proxy);
	j = json_loads(body, 0, NULL);
	t = json_object_get(j, "TaskTemplate");
	cs = json_object_get(t, "ContainerSpec");
	cfg = json_array_get(json_object_get(cs, "Configs"), 1);
	assert_string_equal(json_string_value(json_object_get(cfg, "ConfigID")), "c2");
	assert_string_equal(json_string_value(json_object_get(json_object_get(cfg, "File"), "Name")),
			    "/mai-proxy/filter");
	assert_int_equal(json_array_size(json_object_get(t, "Networks")), 2);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(t, "Networks"), 1), "Target")),
			    "egress1");
	m = json_array_get(json_object_get(cs, "Mounts"), 1);
	assert_string_equal(json_string_value(json_object_get(m, "Target")), DOCKER_DEPS_DIR);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(m, "TmpfsOptions"),
							    "SizeBytes")), 8 << 20);
	json_decref(j);
	free(body);

	/* No network named: the task joins none (no empty Networks list). */
	struct docker_service_params alone = p;
	alone.networks[0] = NULL;
	body = docker_swarm_codec_service_body(&alone);
	j = json_loads(body, 0, NULL);
	assert_non_null(j);
	assert_null(json_object_get(json_object_get(j, "TaskTemplate"), "Networks"));
	json_decref(j);
	free(body);
}

/* The run's overlay is internal; the proxies' egress overlay is not. */
static void test_overlay_body(void **state)
{
	const struct docker_label labels[] = { { "mai.agent", "1" } };
	char *body = docker_swarm_codec_overlay_body("n", labels, 1, true);
	json_t *j = json_loads(body, 0, NULL);

	(void)state;
	assert_true(json_is_true(json_object_get(j, "Internal")));
	assert_true(json_is_false(json_object_get(j, "Attachable")));
	json_decref(j);
	free(body);
	body = docker_swarm_codec_overlay_body("n", labels, 1, false);
	j = json_loads(body, 0, NULL);
	assert_true(json_is_false(json_object_get(j, "Internal")));
	json_decref(j);
	free(body);
}

/* Stopping a service's task: its spec, as inspected, with a constraint no
 * node meets; the version to update. */
static void test_stop_spec(void **state)
{
	static const char reply[] =
		"{\"ID\":\"s1\",\"Version\":{\"Index\":42},\"Spec\":{\"Name\":\"mai-x-1\","
		"\"TaskTemplate\":{\"Placement\":{\"Constraints\":[\"node.labels.mai.trust==trusted\"]}},"
		"\"Mode\":{\"ReplicatedJob\":{\"MaxConcurrent\":1,\"TotalCompletions\":1}}}}";
	int64_t version = 0;
	char *spec = NULL, *err = NULL;

	assert_int_equal(docker_swarm_codec_stop_spec(reply, strlen(reply), &version, &spec, &err),
			 DOCKER_OK);
	assert_int_equal(version, 42);
	json_t *j = json_loads(spec, 0, NULL);
	json_t *c = json_object_get(json_object_get(json_object_get(j, "TaskTemplate"), "Placement"),
				    "Constraints");
	assert_int_equal(json_array_size(c), 2);
	assert_string_equal(json_string_value(json_array_get(c, 0)), "node.labels.mai.trust==trusted");
	assert_string_equal(json_string_value(json_array_get(c, 1)), DOCKER_SWARM_NO_NODE);
	assert_string_equal(json_string_value(json_object_get(j, "Name")), "mai-x-1");
	assert_null(json_object_get(j, "Version"));
	json_decref(j);
	free(spec);

	/* No placement at all: made. A reply without a version: refused. */
	static const char bare[] = "{\"Version\":{\"Index\":7},\"Spec\":{\"Name\":\"n\"}}";
	assert_int_equal(docker_swarm_codec_stop_spec(bare, strlen(bare), &version, &spec, &err),
			 DOCKER_OK);
	assert_non_null(strstr(spec, "\"Constraints\":[\"" DOCKER_SWARM_NO_NODE "\"]"));
	free(spec);
	static const char nover[] = "{\"Spec\":{\"Name\":\"n\"}}";
	assert_int_not_equal(docker_swarm_codec_stop_spec(nover, strlen(nover), &version, &spec, &err),
			     DOCKER_OK);
	assert_null(spec);
	free(err);
}

static const char tasks_reply[] =
	"[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"DesiredState\":\"shutdown\",\"Status\":{\"State\":"
	"\"failed\",\"Message\":\"started\",\"Err\":\"task: non-zero exit (3)\",\"ContainerStatus\":"
	"{\"ContainerID\":\"c1\",\"PID\":0,\"ExitCode\":3}}},"
	"{\"ID\":\"t2\",\"Status\":{\"State\":\"pending\",\"Err\":\"no suitable node\"}}]";

static void test_tasks_and_nodes(void **state)
{
	static const char nodes_reply[] =
		"[{\"ID\":\"n1\",\"Spec\":{\"Labels\":{\"mai.trust\":\"untrusted\"},\"Availability\":"
		"\"active\"},\"Description\":{\"Hostname\":\"maisw-n3\",\"Engine\":{\"EngineVersion\":"
		"\"20.10.24\"}},\"Status\":{\"State\":\"ready\",\"Addr\":\"192.168.213.13\"}},"
		"{\"ID\":\"n2\",\"Spec\":{},\"Status\":{\"State\":\"down\"},\"ManagerStatus\":{}}]";
	struct docker_swarm_task *t;
	struct docker_swarm_node *n;
	size_t count;
	char *err = NULL;

	assert_int_equal(docker_swarm_codec_parse_tasks(tasks_reply, LEN(tasks_reply), &t, &count,
							&err), DOCKER_OK);
	assert_int_equal(count, 2);
	assert_string_equal(t[0].state, "failed");
	assert_true(t[0].has_exit);
	assert_int_equal(t[0].exit_code, 3);
	assert_string_equal(t[1].node_id, "");
	assert_false(t[1].has_exit);
	assert_string_equal(t[1].err, "no suitable node");
	docker_swarm_tasks_free(t, count);
	assert_int_equal(docker_swarm_codec_parse_nodes(nodes_reply, LEN(nodes_reply), "mai.trust",
							&n, &count, &err), DOCKER_OK);
	assert_int_equal(count, 2);
	assert_string_equal(n[0].label, "untrusted");
	assert_string_equal(n[0].hostname, "maisw-n3");
	assert_false(n[0].manager);
	assert_null(n[1].label);
	assert_string_equal(n[1].state, "down");
	assert_true(n[1].manager);
	docker_swarm_nodes_free(n, count);

	static const char *const bad[] = { "{}", "[{\"Status\":{}}]", "[1]", "not json" };
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(docker_swarm_codec_parse_tasks(bad[i], strlen(bad[i]), &t, &count,
								&err), DOCKER_ERR_PROTOCOL);
		assert_non_null(err);
		free(err);
		err = NULL;
	}
}

/* The engine's replies about the swarm itself: a created object's id, the
 * node's swarm state (a manager only when active with control), and
 * every malformed reply refused as a protocol error with a message. */
static void test_ids_info_and_bad_replies(void **state)
{
	char *id = NULL, *node = NULL, *err = NULL;
	bool manager = true;
	struct docker_swarm_node *n = NULL;
	size_t count = 9;
	static const char info_manager[] =
		"{\"Swarm\":{\"LocalNodeState\":\"active\",\"ControlAvailable\":true,\"NodeID\":\"n1\"}}";
	static const char info_worker[] =
		"{\"Swarm\":{\"LocalNodeState\":\"active\",\"ControlAvailable\":false,\"NodeID\":\"n2\"}}";
	static const char info_none[] = "{\"Swarm\":{\"LocalNodeState\":\"inactive\"}}";
	static const char *const bad_id[] = { "not json", "[]", "{}", "{\"ID\":\"\"}", "{\"ID\":7}" };
	static const char *const bad_info[] = { "not json", "[]", "{\"Swarm\":[]}",
						"{\"Swarm\":{\"LocalNodeState\":1}}",
						"{\"Swarm\":{\"ControlAvailable\":\"yes\"}}",
						"{\"Swarm\":{\"NodeID\":false}}" };
	static const char *const bad_nodes[] = { "not json", "{}", "[{\"ID\":\"a\"},{\"Spec\":{}}]", "[7]" };

	assert_int_equal(docker_swarm_codec_parse_id("{\"ID\":\"svc1\"}", 13, "service", &id, &err), DOCKER_OK);
	assert_string_equal(id, "svc1");
	free(id);
	assert_int_equal(docker_swarm_codec_parse_id("{\"Id\":\"cfg1\"}", 13, "config", &id, &err), DOCKER_OK);
	assert_string_equal(id, "cfg1");
	free(id);
	for (size_t i = 0; i < ARRAY_SIZE(bad_id); i++) {
		assert_int_equal(docker_swarm_codec_parse_id(bad_id[i], strlen(bad_id[i]), "service", &id,
							     &err), DOCKER_ERR_PROTOCOL);
		assert_null(id);
		assert_non_null(err);
		free(err);
		err = NULL;
	}

	assert_int_equal(docker_swarm_codec_parse_info(info_manager, LEN(info_manager), &manager, &node,
						       &err), DOCKER_OK);
	assert_true(manager);
	assert_string_equal(node, "n1");
	free(node);
	assert_int_equal(docker_swarm_codec_parse_info(info_worker, LEN(info_worker), &manager, &node,
						       &err), DOCKER_OK);
	assert_false(manager);
	free(node);
	assert_int_equal(docker_swarm_codec_parse_info(info_none, LEN(info_none), &manager, &node, &err),
			 DOCKER_OK);
	assert_false(manager);
	assert_string_equal(node, "");
	free(node);
	assert_int_equal(docker_swarm_codec_parse_info("{}", 2, &manager, &node, &err), DOCKER_OK);
	assert_false(manager);
	free(node);
	for (size_t i = 0; i < ARRAY_SIZE(bad_info); i++) {
		assert_int_equal(docker_swarm_codec_parse_info(bad_info[i], strlen(bad_info[i]), &manager,
							       &node, &err), DOCKER_ERR_PROTOCOL);
		assert_false(manager);
		assert_non_null(err);
		free(err);
		err = NULL;
		free(node);
		node = NULL;
	}

	for (size_t i = 0; i < ARRAY_SIZE(bad_nodes); i++) {
		assert_int_equal(docker_swarm_codec_parse_nodes(bad_nodes[i], strlen(bad_nodes[i]), "mai.trust",
								&n, &count, &err), DOCKER_ERR_PROTOCOL);
		assert_null(n);
		assert_int_equal(count, 0);
		assert_non_null(err);
		free(err);
		err = NULL;
	}
}

/* A service's logs as Docker 20.10 writes them (GET /services/{id}/logs of
 * a non-TTY service): an error of the engine's own comes as a frame of
 * stream 3 among the task's frames, as when the swarm's log broker found no
 * log session of the task's node at that moment; the frames after it are
 * the task's still. */
#define GRAB "Error grabbing logs: warning: incomplete log stream. some logs could not be " \
	     "retrieved for the following reasons: node nx1 is not available\n"
static const char logs_with_error[] =
	"\x01\0\0\0\0\0\0\x02" "a\n"
	"\x03\0\0\0\0\0\0\x8b" GRAB
	"\x02\0\0\0\0\0\0\x02" "b\n";

static void test_log_frames(void **state)
{
	struct docker_log_frame f;
	size_t off = 0, len = LEN(logs_with_error);
	char *err = NULL;
	(void)state;

	assert_int_equal(LEN(GRAB), 0x8b);
	assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, len, &off, &f, &err), 1);
	assert_int_equal(f.stream, DOCKER_LOG_STDOUT);
	assert_memory_equal(f.data, "a\n", 2);
	assert_int_equal(f.len, 2);
	assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, len, &off, &f, &err), 1);
	assert_int_equal(f.stream, DOCKER_LOG_SYSTEM);
	assert_int_equal(f.len, LEN(GRAB));
	assert_memory_equal(f.data, GRAB, LEN(GRAB));
	assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, len, &off, &f, &err), 1);
	assert_int_equal(f.stream, DOCKER_LOG_STDERR);
	assert_memory_equal(f.data, "b\n", 2);
	assert_int_equal(off, len);
	assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, len, &off, &f, &err), 0);
	assert_null(err);

	/* An empty body: no frame, no error. */
	off = 0;
	assert_int_equal(docker_swarm_codec_log_frame("", 0, &off, &f, &err), 0);
	/* Cut short in a header or in a payload: the end of what was read,
	 * where the last whole frame ended. */
	for (size_t cut = 11; cut < 10 + 8 + LEN(GRAB); cut++) {
		off = 0;
		assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, cut, &off, &f, &err), 1);
		assert_int_equal(docker_swarm_codec_log_frame(logs_with_error, cut, &off, &f, &err), 0);
		assert_int_equal(off, 10);
		assert_null(err);
	}
}

/* What is not a frame is refused, the bytes seen and where in the error. */
static void test_log_frames_refused(void **state)
{
	static const struct { const char *body; size_t len; size_t at; const char *shown; } bad[] = {
		/* An error as JSON with a 200. */
		{ "{\"message\":\"x\"}", 15, 0, "7b 22 6d 65 73 73 61 67 (\"{\"messag\")" },
		/* A TTY's raw bytes, after a frame. */
		{ "\x01\0\0\0\0\0\0\x01" "xhello\n", 15, 9, "68 65 6c 6c 6f 0a (\"hello.\")" },
		/* Stream 1 but not three zero bytes after it. */
		{ "\x01\0\x07\0\0\0\0\x01x", 9, 0, "01 00 07 00 00 00 00 01" },
		/* Too short to be a header, but no header's start either. */
		{ "Err", 3, 0, "45 72 72 (\"Err\")" },
		/* Stdin's number never comes back. */
		{ "\0\0\0\0\0\0\0\x01x", 9, 0, "00 00 00 00 00 00 00 01" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct docker_log_frame f;
		size_t off = 0;
		char *err = NULL;
		int r;

		while ((r = docker_swarm_codec_log_frame(bad[i].body, bad[i].len, &off, &f, &err)) > 0)
			;
		assert_int_equal(r, -EPROTO);
		assert_int_equal(off, bad[i].at);
		assert_non_null(err);
		assert_non_null(strstr(err, bad[i].shown));
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_endpoint_unix_and_tls),
		cmocka_unit_test(test_endpoint_refused),
		cmocka_unit_test(test_service_body_hardening),
		cmocka_unit_test(test_overlay_body),
		cmocka_unit_test(test_stop_spec),
		cmocka_unit_test(test_tasks_and_nodes),
		cmocka_unit_test(test_ids_info_and_bad_replies),
		cmocka_unit_test(test_log_frames),
		cmocka_unit_test(test_log_frames_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
