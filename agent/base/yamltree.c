#include "yamltree.h"

#include <stdarg.h>
#include <string.h>
#include <yaml.h>

#include "fileio.h"

struct yt_ctx {
	yaml_parser_t parser;
	const char *name;
	const char *buf;
	size_t len;
	char *err;
};

static void yt_fail(struct yt_ctx *ctx, unsigned line, unsigned col, const char *fmt, ...)
	_printf_(4, 5);

static void yt_fail(struct yt_ctx *ctx, unsigned line, unsigned col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (ctx->err)
		return; /* the first error is the one that counts */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctx->err = xasprintf("%s:%u:%u: %s", ctx->name, line, col, msg);
}

/* libyaml reader errors carry a byte offset, not a mark: count lines. */
static void yt_offset_to_position(const struct yt_ctx *ctx, size_t offset, unsigned *line,
				  unsigned *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && i < ctx->len; i++) {
		if (ctx->buf[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

static int yt_next(struct yt_ctx *ctx, yaml_event_t *ev)
{
	const yaml_parser_t *p = &ctx->parser;
	unsigned line, col;

	if (yaml_parser_parse(&ctx->parser, ev))
		return 0;
	if (p->error == YAML_READER_ERROR) {
		yt_offset_to_position(ctx, p->problem_offset, &line, &col);
		yt_fail(ctx, line, col, "malformed YAML: %s; expected UTF-8 text",
			p->problem ? p->problem : "unreadable input");
		return -EINVAL;
	}
	line = (unsigned)p->problem_mark.line + 1;
	col = (unsigned)p->problem_mark.column + 1;
	if (p->context)
		yt_fail(ctx, line, col,
			"malformed YAML: %s (%s at line %u); expected consistent indentation, "
			"'key: value' pairs and balanced quotes and brackets",
			p->problem ? p->problem : "syntax error", p->context,
			(unsigned)p->context_mark.line + 1);
	else
		yt_fail(ctx, line, col,
			"malformed YAML: %s; expected consistent indentation, 'key: value' "
			"pairs and balanced quotes and brackets",
			p->problem ? p->problem : "syntax error");
	return -EINVAL;
}

static struct yt_node *yt_node_new(enum yt_kind kind, const yaml_event_t *ev)
{
	struct yt_node *n = xcalloc(1, sizeof(*n));
	n->kind = kind;
	n->line = (unsigned)ev->start_mark.line + 1;
	n->col = (unsigned)ev->start_mark.column + 1;
	return n;
}

static void yt_node_append(struct yt_node *parent, struct yt_node *child)
{
	parent->items = xrealloc(parent->items, (parent->n_items + 1) * sizeof(*parent->items));
	parent->items[parent->n_items++] = child;
}

/* Anchors, tags and aliases would let a file mean something other than what
 * it shows (or explode in size): refuse them where they appear. */
static int yt_check_plain_node(struct yt_ctx *ctx, const yaml_event_t *ev,
			       const yaml_char_t *anchor, const yaml_char_t *tag, int implicit)
{
	unsigned line = (unsigned)ev->start_mark.line + 1;
	unsigned col = (unsigned)ev->start_mark.column + 1;

	if (anchor) {
		yt_fail(ctx, line, col, "anchor '&%s' is not supported; expected the value "
			"written out without '&'", (const char *)anchor);
		return -EINVAL;
	}
	if (tag && !implicit) {
		yt_fail(ctx, line, col, "tag '%s' is not supported; expected a value without "
			"a '!' tag", (const char *)tag);
		return -EINVAL;
	}
	return 0;
}

static int yt_parse_node(struct yt_ctx *ctx, yaml_event_t *ev, unsigned depth,
			 struct yt_node **out);

static int yt_parse_children(struct yt_ctx *ctx, struct yt_node *node, yaml_event_type_t end,
			     unsigned depth)
{
	for (;;) {
		yaml_event_t ev;
		struct yt_node *child = NULL;
		int r = yt_next(ctx, &ev);
		if (r < 0)
			return r;
		if (ev.type == end) {
			yaml_event_delete(&ev);
			return 0;
		}
		int is_key = node->kind == YT_MAPPING && node->n_items % 2 == 0;
		r = yt_parse_node(ctx, &ev, depth + 1, &child);
		yaml_event_delete(&ev);
		if (r < 0)
			return r;
		if (is_key && child->kind != YT_SCALAR) {
			yt_fail(ctx, child->line, child->col, "a mapping key is %s; expected a "
				"plain name before ':'", yt_kind_to_string(child->kind));
			yt_free(child);
			return -EINVAL;
		}
		if (is_key) {
			for (size_t i = 0; i < node->n_items; i += 2) {
				const struct yt_node *prev = node->items[i];
				if (strcmp(prev->value, child->value) != 0)
					continue;
				yt_fail(ctx, child->line, child->col,
					"duplicate key '%s' (first at line %u); expected each key "
					"once per mapping", child->value, prev->line);
				yt_free(child);
				return -EINVAL;
			}
		}
		yt_node_append(node, child);
	}
}

static int yt_parse_node(struct yt_ctx *ctx, yaml_event_t *ev, unsigned depth,
			 struct yt_node **out)
{
	struct yt_node *node;
	int r;

	if (depth > YT_MAX_DEPTH) {
		yt_fail(ctx, (unsigned)ev->start_mark.line + 1,
			(unsigned)ev->start_mark.column + 1,
			"nesting deeper than %d levels; expected a flatter document", YT_MAX_DEPTH);
		return -EINVAL;
	}
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		yt_fail(ctx, (unsigned)ev->start_mark.line + 1,
			(unsigned)ev->start_mark.column + 1,
			"alias '*%s' is not supported; expected the value written out in full",
			(const char *)ev->data.alias.anchor);
		return -EINVAL;
	case YAML_SCALAR_EVENT:
		r = yt_check_plain_node(ctx, ev, ev->data.scalar.anchor, ev->data.scalar.tag,
					ev->data.scalar.plain_implicit || ev->data.scalar.quoted_implicit);
		if (r < 0)
			return r;
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length)) {
			yt_fail(ctx, (unsigned)ev->start_mark.line + 1,
				(unsigned)ev->start_mark.column + 1,
				"value contains a NUL character; expected text without \\0");
			return -EINVAL;
		}
		node = yt_node_new(YT_SCALAR, ev);
		node->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		node->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
		*out = node;
		return 0;
	case YAML_SEQUENCE_START_EVENT:
		r = yt_check_plain_node(ctx, ev, ev->data.sequence_start.anchor,
					ev->data.sequence_start.tag, ev->data.sequence_start.implicit);
		if (r < 0)
			return r;
		node = yt_node_new(YT_SEQUENCE, ev);
		r = yt_parse_children(ctx, node, YAML_SEQUENCE_END_EVENT, depth);
		break;
	case YAML_MAPPING_START_EVENT:
		r = yt_check_plain_node(ctx, ev, ev->data.mapping_start.anchor,
					ev->data.mapping_start.tag, ev->data.mapping_start.implicit);
		if (r < 0)
			return r;
		node = yt_node_new(YT_MAPPING, ev);
		r = yt_parse_children(ctx, node, YAML_MAPPING_END_EVENT, depth);
		break;
	default:
		yt_fail(ctx, (unsigned)ev->start_mark.line + 1,
			(unsigned)ev->start_mark.column + 1,
			"unexpected YAML event; expected a value");
		return -EINVAL;
	}
	if (r < 0) {
		yt_free(node);
		return r;
	}
	*out = node;
	return 0;
}

/* Expects the next event to be of one type; anything else is an error at its
 * position with the given explanation. */
static int yt_expect(struct yt_ctx *ctx, yaml_event_type_t type, const char *what)
{
	yaml_event_t ev;
	int r = yt_next(ctx, &ev);
	if (r < 0)
		return r;
	if (ev.type != type) {
		yt_fail(ctx, (unsigned)ev.start_mark.line + 1, (unsigned)ev.start_mark.column + 1,
			"%s", what);
		r = -EINVAL;
	}
	yaml_event_delete(&ev);
	return r;
}

static int yt_parse_stream(struct yt_ctx *ctx, struct yt_node **root)
{
	yaml_event_t ev;
	int r;

	r = yt_expect(ctx, YAML_STREAM_START_EVENT, "malformed YAML; expected a YAML stream");
	if (r < 0)
		return r;
	r = yt_next(ctx, &ev);
	if (r < 0)
		return r;
	if (ev.type == YAML_STREAM_END_EVENT) {
		yaml_event_delete(&ev);
		*root = NULL;
		return 0;
	}
	yaml_event_delete(&ev); /* DOCUMENT_START: the parser allows nothing else here */

	r = yt_next(ctx, &ev);
	if (r < 0)
		return r;
	r = yt_parse_node(ctx, &ev, 0, root);
	yaml_event_delete(&ev);
	if (r < 0)
		return r;
	r = yt_expect(ctx, YAML_DOCUMENT_END_EVENT, "malformed YAML; expected the end of the "
		      "document");
	if (r == 0)
		r = yt_expect(ctx, YAML_STREAM_END_EVENT, "a second YAML document starts here; "
			      "expected one document per file (remove the '---' line)");
	if (r < 0) {
		yt_free(*root);
		*root = NULL;
	}
	return r;
}

int yt_parse_buffer(const char *name, const char *buf, size_t len, struct yt_node **root,
		    char **err)
{
	struct yt_ctx ctx = { .name = name, .buf = buf, .len = len };
	struct yt_node *tree = NULL;
	int r;

	if (!yaml_parser_initialize(&ctx.parser)) {
		*err = xasprintf("%s: cannot initialise the YAML parser; expected enough memory",
				 name);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&ctx.parser, (const unsigned char *)buf, len);
	yaml_parser_set_encoding(&ctx.parser, YAML_UTF8_ENCODING);
	r = yt_parse_stream(&ctx, &tree);
	yaml_parser_delete(&ctx.parser);
	if (r < 0) {
		if (!ctx.err)
			ctx.err = xasprintf("%s: malformed YAML; expected one YAML document", name);
		*err = ctx.err;
		return r;
	}
	*root = tree;
	return 0;
}

int yt_parse_file(const char *path, struct yt_node **root, char **err)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	int r = fileio_read_path(path, YT_MAX_FILE_SIZE, &buf, &len);

	if (r == -EFBIG) {
		*err = xasprintf("%s: file is larger than %u bytes; expected a small YAML file",
				 path, YT_MAX_FILE_SIZE);
		return r;
	}
	if (r < 0) {
		*err = xasprintf("%s: cannot read: %s; expected a readable YAML file", path,
				 strerror(-r));
		return r;
	}
	return yt_parse_buffer(path, buf, len, root, err);
}

const struct yt_node *yt_map_get(const struct yt_node *map, const char *key)
{
	if (!map || map->kind != YT_MAPPING)
		return NULL;
	for (size_t i = 0; i + 1 < map->n_items; i += 2)
		if (strcmp(map->items[i]->value, key) == 0)
			return map->items[i + 1];
	return NULL;
}

const char *yt_kind_to_string(enum yt_kind kind)
{
	switch (kind) {
	case YT_SCALAR:
		return "a scalar";
	case YT_MAPPING:
		return "a mapping";
	case YT_SEQUENCE:
		return "a list";
	}
	return "an unknown node";
}

void yt_free(struct yt_node *root)
{
	if (!root)
		return;
	for (size_t i = 0; i < root->n_items; i++)
		yt_free(root->items[i]);
	free(root->items);
	free(root->value);
	free(root);
}
