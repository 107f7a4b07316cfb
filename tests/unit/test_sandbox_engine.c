/* The local Docker engine's start (sandbox_engine_docker.c) when Docker
 * answers its ping and then fails a call (it dies in between, or is
 * overloaded): version or container list refused, a leftover container
 * that cannot be removed, a last sweep at close that cannot list. The
 * real engine's start and its refusals of settings are tested against
 * Docker itself (test_sandbox, test_docker). Docker is
 * tests/unit/engine_standin.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine_standin.h"
#include "log.h"
#include "macro.h"
#include "sandbox_engine.h"
#include "sandbox_engine_docker.h"
#include "sandbox_trust.h"
#include "testdir.h"

#define LEFTOVER "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static const struct standin_route ping = ROUTE("GET", "/_ping", 200, "OK");
static const struct standin_route version = ROUTE("GET", "/version", 200,
						  "{\"Version\":\"20.10.24\",\"ApiVersion\":\"1.41\"}");
static const struct standin_route info = ROUTE("GET", "/info", 200,
	"{\"ServerVersion\":\"20.10.24\",\"NCPU\":2,\"MemTotal\":4000000000,\"CgroupVersion\":\"2\","
	"\"Runtimes\":{\"runc\":{\"path\":\"runc\"}}}");
static const struct standin_route image = ROUTE("GET", "/images/", 200, "{\"Id\":\"sha256:aa\"}");

/* The engine opened on routes: its result, *err and what it logged. */
static int open_engine(const char *dir, const struct standin_route *routes, size_t n,
		       char **err, char **logged)
{
	struct standin s;
	struct sandbox_options o;
	void *e = NULL;

	sandbox_options_defaults(&o);
	for (int t = 0; t < TRUST_COUNT; t++)
		o.trust[t].runtime = "runc";
	o.instance_id = "inst1";
	o.pool_size = 0;
	o.uid_check = false;
	o.exit_source = SANDBOX_EXIT_DOCKER;
	struct sandbox_trust *trust = sandbox_trust_new(o.trust, 1);
	standin_start(&s, dir, routes, n);
	o.socket_path = s.socket_path;
	const struct sandbox_engine_setup setup = { .opts = &o, .trust = trust };
	int saved = testdir_stderr_begin(dir);
	int r = sandbox_engine_docker.open(&setup, &e, err);
	if (r == 0)
		sandbox_engine_docker.close(e);
	*logged = testdir_stderr_end(dir, saved);
	standin_stop(&s);
	sandbox_trust_free(trust);
	return r;
}

/* Docker answers its ping, then refuses: the start fails with its words. */
static void test_refused_after_the_ping(void **state)
{
	const struct standin_route no_version[] = {
		ping, ROUTE("GET", "/version", 500, "{\"message\":\"daemon is shutting down\"}"),
	};
	const struct standin_route no_list[] = {
		ping, version, info, image,
		ROUTE("GET", "/containers/json", 500, "{\"message\":\"context deadline exceeded\"}"),
	};
	char *err = NULL, *logged = NULL;

	/* Something at the socket that is not Docker: the caller may wait for
	 * Docker to come (-EHOSTDOWN), told what answered. */
	assert_int_equal(open_engine(*state, NULL, 0, &err, &logged), -EHOSTDOWN);
	assert_non_null(strstr(err, "answered /_ping with HTTP 404"));
	free(err);
	free(logged);
	assert_int_equal(open_engine(*state, no_version, ARRAY_SIZE(no_version), &err, &logged), -EIO);
	assert_string_equal(err, "Docker refused to report its version (HTTP 500): daemon is shutting down");
	free(err);
	free(logged);
	assert_int_equal(open_engine(*state, no_list, ARRAY_SIZE(no_list), &err, &logged), -EIO);
	assert_string_equal(err, "Docker refused to list containers (HTTP 500): context deadline exceeded");
	free(err);
	free(logged);
}

/* A leftover container of this instance that cannot be removed: said, and
 * the engine starts all the same; at its close the last sweep cannot
 * list: said in the debug log. */
static void test_leftover_not_removable(void **state)
{
	const struct standin_route routes[] = {
		ping, version, info, image,
		ROUTE_N("GET", "/containers/json", 200, "[{\"Id\":\"" LEFTOVER "\"}]", 1),
		ROUTE("GET", "/containers/json", 500, "{\"message\":\"daemon is shutting down\"}"),
		ROUTE("DELETE", "/containers/" LEFTOVER, 500,
		      "{\"message\":\"could not kill: tried to kill container, but did not receive an "
		      "exit event\"}"),
		ROUTE("GET", "/networks/", 404, "{\"message\":\"network not found\"}"),
	};
	char *err = NULL, *logged = NULL;

	log_set_level(LOG_LEVEL_DEBUG);
	int r = open_engine(*state, routes, ARRAY_SIZE(routes), &err, &logged);
	log_set_level(LOG_LEVEL_INFO);
	if (r != 0)
		fail_msg("open: %s", err);
	if (!strstr(logged, "removing leftover container 0123456789ab failed: Docker refused to "
			    "remove the container (HTTP 500): could not kill") ||
	    !strstr(logged, "removed 0 leftover sandbox container(s) of instance 'inst1'") ||
	    !strstr(logged, "no last sweep of instance 'inst1': Docker refused to list containers "
			    "(HTTP 500): daemon is shutting down"))
		fail_msg("logged: %s", logged);
	free(logged);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, testdir_setup, testdir_teardown)
	const struct CMUnitTest tests[] = {
		T(test_refused_after_the_ping),
		T(test_leftover_not_removable),
	};
	log_init("test_sandbox_engine", LOG_LEVEL_INFO);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
