/* Where values come from: which names read data from outside the script
 * (argv, environ, stdin, files, sockets, HTTP), which keyword arguments
 * carry a call's data rather than its options, the origin of one argument,
 * truth values of constants, the stat module's mode bits, and the
 * bidirectional control characters that can reorder what a reader sees. */
#include <stdlib.h>
#include <string.h>

#include "pyanalyze_int.h"

const char *pya_origin_to_string(enum pya_origin o)
{
	switch (o) {
	case PYA_ORIGIN_NONE: return "none";
	case PYA_ORIGIN_LITERAL: return "literal";
	case PYA_ORIGIN_UNRESOLVED: return "unresolved";
	case PYA_ORIGIN_OUTSIDE: return "outside";
	}
	return "?";
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

/* The tables below are sorted (strcmp order) and searched by bisection:
 * they are asked about every call of every file. */
static int in_sorted(const char *const *list, size_t n, const char *s)
{
	return bsearch(s, list, n, sizeof(*list), cmp_name) != NULL;
}

int pya_ref_is_outside(const char *q)
{
	static const char *const refs[] = {
		"os.environ", "os.environb", "sys.argv", "sys.orig_argv", "sys.stdin",
		"sys.stdin.buffer",
	};
	if (!((q[0] == 's' && q[1] == 'y') || (q[0] == 'o' && q[1] == 's')))
		return 0;
	return in_sorted(refs, ARRAY_SIZE(refs), q);
}

int pya_reads_outside(const char *q)
{
	static const char *const calls[] = {
		"builtins.input", "builtins.open", "builtins.raw_input", "codecs.open",
		"fileinput.input", "getpass.getpass", "io.open", "json.load", "os.fdopen",
		"os.getenv", "os.getenvb", "os.read", "subprocess.check_output",
		"subprocess.getoutput", "subprocess.getstatusoutput", "urllib.urlopen",
		"urllib2.urlopen",
	};
	static const char *const prefixes[] = {
		"aiohttp.", "ftplib.", "http.client.", "httpx.", "pathlib.Path.read_", "requests.",
		"socket.", "sys.stdin.", "telnetlib.", "urllib.request.", "urllib3.",
	};
	/* Methods that read, whatever the object (a file, a socket, a
	 * response, a process's pipes). */
	static const char *const methods[] = {
		"accept", "communicate", "getresponse", "json", "read", "read_bytes", "read_text",
		"readall", "readline", "readlines", "recv", "recv_bytes", "recvfrom",
	};
	const char *dot = strrchr(q, '.');

	/* First letters of the methods (1) and of the names (2) below. */
	static const unsigned char first[256] = {
		['a'] = 3, ['b'] = 2, ['c'] = 3, ['f'] = 2, ['g'] = 3, ['h'] = 2, ['i'] = 2, ['j'] = 3,
		['o'] = 2, ['p'] = 2, ['r'] = 3, ['s'] = 2, ['t'] = 2, ['u'] = 2,
	};

	if (dot && (first[(unsigned char)dot[1]] & 1) &&
	    in_sorted(methods, ARRAY_SIZE(methods), dot + 1))
		return 1;
	if (!(first[(unsigned char)q[0]] & 2))
		return 0;
	if (in_sorted(calls, ARRAY_SIZE(calls), q))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (prefixes[i][0] == q[0] && strncmp(q, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

int pya_kwarg_is_option(const char *name)
{
	/* The keywords that name what a sink works on; every other keyword
	 * (shell=, stdout=, timeout=, Loader=...) only tunes how. */
	static const char *const payload[] = {
		"args", "cmd", "code", "command", "data", "executable", "expression", "file",
		"filename", "fp", "input", "name", "obj", "path", "s", "source", "stream", "string",
		"url",
	};
	return !in_sorted(payload, ARRAY_SIZE(payload), name);
}

enum pya_origin pya_val_origin(const struct pya_val *v)
{
	enum pya_origin o = PYA_ORIGIN_LITERAL;

	if (v->outside)
		return PYA_ORIGIN_OUTSIDE;
	switch (v->k) {
	case PYA_V_STR:
	case PYA_V_NUM:
	case PYA_V_STRMETH:
	case PYA_V_PATH:
		return PYA_ORIGIN_LITERAL;
	case PYA_V_REF:
		/* A module's member is resolved; what an unknown call returned
		 * ("f()") or a name nobody bound is not. */
		return v->guess || strchr(v->s, '(') ? PYA_ORIGIN_UNRESOLVED : PYA_ORIGIN_LITERAL;
	case PYA_V_LIST:
		for (size_t i = 0; i < v->n_items; i++) {
			enum pya_origin k = pya_val_origin(&v->items[i]);
			if (k > o)
				o = k;
		}
		return o;
	default:
		return PYA_ORIGIN_UNRESOLVED;
	}
}

long pya_stat_constant(const char *q)
{
	static const struct {
		const char *name;
		long bits;
	} modes[] = {
		{ "S_ISUID", 04000 }, { "S_ISGID", 02000 }, { "S_ISVTX", 01000 },
		{ "S_IRWXU", 0700 }, { "S_IRUSR", 0400 }, { "S_IWUSR", 0200 }, { "S_IXUSR", 0100 },
		{ "S_IRWXG", 070 }, { "S_IRGRP", 040 }, { "S_IWGRP", 020 }, { "S_IXGRP", 010 },
		{ "S_IRWXO", 07 }, { "S_IROTH", 04 }, { "S_IWOTH", 02 }, { "S_IXOTH", 01 },
		{ "S_IREAD", 0400 }, { "S_IWRITE", 0200 }, { "S_IEXEC", 0100 },
	};
	if (strncmp(q, "stat.S_", 7) != 0)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (strcmp(q + 5, modes[i].name) == 0)
			return modes[i].bits;
	return -1;
}

enum pya_truth pya_val_truth(const struct pya_val *v, const struct pytok *first, size_t ntok)
{
	if (ntok == 1 && first->kind == PYT_NAME) {
		if (pytok_is(first, PYT_NAME, "True"))
			return PYA_TRUTH_TRUE;
		if (pytok_is(first, PYT_NAME, "False") || pytok_is(first, PYT_NAME, "None"))
			return PYA_TRUTH_FALSE;
	}
	if (ntok == 2 && first->kind == PYT_OP && first->n == 1 && strchr("[({", first->s[0]))
		return PYA_TRUTH_FALSE; /* [], (), {} */
	if (v->k == PYA_V_NUM)
		return v->num ? PYA_TRUTH_TRUE : PYA_TRUTH_FALSE;
	if (v->k == PYA_V_STR)
		return v->s[0] ? PYA_TRUTH_TRUE : PYA_TRUTH_FALSE;
	if (v->k == PYA_V_LIST && v->n_items)
		return PYA_TRUTH_TRUE;
	if (ntok > 2 && first->kind == PYT_OP && first->n == 1 && strchr("[{", first->s[0]))
		return PYA_TRUTH_TRUE; /* a display with items */
	return PYA_TRUTH_UNKNOWN;
}

/* U+202A..U+202E (embeddings, overrides) and U+2066..U+2069 (isolates) in
 * UTF-8: E2 80 AA..AE and E2 81 A6..A9. */
static int is_bidi(const unsigned char *p, size_t left)
{
	if (left < 3 || p[0] != 0xE2)
		return 0;
	return (p[1] == 0x80 && p[2] >= 0xAA && p[2] <= 0xAE) ||
	       (p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9);
}

void pya_scan_bidi(struct pya_ctx *c, const char *buf, size_t len)
{
	const unsigned char *b = (const unsigned char *)buf, *p = b, *end = b + len;

	while ((p = memchr(p, 0xE2, (size_t)(end - p)))) {
		if (!is_bidi(p, (size_t)(end - p))) {
			p++;
			continue;
		}
		unsigned line = 1, col = 1;
		for (const unsigned char *q = b; q < p; q++) {
			if (*q == '\n') {
				line++;
				col = 1;
			} else if ((*q & 0xC0) != 0x80) {
				col++;
			}
		}
		struct pytok at = { .line = line, .col = col };
		struct pya_event ev = { .kind = PYA_SPECIAL, .name = "bidi-control" };
		pya_emit(c, &ev, &at);
		return;
	}
}
