/* The allowlist mode's network (sandbox_net.c) when Docker answers in ways
 * the real engine does not on demand: a network created on another bridge
 * than asked, with its containers reaching one another, not internal or
 * without a gateway (a daemon.json or a network plugin that overrides
 * what was asked), a create or inspect refused a moment after the engine
 * answered, a leftover network that cannot be removed. network.sh runs the
 * mode for real (network, packet filter, proxy); a missing pip image is
 * the real engine's refusal (tests/integration/test_docker.c). Docker is
 * tests/unit/engine_standin.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "docker.h"
#include "engine_standin.h"
#include "hash.h"
#include "macro.h"
#include "sandbox_net.h"
#include "sandbox_options.h"
#include "testdir.h"

#define NET_ID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

/* The names sandbox_net.c gives instance "inst1"'s network and bridge. */
static void names(char net[32], char bridge[32])
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex("inst1", 5, hex);
	snprintf(net, 32, "mai-net-%.12s", hex);
	snprintf(bridge, 32, "mai-%.11s", hex);
}

static int start(const char *dir, const struct standin_route *routes, size_t n, bool wanted,
		 struct standin *s, struct sandbox_net **out, char **err)
{
	static const char *const hosts[] = { "pypi.org" };
	const struct sandbox_network_options o = {
		.state_dir = dir, .allowed_hosts = hosts, .n_hosts = 1, .proxy_port = 3128,
	};
	struct docker_options d_o = { .timeout_ms = 5000 };
	struct docker *d = NULL;

	standin_start(s, dir, routes, n);
	d_o.socket_path = s->socket_path;
	assert_int_equal(docker_open(&d_o, &d, err), 0);
	int r = sandbox_net_start(d, "inst1", wanted, &o, out, err);
	if (*out)
		sandbox_net_stop(*out);
	docker_free(d);
	standin_stop(s);
	return r;
}

/* What Docker made is not what the mode needs: refused, saying what
 * differs and how to run without the mode; the network made is removed
 * (its removal refused here: said, the packet filter left for the next
 * start). */
static void test_network_not_as_asked(void **state)
{
	char net[32], bridge[32];
	names(net, bridge);
	_cleanup_free_ char *other_bridge = xasprintf("{\"Id\":\"" NET_ID "\",\"Name\":\"%s\","
		"\"Internal\":true,\"Options\":{\"com.docker.network.bridge.name\":\"docker0\"}}", net);
	_cleanup_free_ char *icc = xasprintf("{\"Id\":\"" NET_ID "\",\"Name\":\"%s\","
		"\"Internal\":true,\"Options\":{\"com.docker.network.bridge.name\":\"%s\"}}", net, bridge);
	_cleanup_free_ char *external = xasprintf("{\"Id\":\"" NET_ID "\",\"Name\":\"%s\","
		"\"Internal\":false,\"Options\":{\"com.docker.network.bridge.name\":\"%s\","
		"\"com.docker.network.bridge.enable_icc\":\"false\"}}", net, bridge);
	_cleanup_free_ char *no_gateway = xasprintf("{\"Id\":\"" NET_ID "\",\"Name\":\"%s\","
		"\"Internal\":true,\"Options\":{\"com.docker.network.bridge.name\":\"%s\","
		"\"com.docker.network.bridge.enable_icc\":\"false\"}}", net, bridge);
	_cleanup_free_ char *created = xasprintf("{\"Id\":\"" NET_ID "\"}");
	const struct {
		const char *create_body;
		int create_status;
		const char *inspect_body;
		int inspect_status;
		const char *says;
	} cases[] = {
		{ "{\"message\":\"failed to allocate a subnet\"}", 500, NULL, 0,
		  "Docker refused to create the network (HTTP 500): failed to allocate a subnet" },
		{ created, 201, "{\"message\":\"network vanished\"}", 404,
		  "Docker refused to inspect the network (HTTP 404): network vanished" },
		{ created, 201, other_bridge, 200, "on the bridge 'docker0', not mai-" },
		{ created, 201, icc, 200, "with its containers reaching one another "
					 "(com.docker.network.bridge.enable_icc is not false)" },
		{ created, 201, external, 200, "without Internal: true; the allowlist mode needs" },
		{ created, 201, no_gateway, 200, "without a gateway and subnet; the allowlist mode" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		_cleanup_free_ char *path = xasprintf("/networks/%s", net);
		const struct standin_route routes[] = {
			ROUTE("GET", "/images/mai-sandbox-pip", 200, "{\"Id\":\"sha256:bb\"}"),
			ROUTE("POST", "/networks/create", cases[i].create_status, cases[i].create_body),
			ROUTE("GET", "/networks/" NET_ID, cases[i].inspect_status, cases[i].inspect_body),
			ROUTE("DELETE", path, 500, "{\"message\":\"network has active endpoints\"}"),
		};
		struct standin s;
		struct sandbox_net *n = (void *)1;
		char *err = NULL;

		int saved = testdir_stderr_begin(*state);
		int r = start(*state, routes, ARRAY_SIZE(routes), true, &s, &n, &err);
		_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
		if (r != -EIO || !err || !strstr(err, cases[i].says))
			fail_msg("case %zu: %d '%s', expected '%s'", i, r, err, cases[i].says);
		assert_null(n);
		_cleanup_free_ char *leftover = xasprintf(
			"removing the leftover network %s failed: Docker refused to remove the network "
			"(HTTP 500): network has active endpoints", net);
		_cleanup_free_ char *stays = xasprintf(
			"removing the sandbox network %s failed: Docker refused to remove the network "
			"(HTTP 500): network has active endpoints; its packet filter stays until the "
			"next start", net);
		if (!strstr(logged, leftover) || !strstr(logged, stays))
			fail_msg("case %zu: logged '%s'", i, logged);
		free(err);
	}
}

/* No level wants the network, but an earlier run left one: its removal is
 * tried and, refused, said. */
static void test_leftover_network_refused(void **state)
{
	char net[32], bridge[32];
	names(net, bridge);
	_cleanup_free_ char *path = xasprintf("/networks/%s", net);
	_cleanup_free_ char *body = xasprintf("{\"Id\":\"" NET_ID "\",\"Name\":\"%s\"}", net);
	const struct standin_route routes[] = {
		ROUTE("GET", "/images/", 404, "{\"message\":\"no such image\"}"),
		ROUTE("GET", path, 200, body),
		ROUTE("DELETE", path, 403, "{\"message\":\"error while removing network: it has "
					  "active endpoints\"}"),
	};
	struct standin s;
	struct sandbox_net *n = NULL;
	char *err = NULL;

	int saved = testdir_stderr_begin(*state);
	int r = start(*state, routes, ARRAY_SIZE(routes), false, &s, &n, &err);
	_cleanup_free_ char *logged = testdir_stderr_end(*state, saved);
	assert_int_equal(r, 0);
	_cleanup_free_ char *removing = xasprintf("removing the leftover sandbox network %s and "
						  "its packet filter", net);
	_cleanup_free_ char *failed = xasprintf("removing the sandbox network %s failed: Docker "
						"refused to remove the network (HTTP 403): error "
						"while removing network: it has active endpoints; "
						"its packet filter stays", net);
	if (!strstr(logged, removing) || !strstr(logged, failed))
		fail_msg("logged '%s'", logged);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_network_not_as_asked),
		T(test_leftover_network_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
