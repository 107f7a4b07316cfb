#include "names.h"
#include "utf8.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "hash.h"

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);
	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* "x.tmp.1234": the temporary of fileio_write_atomic(). */
static bool is_atomic_temporary(const char *s)
{
	const char *p = strstr(s, ".tmp.");
	if (!p)
		return false;
	p += 5;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

bool names_is_utf8(const char *s)
{
	return utf8_is_valid(s, strlen(s));
}

enum names_kind names_classify(const char *name, enum names_reason *reason)
{
	enum names_reason dummy;
	size_t n = strlen(name);

	if (!reason)
		reason = &dummy;
	*reason = NAMES_REASON_NONE;

#define IGNORE(r) do { *reason = (r); return NAMES_IGNORED; } while (0)
	if (n == 0)
		IGNORE(NAMES_REASON_EMPTY);
	/* Emacs lock files start with ".#": more specific than hidden. */
	if (n > 2 && name[0] == '.' && name[1] == '#')
		IGNORE(NAMES_REASON_EMACS_LOCK);
	if (ends_with(name, n, ".swp") || ends_with(name, n, ".swo") ||
	    ends_with(name, n, ".swx"))
		IGNORE(NAMES_REASON_VIM_SWAP);
	if (name[0] == '.')
		IGNORE(NAMES_REASON_HIDDEN);
	if (strcmp(name, "4913") == 0)
		IGNORE(NAMES_REASON_VIM_PROBE);
	if (name[n - 1] == '~')
		IGNORE(NAMES_REASON_BACKUP);
	if (n > 1 && name[0] == '#' && name[n - 1] == '#')
		IGNORE(NAMES_REASON_EMACS_AUTOSAVE);
	if (ends_with(name, n, ".result.json") || ends_with(name, n, ".audit"))
		IGNORE(NAMES_REASON_SIDECAR);
	if (is_atomic_temporary(name))
		IGNORE(NAMES_REASON_TEMPORARY);
	if (ends_with(name, n, ".approve") && n > strlen(".approve"))
		return NAMES_APPROVE;
	if (ends_with(name, n, ".override") && n > strlen(".override"))
		return NAMES_OVERRIDE;
	if (ends_with(name, n, ".rerun") && n > strlen(".rerun"))
		return NAMES_RERUN;
	if (!ends_with(name, n, ".py") || n == 3)
		IGNORE(NAMES_REASON_NOT_PYTHON);
#undef IGNORE
	if (!names_is_utf8(name))
		return NAMES_BAD_NAME;
	return NAMES_SCRIPT;
}

const char *names_kind_to_string(enum names_kind k)
{
	switch (k) {
	case NAMES_SCRIPT: return "script";
	case NAMES_APPROVE: return "approve";
	case NAMES_OVERRIDE: return "override";
	case NAMES_RERUN: return "rerun";
	case NAMES_BAD_NAME: return "bad_name";
	case NAMES_IGNORED: return "ignored";
	}
	return "unknown";
}

const char *names_reason_to_string(enum names_reason r)
{
	switch (r) {
	case NAMES_REASON_NONE: return "not ignored";
	case NAMES_REASON_EMPTY: return "empty name";
	case NAMES_REASON_HIDDEN: return "hidden file";
	case NAMES_REASON_VIM_PROBE: return "vim write probe (4913)";
	case NAMES_REASON_VIM_SWAP: return "vim swap file";
	case NAMES_REASON_BACKUP: return "editor backup file (~)";
	case NAMES_REASON_EMACS_LOCK: return "emacs lock file (.#)";
	case NAMES_REASON_EMACS_AUTOSAVE: return "emacs auto-save file (#...#)";
	case NAMES_REASON_SIDECAR: return "the agent's own sidecar";
	case NAMES_REASON_TEMPORARY: return "temporary file of an atomic write";
	case NAMES_REASON_NOT_PYTHON: return "not a .py file";
	}
	return "unknown reason";
}

char *names_printable(const char *name)
{
	size_t n = strlen(name);
	char *out = xmalloc(4 * n + 1);
	char *o = out;
	const unsigned char *p = (const unsigned char *)name;

	while (*p) {
		/* Copy a valid multi-byte sequence whole; escape anything else. */
		if (*p >= 0x80) {
			int len = (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 :
				  (*p & 0xf8) == 0xf0 ? 4 : 0;
			char seq[5] = { 0 };
			int ok = len > 0;
			for (int i = 0; ok && i < len; i++) {
				if (!p[i] || (i > 0 && (p[i] & 0xc0) != 0x80))
					ok = 0;
				else
					seq[i] = (char)p[i];
			}
			if (ok && names_is_utf8(seq)) {
				memcpy(o, seq, (size_t)len);
				o += len;
				p += len;
				continue;
			}
			o += sprintf(o, "\\x%02x", *p++);
			continue;
		}
		switch (*p) {
		case '\n': *o++ = '\\'; *o++ = 'n'; break;
		case '\t': *o++ = '\\'; *o++ = 't'; break;
		case '\r': *o++ = '\\'; *o++ = 'r'; break;
		case '\\': *o++ = '\\'; *o++ = '\\'; break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				o += sprintf(o, "\\x%02x", *p);
			else
				*o++ = (char)*p;
		}
		p++;
	}
	*o = '\0';
	return out;
}

char *names_sidecar(const char *script, const char *suffix)
{
	size_t n = strlen(script);
	if (ends_with(script, n, ".py") && n > 3)
		n -= 3;
	return xasprintf("%.*s%s", (int)n, script, suffix);
}

char *names_script_for_answer(const char *name)
{
	static const char *const suffixes[] = { ".approve", ".override", ".rerun" };
	size_t n = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t m = strlen(suffixes[i]);
		if (n > m && ends_with(name, n, suffixes[i]))
			return xasprintf("%.*s.py", (int)(n - m), name);
	}
	return NULL;
}

#define LONGEST_SIDECAR ".result.json"

static size_t stem_len(const char *base)
{
	size_t n = strlen(base);
	return ends_with(base, n, ".py") && n > 3 ? n - 3 : n;
}

bool names_sidecar_fits(const char *script)
{
	const char *slash = strrchr(script, '/');
	const char *base = slash ? slash + 1 : script;
	return stem_len(base) + strlen(LONGEST_SIDECAR) <= NAME_MAX;
}

char *names_result_sidecar(const char *script, const char *suffix)
{
	if (names_sidecar_fits(script))
		return names_sidecar(script, suffix);
	const char *slash = strrchr(script, '/');
	const char *base = slash ? slash + 1 : script;
	const unsigned char *b = (const unsigned char *)base;
	char hex[HASH_SHA256_HEX_LEN + 1];
	size_t cut = NAMES_SHORT_PREFIX;

	/* Back off the continuation bytes of a character cut in two. */
	while (cut > 0 && (b[cut] & 0xc0) == 0x80)
		cut--;
	hash_sha256_hex(base, strlen(base), hex);
	return xasprintf("%.*s%.*s~%.16s%s", slash ? (int)(slash - script + 1) : 0, script,
			 (int)cut, base, hex, suffix);
}
