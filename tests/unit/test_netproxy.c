/* netproxy_render: the tinyproxy configuration and filter the agent writes
 * from network.* (issue 9). The proxy itself runs for real in
 * tests/integration/network.sh. */
#include <errno.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "netproxy.h"

static const char *const hosts[] = { "pypi.org", "files.pythonhosted.org" };

static struct netproxy_options opts(void)
{
	return (struct netproxy_options){
		.dir = "/var/lib/mai/proxy", .allowed_hosts = hosts, .n_hosts = 2,
		.listen = "172.18.0.1", .port = 3128, .client_subnet = "172.18.0.0/16",
		.run_as_user = "nobody", .run_as_group = "nogroup",
	};
}

/* Does host pass the filter? Each line is an ERE as tinyproxy reads it
 * (FilterType ere). */
static int filter_allows(const char *filter, const char *host)
{
	char *copy = strdup(filter), *save = NULL;
	int allowed = 0;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		regex_t re;
		if (line[0] == '#')
			continue;
		assert_int_equal(regcomp(&re, line, REG_EXTENDED | REG_NOSUB | REG_ICASE), 0);
		if (regexec(&re, host, 0, NULL, 0) == 0)
			allowed = 1;
		regfree(&re);
	}
	free(copy);
	return allowed;
}

static void test_conf_listens_on_gateway_only_and_denies_by_default(void **state)
{
	struct netproxy_options o = opts();
	char *conf, *filter, *err = NULL;

	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), 0);
	assert_non_null(strstr(conf, "\nPort 3128\n"));
	assert_non_null(strstr(conf, "\nListen 172.18.0.1\n"));
	assert_non_null(strstr(conf, "\nAllow 172.18.0.0/16\n"));
	assert_non_null(strstr(conf, "\nFilter \"/var/lib/mai/proxy/filter\"\n"));
	assert_non_null(strstr(conf, "\nFilterType ere\n"));
	assert_non_null(strstr(conf, "\nFilterDefaultDeny Yes\n"));
	assert_non_null(strstr(conf, "\nFilterURLs No\n"));
	assert_non_null(strstr(conf, "\nConnectPort 443\n"));
	assert_non_null(strstr(conf, "\nUser nobody\n"));
	assert_null(strstr(conf, "\nLogFile"));
	free(conf);
	free(filter);
}

static void test_filter_is_exact_host_names(void **state)
{
	struct netproxy_options o = opts();
	char *conf, *filter, *err = NULL;

	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), 0);
	assert_non_null(strstr(filter, "\n^pypi\\.org$\n"));
	assert_non_null(strstr(filter, "\n^files\\.pythonhosted\\.org$\n"));
	static const struct { const char *host; int allowed; } cases[] = {
		{ "pypi.org", 1 },
		{ "files.pythonhosted.org", 1 },
		{ "evil-pypi.org", 0 },        /* anchored at the start */
		{ "pypi.org.evil.example", 0 }, /* anchored at the end */
		{ "pypiXorg", 0 },             /* the dot is a dot */
		{ "sub.pypi.org", 0 },         /* exact, no subdomains */
		{ "example.com", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (filter_allows(filter, cases[i].host) != cases[i].allowed)
			fail_msg("%s: expected %s", cases[i].host, cases[i].allowed ? "allowed" : "denied");
	}
	free(conf);
	free(filter);
}

static void test_refuses_what_cannot_go_into_the_files(void **state)
{
	static const char *const bad_host[] = { "pypi.org\nAllow 0.0.0.0/0" };
	static const char *const regex_host[] = { "pypi.org|.*" };
	struct netproxy_options o = opts();
	char *conf = NULL, *filter = NULL, *err = NULL;

	o.allowed_hosts = bad_host;
	o.n_hosts = 1;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "network.allowed_hosts"));
	free(err);
	err = NULL;
	o.allowed_hosts = regex_host;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	free(err);
	err = NULL;
	o.n_hosts = 0;
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	free(err);
	err = NULL;
	o = opts();
	o.dir = "/var/lib/\"mai";
	assert_int_equal(netproxy_render(&o, &conf, &filter, &err), -EINVAL);
	assert_non_null(strstr(err, "agent.state_dir"));
	free(err);
	assert_null(conf);
	assert_null(filter);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_listens_on_gateway_only_and_denies_by_default),
		cmocka_unit_test(test_filter_is_exact_host_names),
		cmocka_unit_test(test_refuses_what_cannot_go_into_the_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
