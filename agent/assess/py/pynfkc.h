/* NFKC normalization of Python identifiers (PEP 3131), from a table generated
 * by tools/gen_nfkc_table.py out of Python's unicodedata. */
#ifndef MAI_PYNFKC_H
#define MAI_PYNFKC_H

#include <stddef.h>
#include <stdint.h>

struct pynfkc_entry {
	uint32_t cp;
	const char *utf8; /* NFKC of cp, UTF-8 */
};

extern const struct pynfkc_entry pynfkc_table[];
extern const size_t pynfkc_table_len;
extern const char pynfkc_unicode_version[];

/* The NFKC mapping of one identifier code point, or NULL when NFKC leaves it
 * as it is. Normalization is per code point: composition across code points
 * (a base letter followed by a combining mark) is not applied, which cannot
 * turn a name into an ASCII one. */
const char *pynfkc_lookup(uint32_t cp);

#endif
