/* Build-time generator: loads agent/assess/assess_rules.yaml with the same
 * loader as security.yaml (assess_rules_yaml.c), so that a mistake in the
 * built-in file fails the build with its line and column, and writes the
 * loaded rule set as C data (struct assess_rules assess_builtin_rules).
 * The YAML stays the one source; the program copies the tables at start
 * instead of parsing 40 KB of YAML (assess_rules_builtin.c).
 *
 * Usage: assess_rules_gen assess_rules.yaml OUTPUT.c */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "assess_rules.h"

/* A C string literal; bytes other than printable ASCII as octal escapes
 * (three digits, so that a following digit is not taken into them). */
static void put_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("NULL", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p >= 0x20 && *p < 0x7f && *p != '?') /* '?': no trigraphs */
			fputc(*p, f);
		else
			fprintf(f, "\\%03o", *p);
	}
	fputc('"', f);
}

static void put_rule(FILE *f, size_t i, const struct assess_rule *r)
{
	fprintf(f, "\t{ /* line %u */\n\t\t.id = ", r->line);
	put_str(f, r->id);
	fputs(", .bandit_id = ", f);
	put_str(f, r->bandit_id);
	fputs(",\n\t\t.message = ", f);
	put_str(f, r->message);
	fputs(",\n\t\t.kwarg = ", f);
	put_str(f, r->kwarg);
	fprintf(f, ",\n\t\t.severity = %d, .confidence = %d, .cwe = %u, .block = %d, "
		   ".enabled = %d,\n\t\t.weight = %.17g, .origin_weight = { %.17g, %.17g, %.17g, %.17g },\n",
		(int)r->severity, (int)r->confidence, r->cwe, r->block, r->enabled, r->weight,
		r->origin_weight[0], r->origin_weight[1], r->origin_weight[2], r->origin_weight[3]);
	for (size_t k = 0; k < ASSESS_STRV_KEYS; k++)
		if (assess_rule_strv(r, k)->n)
			fprintf(f, "\t\t.%s = { rule%zu_%s, %zu },\n", assess_strv_keys[k].key, i,
				assess_strv_keys[k].key, assess_rule_strv(r, k)->n);
	fprintf(f, "\t\t.dynamic = %d, .in_loop = %d, .write_mode = %d, .path = %d, "
		   ".partial_path = %d,\n\t\t.taint = %uu, .decoded = %d, .contained = %d, "
		   ".line = %u, .col = %u,\n\t},\n",
		r->dynamic, r->in_loop, r->write_mode, r->path, r->partial_path, r->taint, r->decoded,
		(int)r->contained, r->line, r->col);
}

static int write_c(FILE *f, const char *src, const struct assess_rules *rules)
{
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;

	fprintf(f, "/* Generated from %s by assess_rules_gen at build time: the built-in\n"
		   " * rules as loaded by assess_rules_yaml.c. Do not edit. */\n"
		   "#include <stddef.h>\n\n#include \"assess_rules.h\"\n\n", base);
	for (size_t i = 0; i < rules->n; i++)
		for (size_t k = 0; k < ASSESS_STRV_KEYS; k++) {
			const struct assess_strv *s = assess_rule_strv(&rules->r[i], k);
			if (!s->n)
				continue;
			fprintf(f, "static char *rule%zu_%s[] = {", i, assess_strv_keys[k].key);
			for (size_t j = 0; j < s->n; j++) {
				fputs(j ? ", " : " ", f);
				put_str(f, s->v[j]);
			}
			fputs(" };\n", f);
		}
	fputs("\nstatic struct assess_rule rule[] = {\n", f);
	for (size_t i = 0; i < rules->n; i++)
		put_rule(f, i, &rules->r[i]);
	fputs("};\n\nstatic struct assess_bandit_check bandit[] = {\n", f);
	for (size_t i = 0; i < rules->n_bandit; i++) {
		const struct assess_bandit_check *c = &rules->bandit[i];
		fputs("\t{ .id = ", f);
		put_str(f, c->id);
		fprintf(f, ", .judged = %d, .contained = %d, .why = ", (int)c->judged,
			(int)c->contained);
		put_str(f, c->why);
		fputs(" },\n", f);
	}
	fprintf(f, "};\n\nconst struct assess_rules assess_builtin_rules = {\n"
		   "\t.r = rule, .n = %zu,\n"
		   "\t.medium = %.17g, .high = %.17g, .blocked = %.17g,\n"
		   "\t.origin_weight = { %.17g, %.17g, %.17g, %.17g },\n"
		   "\t.bandit = bandit, .n_bandit = %zu,\n};\n",
		rules->n, rules->medium, rules->high, rules->blocked, rules->origin_weight[0],
		rules->origin_weight[1], rules->origin_weight[2], rules->origin_weight[3],
		rules->n_bandit);
	return ferror(f) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	struct assess_rules *rules;
	char *err = NULL;
	FILE *f;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s assess_rules.yaml OUTPUT.c\n", argv[0]);
		return 2;
	}
	rules = assess_rules_new();
	if (assess_rules_apply_yaml(rules, argv[1], true, &err) < 0) {
		fprintf(stderr, "%s\n", err);
		free(err);
		assess_rules_free(rules);
		return 1;
	}
	/* An empty list would be a zero-length array: there is always one. */
	if (!rules->n || !rules->n_bandit) {
		fprintf(stderr, "%s: no rules or no bandit_checks\n", argv[1]);
		assess_rules_free(rules);
		return 1;
	}
	f = fopen(argv[2], "w");
	if (!f) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		assess_rules_free(rules);
		return 1;
	}
	rc = write_c(f, argv[1], rules);
	if (fclose(f) != 0 || rc < 0) {
		fprintf(stderr, "%s: write error\n", argv[2]);
		remove(argv[2]);
		rc = -EIO;
	}
	assess_rules_free(rules);
	return rc < 0 ? 1 : 0;
}
