/* Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing above
 * U+10FFFF. For names (drop directory), key names and signed-note text. */
#ifndef MAI_UTF8_H
#define MAI_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the code point at s (n bytes available): its length (1 to 4) with
 * *cp set, or -1 when the bytes there are not valid UTF-8. */
int utf8_decode(const char *s, size_t n, uint32_t *cp);
/* True when all n bytes are valid UTF-8. */
bool utf8_is_valid(const char *s, size_t n);
/* Unicode's White_Space property (Go's unicode.IsSpace): what a C2SP key
 * name must not contain. */
bool utf8_is_space(uint32_t cp);

#endif
