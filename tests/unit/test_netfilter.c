/* netfilter.c's refusals before iptables is run: a tag that cannot name a
 * chain, a bridge, gateway or port that cannot go into a rule. (The
 * filter itself is installed and removed for real by network.sh, on the
 * network the agent makes; a unit test does not change the host's
 * firewall.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "netfilter.h"

static void test_tag_cannot_name_a_chain(void **state)
{
	static const char *const tags[] = {
		"", "mai-net-0123456789abcdef0123456789", "mai net", "mai;net", "mai_net",
	};

	for (size_t i = 0; i < ARRAY_SIZE(tags); i++) {
		char *err = NULL;
		if (netfilter_guard_remove(tags[i], &err) != -EINVAL)
			fail_msg("'%s' accepted", tags[i]);
		_cleanup_free_ char *want = xasprintf("'%s' cannot name an iptables chain", tags[i]);
		assert_string_equal(err, want);
		free(err);
	}
}

static void test_guard_values_not_usable(void **state)
{
	static const struct netfilter_guard bad[] = {
		{ "mai br", "172.30.0.1", 3128, "mai-net-1" },
		{ "", "172.30.0.1", 3128, "mai-net-1" },
		{ "mai-0123456789abcdef", "172.30.0.1", 3128, "mai-net-1" },
		{ "mai-1", "172.30.0", 3128, "mai-net-1" },
		{ "mai-1", "fe80::1", 3128, "mai-net-1" },
		{ "mai-1", "172.30.0.1", 0, "mai-net-1" },
		{ "mai-1", "172.30.0.1", 65536, "mai-net-1" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *err = NULL;
		if (netfilter_guard_install(&bad[i], &err) != -EINVAL)
			fail_msg("case %zu accepted", i);
		_cleanup_free_ char *want = xasprintf(
			"cannot filter the sandbox network: bridge '%s', gateway '%s' or port %d is "
			"not usable (network.proxy_port in config/sandbox.yaml)",
			bad[i].bridge, bad[i].gateway, bad[i].port);
		assert_string_equal(err, want);
		free(err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tag_cannot_name_a_chain),
		cmocka_unit_test(test_guard_values_not_usable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
