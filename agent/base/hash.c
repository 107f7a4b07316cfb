#include "hash.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>

void hash_sha256(const void *data, size_t len, uint8_t out[HASH_SHA256_LEN])
{
	unsigned int n = 0;
	if (EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) != 1 || n != HASH_SHA256_LEN) {
		/* EVP_Digest with a built-in digest fails only when OpenSSL is broken. */
		abort();
	}
}

void hash_to_hex(const uint8_t *in, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < len; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * len] = '\0';
}

int hash_hex_digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hash_from_hex(const char *hex, uint8_t *out, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		int hi = hash_hex_digit_value(hex[2 * i]);
		int lo = hi < 0 ? -1 : hash_hex_digit_value(hex[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	if (hex[2 * len] != '\0')
		return -EINVAL;
	return 0;
}

void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX_LEN + 1])
{
	uint8_t digest[HASH_SHA256_LEN];
	hash_sha256(data, len, digest);
	hash_to_hex(digest, sizeof(digest), out);
}
