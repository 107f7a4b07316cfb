/* SHA-256 through OpenSSL EVP, and hex encoding. */
#ifndef MAI_HASH_H
#define MAI_HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_SHA256_LEN 32
#define HASH_SHA256_HEX_LEN 64

void hash_sha256(const void *data, size_t len, uint8_t out[HASH_SHA256_LEN]);
/* out must hold 2*len+1 bytes; lower-case hex, NUL terminated. */
void hash_to_hex(const uint8_t *in, size_t len, char *out);
/* Parses exactly 2*len hex digits. 0 or -EINVAL. */
int hash_from_hex(const char *hex, uint8_t *out, size_t len);
/* 0-15 for a hex digit of either case, else -1. */
int hash_hex_digit_value(char c);
void hash_sha256_hex(const void *data, size_t len, char out[HASH_SHA256_HEX_LEN + 1]);

#endif
