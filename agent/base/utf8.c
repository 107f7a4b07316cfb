#include "utf8.h"

int utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t c;
	int more;

	if (n == 0)
		return -1;
	if (p[0] < 0x80) {
		*cp = p[0];
		return 1;
	} else if ((p[0] & 0xe0) == 0xc0) {
		c = p[0] & 0x1f;
		more = 1;
	} else if ((p[0] & 0xf0) == 0xe0) {
		c = p[0] & 0x0f;
		more = 2;
	} else if ((p[0] & 0xf8) == 0xf0) {
		c = p[0] & 0x07;
		more = 3;
	} else {
		return -1;
	}
	if ((size_t)more >= n)
		return -1;
	for (int i = 1; i <= more; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		c = (c << 6) | (p[i] & 0x3f);
	}
	if ((more == 1 && c < 0x80) || (more == 2 && c < 0x800) || (more == 3 && c < 0x10000) ||
	    c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return -1;
	*cp = c;
	return more + 1;
}

bool utf8_is_valid(const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0; i < n;) {
		int k = utf8_decode(s + i, n - i, &cp);
		if (k < 0)
			return false;
		i += (size_t)k;
	}
	return true;
}

bool utf8_is_space(uint32_t cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || cp == 0x20 || cp == 0x85 || cp == 0xa0 ||
	       cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0x202f || cp == 0x205f || cp == 0x3000;
}
