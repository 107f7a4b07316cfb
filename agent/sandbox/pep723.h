/* PEP 723 inline script metadata: locating the "# /// script" block of a
 * script. Only the block's lines are found here; the TOML inside is parsed
 * by a real TOML parser (Python's tomllib, in a sandbox container:
 * sandbox_parse_toml), never by pattern matching in C. */
#ifndef MAI_PEP723_H
#define MAI_PEP723_H

#include <jansson.h>
#include <stddef.h>

/* Finds the block of type "script": a line "# /// script", then comment
 * lines ("#" alone or "# " and text), closed by the last line "# ///" of
 * that run of comment lines. *toml (caller frees) is the content with each
 * line's "# " or "#" taken off; *line the 1-based line of the opening.
 * -ENOENT when there is none; -EINVAL with *err (caller frees) when it is
 * malformed (no closing line, or more than one script block). */
int pep723_locate(const char *src, size_t len, char **toml, size_t *line, char **err);

/* The "dependencies" of the parsed table (may be absent: *n = 0): an array
 * of PEP 508 requirement strings, each checked to be one that pip cannot
 * take for an option (starts with a letter or digit, no control
 * characters). *deps is NULL-terminated (free with pep723_strv_free).
 * -EINVAL with *err (caller frees) otherwise. */
int pep723_dependencies(json_t *table, char ***deps, size_t *n, char **err);
void pep723_strv_free(char **v);

#define PEP723_MAX_DEPENDENCIES 64
#define PEP723_MAX_REQUIREMENT 256

#endif
