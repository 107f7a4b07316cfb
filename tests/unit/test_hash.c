#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "hash.h"

/* FIPS 180-2 known answers. */
static void test_sha256_known_answers(void **state)
{
	char hex[HASH_SHA256_HEX_LEN + 1];

	hash_sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	hash_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_hex_round_trip_and_rejects(void **state)
{
	uint8_t bytes[4] = { 0x00, 0xab, 0x7f, 0xff }, back[4];
	char hex[9];

	hash_to_hex(bytes, 4, hex);
	assert_string_equal(hex, "00ab7fff");
	assert_int_equal(hash_from_hex("00AB7fff", back, 4), 0);
	assert_memory_equal(bytes, back, 4);
	assert_int_equal(hash_from_hex("00ab7ff", back, 4), -EINVAL);   /* short */
	assert_int_equal(hash_from_hex("00ab7fff0", back, 4), -EINVAL); /* long */
	assert_int_equal(hash_from_hex("00ab7fxf", back, 4), -EINVAL);  /* not hex */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_known_answers),
		cmocka_unit_test(test_hex_round_trip_and_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
