/* The filtering proxy of network: allowlist on Swarm (swarm_proxy.c) when
 * the manager answers in ways a healthy swarm does not on demand: a run's
 * network it cannot inspect or that has no subnet, a config or service it
 * will not create, a proxy task that is rejected, never runs or whose
 * state cannot be read for a moment, a log cut short or partly lost, a
 * removal refused. swarm.sh runs the proxy for real on a three-node swarm;
 * a missing image and an engine in no swarm are the real engine's
 * refusals (tests/integration/test_docker.c). The manager is
 * tests/unit/engine_standin.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "docker.h"
#include "docker_swarm.h"
#include "engine_standin.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "netproxy_conf.h"
#include "sandbox_options.h"
#include "swarm_proxy.h"
#include "testdir.h"

static const char *const hosts[] = { "pypi.org", "files.pythonhosted.org" };

static const struct standin_route opening[] = {
	ROUTE("GET", "/images/mai-sandbox-proxy", 200, "{\"Id\":\"sha256:aa\"}"),
	ROUTE("GET", "/images/mai-sandbox-pip", 200, "{\"Id\":\"sha256:bb\"}"),
	ROUTE("POST", "/networks/create", 201, "{\"Id\":\"egress1\"}"),
};

struct fixture {
	struct standin s;
	struct docker *d;
	struct swarm_proxies *ps;
	char *state_dir;
};

/* The instance's proxies opened on a manager that accepts it, then the
 * stand-in answering with routes. */
static void open_proxies(struct fixture *f, const char *dir, const struct standin_route *routes,
			 size_t n)
{
	struct docker_options o = { .timeout_ms = 5000 };
	char *err = NULL;

	f->state_dir = xasprintf("%s/state", dir);
	const struct sandbox_network_options no = {
		.state_dir = f->state_dir, .allowed_hosts = hosts, .n_hosts = ARRAY_SIZE(hosts),
		.proxy_port = 3128,
	};
	standin_start(&f->s, dir, opening, ARRAY_SIZE(opening));
	o.socket_path = f->s.socket_path;
	assert_int_equal(docker_open(&o, &f->d, &err), 0);
	assert_int_equal(swarm_proxies_open(f->d, "inst1", "mai-inst1", &no, &f->ps, &err), 0);
	assert_int_equal(standin_seen(&f->s, "POST", "/networks/create"), 1);
	standin_stop(&f->s);
	standin_start(&f->s, dir, routes, n);
}

static void close_proxies(struct fixture *f)
{
	swarm_proxies_free(f->ps);
	docker_free(f->d);
	standin_stop(&f->s);
	free(f->state_dir);
}

static const char *const constraints[] = { "node.labels.mai.trust==untrusted", NULL };
static const struct docker_label labels[] = { { "mai.instance", "inst1" }, { "mai.job", "j1" } };

static int start(struct fixture *f, int64_t wait_ms, struct swarm_proxy **p, char ***env,
		 char **err)
{
	return swarm_proxy_start(f->ps, "mai-run-1", labels, ARRAY_SIZE(labels), "runnet1",
				 constraints, 61000, wait_ms, p, env, err);
}

/* Nothing to filter for: refused before the manager is asked anything. */
static void test_open_without_hosts(void **state)
{
	const struct sandbox_network_options no = { .proxy_port = 3128 };
	struct docker_options o = { .socket_path = "/nonexistent/docker.sock" };
	struct swarm_proxies *ps = (void *)1;
	struct docker *d = NULL;
	char *err = NULL;

	assert_int_equal(docker_open(&o, &d, &err), 0);
	assert_int_equal(swarm_proxies_open(d, "inst1", "mai-inst1", &no, &ps, &err), -EINVAL);
	assert_null(ps);
	assert_non_null(strstr(err, "network.allowed_hosts in config/sandbox.yaml is empty"));
	free(err);
	docker_free(d);
}

#define SERVICE_OK ROUTE("POST", "/services/create", 201, "{\"ID\":\"psvc1\"}")
#define CONFIGS_OK ROUTE("POST", "/configs/create", 201, "{\"ID\":\"cfg1\"}")
#define NETWORK_OK ROUTE("GET", "/networks/runnet1", 200, \
	"{\"Id\":\"runnet1\",\"Name\":\"mai-run-1-net\",\"IPAM\":{\"Config\":[{\"Subnet\":\"10.0.9.0/24\"}]}}")
#define TASKS "/tasks?filters="

/* Each step of the proxy's start refused: the run learns which and why;
 * what was made is handed back for removal. */
static void test_start_refusals(void **state)
{
	static const struct {
		struct standin_route routes[4];
		int r;
		const char *says;
		unsigned configs, services;
	} cases[] = {
		{ { ROUTE("GET", "/networks/runnet1", 404, "{\"message\":\"network runnet1 not found\"}") },
		  -EIO, "Docker refused to inspect the network (HTTP 404): network runnet1 not found", 0, 0 },
		{ { ROUTE("GET", "/networks/runnet1", 200, "{\"Id\":\"runnet1\",\"Name\":\"mai-run-1-net\"}") },
		  -EIO, "the run's network mai-run-1-net has no subnet for its proxy's Allow", 0, 0 },
		{ { ROUTE("GET", "/networks/runnet1", 200,
			  "{\"Id\":\"runnet1\",\"Name\":\"n\",\"IPAM\":{\"Config\":[{\"Subnet\":\"10.0.9.0/24 x\"}]}}") },
		  -EINVAL, "subnet '10.0.9.0/24 x' is not an address tinyproxy can use", 0, 0 },
		{ { NETWORK_OK, ROUTE("POST", "/configs/create", 500, "{\"message\":\"raft: no leader\"}") },
		  -EIO, "Docker refused to create a config (HTTP 500): raft: no leader", 1, 0 },
		{ { NETWORK_OK, CONFIGS_OK,
		    ROUTE("POST", "/services/create", 500, "{\"message\":\"name conflicts\"}") },
		  -EIO, "Docker refused to create a service (HTTP 500): name conflicts", 2, 1 },
		{ { NETWORK_OK, CONFIGS_OK, SERVICE_OK,
		    ROUTE("GET", TASKS, 200, "[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"Status\":{\"State\":"
					      "\"rejected\",\"Err\":\"No such image: mai-sandbox-proxy:latest\"}}]") },
		  -EIO, "its filtering proxy's task ended rejected before the run could start: No such "
			"image: mai-sandbox-proxy:latest (does every node of the level have "
			"mai-sandbox-proxy:latest?)", 2, 1 },
		{ { NETWORK_OK, CONFIGS_OK, SERVICE_OK,
		    ROUTE("GET", TASKS, 200, "[{\"ID\":\"t1\",\"NodeID\":\"\",\"Status\":{\"State\":\"pending\"}}]") },
		  -ETIMEDOUT, "its filtering proxy did not start within 200 ms", 2, 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fixture f;
		size_t n = 0;
		while (n < 4 && cases[i].routes[n].method)
			n++;
		open_proxies(&f, *state, cases[i].routes, n);
		struct swarm_proxy *p = NULL;
		char **env = (char **)1, *err = NULL;
		int r = start(&f, 200, &p, &env, &err);
		if (r != cases[i].r || !err || !strstr(err, cases[i].says))
			fail_msg("case %zu: %d '%s', expected %d '%s'", i, r, err, cases[i].r,
				 cases[i].says);
		assert_null(env);
		assert_non_null(p);
		assert_int_equal(standin_seen(&f.s, "POST", "/configs/create"), cases[i].configs);
		assert_int_equal(standin_seen(&f.s, "POST", "/services/create"), cases[i].services);
		free(err);
		/* Removal: what was made goes (the stand-in's 404s are "gone"). */
		assert_true(swarm_proxy_remove(f.ps, p));
		close_proxies(&f);
	}
}

/* The proxy's task state unreadable for a moment: asked again until it
 * runs; the run gets the proxy's address by its service's name. */
static void test_start_after_a_refused_look(void **state)
{
	const struct standin_route routes[] = {
		NETWORK_OK, CONFIGS_OK, SERVICE_OK,
		ROUTE_N("GET", TASKS, 500, "{\"message\":\"manager busy\"}", 1),
		ROUTE("GET", TASKS, 200, "[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"Status\":{\"State\":\"running\"}}]"),
	};
	struct fixture f;
	struct swarm_proxy *p = NULL;
	char **env = NULL, *err = NULL;

	open_proxies(&f, *state, routes, ARRAY_SIZE(routes));
	int saved = testdir_stderr_begin(*state);
	int r = start(&f, 10000, &p, &env, &err);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(r, 0);
	assert_null(err);
	assert_non_null(strstr(logged, "proxy mai-run-1-proxy: its task: Docker refused to list a "
				       "service's tasks (HTTP 500): manager busy; asking again"));
	bool found = false;
	for (char **e = env; *e; e++)
		found |= strcmp(*e, "HTTPS_PROXY=http://mai-run-1-proxy:3128") == 0;
	assert_true(found);
	netproxy_env_free(env);
	/* Gone without its log: said, and the service still removed. */
	standin_stop(&f.s);
	const struct standin_route gone[] = {
		ROUTE("GET", "/services/psvc1/logs", 500, "{\"message\":\"node n1 is down\"}"),
		ROUTE("GET", "/services/psvc1", 404, "{\"message\":\"not found\"}"),
		ROUTE("GET", TASKS, 200, "[]"),
		ROUTE("DELETE", "/services/psvc1", 500, "{\"message\":\"raft: no leader\"}"),
		ROUTE("DELETE", "/configs/cfg1", 500, "{\"message\":\"config in use\"}"),
	};
	standin_start(&f.s, *state, gone, ARRAY_SIZE(gone));
	saved = testdir_stderr_begin(*state);
	assert_true(swarm_proxy_remove(f.ps, p));
	logged = (free(logged), testdir_stderr_end(*state, saved));
	if (!strstr(logged, "the log of the filtering proxy mai-run-1-proxy is lost: Docker refused "
			    "to read a service's logs (HTTP 500): node n1 is down") ||
	    !strstr(logged, "removing the filtering proxy mai-run-1-proxy failed: Docker refused "
			    "to remove a Swarm object (HTTP 500): raft: no leader (swept later)") ||
	    !strstr(logged, "removing a config of mai-run-1-proxy failed: Docker refused to remove "
			    "a Swarm object (HTTP 500): config in use (swept later)"))
		fail_msg("logged: %s", logged);
	close_proxies(&f);
}

/* The proxy's log kept in the agent's proxy log, each line after the
 * run's name; what the swarm could not give and a stream cut short are
 * said; a proxy log that cannot be written is said too. */
static void test_remove_keeps_the_log(void **state)
{
	static char body[1024];
	size_t len = 0;
	len = standin_frame(body, len, DOCKER_LOG_STDERR, "CONNECT pypi.org:443\nrefused host evil.example\n");
	len = standin_frame(body, len, DOCKER_LOG_SYSTEM, "Error grabbing logs: node n2 is not available\nx");
	len = standin_frame(body, len, DOCKER_LOG_STDOUT, "last line without a break");
	memcpy(body + len, "garbage!", 8);
	len += 8;
	const struct standin_route routes[] = {
		NETWORK_OK, CONFIGS_OK, SERVICE_OK,
		ROUTE("GET", TASKS, 200, "[{\"ID\":\"t1\",\"NodeID\":\"n1\",\"Status\":{\"State\":\"running\"}}]"),
	};
	const struct standin_route removing[] = {
		{ .method = "GET", .path = "/services/psvc1/logs", .status = 200, .body = body,
		  .body_len = len },
		ROUTE("GET", "/services/psvc1", 404, "{\"message\":\"not found\"}"),
		ROUTE("GET", TASKS, 200, "[]"),
		ROUTE("DELETE", "/", 204, NULL),
	};
	for (int unwritable = 0; unwritable < 2; unwritable++) {
		struct fixture f;
		struct swarm_proxy *p = NULL;
		char **env = NULL, *err = NULL;

		open_proxies(&f, *state, routes, ARRAY_SIZE(routes));
		assert_int_equal(start(&f, 10000, &p, &env, &err), 0);
		netproxy_env_free(env);
		standin_stop(&f.s);
		standin_start(&f.s, *state, removing, ARRAY_SIZE(removing));
		_cleanup_free_ char *proxy_dir = xasprintf("%s/proxy", f.state_dir);
		if (unwritable) {
			/* The proxy's directory is a file. */
			assert_int_equal(testdir_remove_tree(f.state_dir), 0);
			assert_int_equal(fileio_mkdir_p(f.state_dir, 0755), 0);
			testdir_put(f.state_dir, "proxy", "not a directory\n");
		}
		int saved = testdir_stderr_begin(*state);
		assert_true(swarm_proxy_remove(f.ps, p));
		_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
		if (!strstr(logged, "a part of the log of the filtering proxy mai-run-1-proxy is lost: "
				    "Error grabbing logs: node n2 is not available\n") ||
		    !strstr(logged, "the log of the filtering proxy mai-run-1-proxy is cut short: "))
			fail_msg("logged: %s", logged);
		assert_int_equal(standin_seen(&f.s, "DELETE", "/services/psvc1"), 1);
		assert_int_equal(standin_seen(&f.s, "DELETE", "/configs/cfg1"), 2);
		if (unwritable) {
			assert_non_null(strstr(logged, "cannot append the log of the filtering proxy "
						       "mai-run-1-proxy to "));
		} else {
			_cleanup_free_ char *path = xasprintf("%s/tinyproxy.log", proxy_dir);
			_cleanup_free_ char *text = NULL;
			size_t tlen;
			struct stat st;
			assert_int_equal(fileio_read_path(path, 1 << 16, &text, &tlen), 0);
			assert_string_equal(text, "mai-run-1: CONNECT pypi.org:443\n"
						  "mai-run-1: refused host evil.example\n"
						  "mai-run-1: last line without a break\n");
			assert_int_equal(stat(path, &st), 0);
			assert_int_equal(st.st_mode & 07777, 0600);
		}
		close_proxies(&f);
	}
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_open_without_hosts),
		T(test_start_refusals),
		T(test_start_after_a_refused_look),
		T(test_remove_keeps_the_log),
	};
	log_init("test_swarm_proxy", LOG_LEVEL_DEBUG);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
