/* Path table of the maiaudit view. See view_tree.h. */
#include "view_tree.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct view_fixed {
	const char *name;
	enum view_node node;
};

/* The fixed names at the root; entries/ and runs/ hold generated names. */
static const struct view_fixed root_table[] = {
	{ "verify", VIEW_NODE_VERIFY },
	{ "verify.json", VIEW_NODE_VERIFY_JSON },
	{ "head", VIEW_NODE_HEAD },
	{ "checkpoint", VIEW_NODE_CHECKPOINT },
	{ "pubkey", VIEW_NODE_PUBKEY },
	{ "status.json", VIEW_NODE_STATUS },
	{ "metrics", VIEW_NODE_METRICS },
	{ "entries", VIEW_NODE_ENTRIES_DIR },
	{ "runs", VIEW_NODE_RUNS_DIR },
};

const char *const view_root_names[] = {
	"verify", "verify.json", "head", "checkpoint", "pubkey", "status.json", "metrics",
	"entries", "runs", NULL,
};

const char *view_node_to_string(enum view_node node)
{
	switch (node) {
	case VIEW_NODE_ROOT: return "root";
	case VIEW_NODE_VERIFY: return "verify";
	case VIEW_NODE_VERIFY_JSON: return "verify.json";
	case VIEW_NODE_HEAD: return "head";
	case VIEW_NODE_CHECKPOINT: return "checkpoint";
	case VIEW_NODE_PUBKEY: return "pubkey";
	case VIEW_NODE_STATUS: return "status.json";
	case VIEW_NODE_METRICS: return "metrics";
	case VIEW_NODE_ENTRIES_DIR: return "entries";
	case VIEW_NODE_ENTRY: return "entry";
	case VIEW_NODE_RUNS_DIR: return "runs";
	case VIEW_NODE_RUN_DIR: return "run";
	case VIEW_NODE_RUN_RESULT: return "result.json";
	case VIEW_NODE_RUN_AUDIT: return "audit";
	}
	return "unknown";
}

bool view_node_is_dir(enum view_node node)
{
	return node == VIEW_NODE_ROOT || node == VIEW_NODE_ENTRIES_DIR ||
	       node == VIEW_NODE_RUNS_DIR || node == VIEW_NODE_RUN_DIR;
}

void view_entry_name(uint64_t seq, char *buf)
{
	snprintf(buf, VIEW_ENTRY_NAME_SIZE, "%012llu.json", (unsigned long long)seq);
}

/* Exactly VIEW_ENTRY_DIGITS digits then ".json": one canonical name per
 * record, so that 42.json or 0000000000042.json do not alias it. */
static int parse_entry_name(const char *s, size_t len, uint64_t *seq)
{
	if (len != VIEW_ENTRY_DIGITS + 5 || memcmp(s + VIEW_ENTRY_DIGITS, ".json", 5) != 0)
		return -ENOENT;
	uint64_t v = 0;
	for (size_t i = 0; i < VIEW_ENTRY_DIGITS; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -ENOENT;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*seq = v;
	return 0;
}

/* Length of one UTF-8 sequence starting at s (at most n bytes), or 0 when it
 * is malformed, overlong or a surrogate. */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	if (s[0] < 0x80)
		return 1;
	size_t len;
	unsigned cp;
	if ((s[0] & 0xe0) == 0xc0) { len = 2; cp = s[0] & 0x1f; }
	else if ((s[0] & 0xf0) == 0xe0) { len = 3; cp = s[0] & 0x0f; }
	else if ((s[0] & 0xf8) == 0xf0) { len = 4; cp = s[0] & 0x07; }
	else return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	static const unsigned min_cp[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < min_cp[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool view_run_name_valid(const char *name, size_t len)
{
	if (len == 0 || len > VIEW_RUN_NAME_MAX || name[0] == '.')
		return false;
	const unsigned char *s = (const unsigned char *)name;
	for (size_t i = 0; i < len;) {
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '/')
			return false;
		size_t n = utf8_seq_len(s + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* Splits off the next component of p (after any '/'): sets *comp and *len,
 * returns the rest. */
static const char *next_component(const char *p, const char **comp, size_t *len)
{
	while (*p == '/')
		p++;
	const char *end = strchr(p, '/');
	if (!end)
		end = p + strlen(p);
	*comp = p;
	*len = (size_t)(end - p);
	return end;
}

static bool comp_is(const char *comp, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(comp, name, len) == 0;
}

int view_path_parse(const char *path, struct view_path *out)
{
	const char *c1, *c2, *c3, *c4;
	size_t l1, l2, l3, l4;

	memset(out, 0, sizeof(*out));
	if (!path || path[0] != '/')
		return -ENOENT;
	const char *rest = next_component(path, &c1, &l1);
	if (l1 == 0) {
		out->node = VIEW_NODE_ROOT;
		return 0;
	}
	rest = next_component(rest, &c2, &l2);
	rest = next_component(rest, &c3, &l3);
	rest = next_component(rest, &c4, &l4);
	if (l4 != 0)
		return -ENOENT;

	const struct view_fixed *top = NULL;
	for (size_t i = 0; i < sizeof(root_table) / sizeof(root_table[0]); i++) {
		if (comp_is(c1, l1, root_table[i].name)) {
			top = &root_table[i];
			break;
		}
	}
	if (!top)
		return -ENOENT;

	if (l2 == 0) {
		out->node = top->node;
		return 0;
	}
	if (top->node == VIEW_NODE_ENTRIES_DIR && l3 == 0) {
		if (parse_entry_name(c2, l2, &out->seq) < 0)
			return -ENOENT;
		out->node = VIEW_NODE_ENTRY;
		return 0;
	}
	if (top->node != VIEW_NODE_RUNS_DIR || !view_run_name_valid(c2, l2))
		return -ENOENT;
	out->run_name = c2;
	out->run_name_len = l2;
	if (l3 == 0)
		out->node = VIEW_NODE_RUN_DIR;
	else if (comp_is(c3, l3, "result.json"))
		out->node = VIEW_NODE_RUN_RESULT;
	else if (comp_is(c3, l3, "audit"))
		out->node = VIEW_NODE_RUN_AUDIT;
	else
		return -ENOENT;
	return 0;
}
