/* Calls: their arguments (constants folded, origins, keywords and their
 * truth), the event each call is reported as, and what a call returns:
 * decoded data, a module from __import__, a name from getattr, a folded
 * string (chr, str, bytes, "".join, str.format), a pathlib.Path, or an
 * instance named after the callee ("tarfile.open()"). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "pyanalyze_int.h"

/* A cipher's decrypt method, of whatever library ("X.new().decrypt",
 * "Fernet().decrypt", a method of an unnamed object), and the unpadding
 * after it: what it returns was unreadable in the file, as a base64 text is. */
static int is_decryption(const char *method, size_t n)
{
	return (n == 7 && !memcmp(method, "decrypt", 7)) ||
	       (n == 18 && !memcmp(method, "decrypt_and_verify", 18)) ||
	       (n == 5 && !memcmp(method, "unpad", 5));
}

static int is_decoder(const char *q)
{
	static const char *const names[] = {
		"base64.", "binascii.a2b", "binascii.unhexlify", "zlib.decompress",
		"codecs.decode", "builtins.bytes.fromhex", "builtins.bytearray.fromhex", "marshal.loads",
		"lzma.decompress", "bz2.decompress", "gzip.decompress", "codecs.encode",
	};
	const char *last = strrchr(q, '.');
	if (last && last[1] && strchr("du", last[1]) && is_decryption(last + 1, strlen(last + 1)))
		return 1;
	if (!strchr("bzcmlg", q[0]))
		return 0; /* the first letters of the names below: most calls stop here */
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i][0] == q[0] && strncmp(q, names[i], strlen(names[i])) == 0)
			return strcmp(q, "base64.b64encode") != 0;
	return 0;
}

static int is_exec(const char *q)
{
	return strcmp(q, "builtins.exec") == 0 || strcmp(q, "builtins.eval") == 0 ||
	       strcmp(q, "builtins.compile") == 0;
}

int pya_items_decoded(const struct pya_val *v)
{
	for (size_t i = 0; i < v->n_items; i++)
		if (pya_val_decoded(&v->items[i]))
			return 1;
	return 0;
}

#define MAX_ARGS 4
#define MAX_KWARGS 8

struct call_args {
	struct pya_val pos[MAX_ARGS];
	int n_pos;
	struct pya_kwarg kw[MAX_KWARGS];
	char *kw_store[MAX_KWARGS * 2];
	size_t n_kw;
	int decoded;
	unsigned taint;           /* enum pya_taint of every argument, payload or not */
	enum pya_origin origin;   /* of the payload arguments */
	long mode_bits;           /* mode= as a number */
	int mode_known;
	char *list_text;          /* a list's constant items joined with spaces (fill_call_event) */
};

static void args_clear(struct call_args *a)
{
	for (int i = 0; i < MAX_ARGS; i++)
		pya_val_clear(&a->pos[i]);
	for (size_t i = 0; i < a->n_kw * 2; i++)
		free(a->kw_store[i]);
	free(a->list_text);
}

static char *val_text(const struct pya_val *v)
{
	if (v->k == PYA_V_STR)
		return xstrdup(v->s);
	if (v->k == PYA_V_NUM)
		return xasprintf("%ld", v->num);
	return NULL;
}

/* builtins, __builtins__, vars(builtins), builtins.__dict__: the namespace
 * of the builtins (not globals(), not another object's __dict__). */
int pya_is_builtins_ns(const struct pya_val *v)
{
	return (v->k == PYA_V_REF || (v->k == PYA_V_GLOBALS && !v->ns_module)) &&
	       !strcmp(v->s, "builtins");
}

/* A name computed at run time picks an attribute or a builtin; when the
 * name itself was decoded (base64, zlib...) the code hides what it runs. */
void pya_computed_name(struct pya_ctx *c, const char *special, const struct pya_val *name,
			  const struct pytok *at)
{
	struct pya_event d = { .kind = PYA_SPECIAL, .name = special, .dynamic = 1 };
	pya_emit(c, &d, at);
	if (pya_val_decoded(name)) {
		struct pya_event x = { .kind = PYA_SPECIAL, .name = "decode-exec", .dynamic = 1 };
		pya_emit(c, &x, at);
	}
}

/* exec, eval and compile handed to another function (map, partial,
 * run_in_executor) run what that function passes them: reported as a
 * hidden call of their own. */
static void exec_as_value(struct pya_ctx *c, const struct pya_val *v, const struct pytok *at)
{
	if (v->k != PYA_V_REF || !is_exec(v->s))
		return;
	struct pya_event ev = { .kind = PYA_CALL, .name = v->s, .dynamic = 1,
				.origin = PYA_ORIGIN_UNRESOLVED };
	pya_emit(c, &ev, at);
}

/* Parses "(...)" arguments; *i is at the '('. */
static void parse_args(struct pya_ctx *c, size_t *i, struct call_args *a)
{
	a->origin = PYA_ORIGIN_LITERAL;
	(*i)++;
	while (*i < c->n && !c->bail && !pya_tok_is(c, *i, PYT_OP, ")")) {
		size_t before = *i;
		struct pya_val v = { 0 };
		const struct pytok *kwname = NULL;
		if (c->t[*i].kind == PYT_NAME && pya_tok_is(c, *i + 1, PYT_OP, "=")) {
			kwname = &c->t[*i];
			*i += 2;
		} else if (pya_tok_is(c, *i, PYT_OP, "*") || pya_tok_is(c, *i, PYT_OP, "**")) {
			(*i)++;
		}
		size_t vstart = *i;
		pya_expr(c, i, &v);
		if (pya_val_decoded(&v))
			a->decoded = 1;
		if (*i > vstart)
			exec_as_value(c, &v, &c->t[vstart]);
		a->taint |= v.taint;
		if (kwname && a->n_kw < MAX_KWARGS) {
			char *name = xstrndup(kwname->s, kwname->n);
			char *value = val_text(&v);
			const struct pytok *vt = &c->t[vstart];
			if (!value && v.k == PYA_V_REF)
				value = xstrdup(strncmp(v.s, "builtins.", 9) == 0 ? v.s + 9 : v.s);
			else if (!value && *i == vstart + 1 && vt->kind == PYT_NAME &&
				 (pytok_is(vt, PYT_NAME, "True") || pytok_is(vt, PYT_NAME, "False") ||
				  pytok_is(vt, PYT_NAME, "None")))
				value = xstrndup(vt->s, vt->n);
			a->kw_store[a->n_kw * 2] = name;
			a->kw_store[a->n_kw * 2 + 1] = value;
			a->kw[a->n_kw].name = name;
			a->kw[a->n_kw].value = value;
			a->kw[a->n_kw].truth = *i > vstart ? pya_val_truth(&v, vt, *i - vstart)
							   : PYA_TRUTH_UNKNOWN;
			if (!strcmp(name, "mode") && v.k == PYA_V_NUM) {
				a->mode_bits = v.num;
				a->mode_known = 1;
			}
			a->n_kw++;
		}
		enum pya_origin o = PYA_ORIGIN_NONE;
		if (kwname) {
			char k[24];
			size_t kn = kwname->n < sizeof(k) - 1 ? kwname->n : sizeof(k) - 1;
			memcpy(k, kwname->s, kn);
			k[kn] = '\0';
			if (!pya_kwarg_is_option(k))
				o = pya_val_origin(&v);
		} else {
			o = pya_val_origin(&v);
		}
		if (o > a->origin)
			a->origin = o;
		if (!kwname && a->n_pos < MAX_ARGS) {
			a->pos[a->n_pos++] = v;
			memset(&v, 0, sizeof(v));
		} else if (!kwname) {
			a->n_pos++;
		}
		pya_val_clear(&v);
		/* A generator's targets ("for c in") are names, not an argument:
		 * what follows "in" is the one that counts. */
		if (pya_tok_is(c, *i, PYT_NAME, "for")) {
			size_t k = *i + 1;
			while (k < c->n && c->t[k].kind == PYT_NAME && !pya_tok_is(c, k, PYT_NAME, "in"))
				k += pya_tok_is(c, k + 1, PYT_OP, ",") ? 2 : 1;
			if (pya_tok_is(c, k, PYT_NAME, "in")) {
				*i = k + 1;
				continue;
			}
		}
		/* Separators and comprehension keywords between argument parts. */
		if (*i < c->n && (pya_tok_is(c, *i, PYT_OP, ",") || pya_tok_is(c, *i, PYT_NAME, "for") ||
				  pya_tok_is(c, *i, PYT_NAME, "in") || pya_tok_is(c, *i, PYT_NAME, "if") ||
				  pya_tok_is(c, *i, PYT_NAME, "async")))
			(*i)++;
		else if (*i == before)
			(*i)++;
	}
	if (*i < c->n && !c->bail)
		(*i)++;
}

/* The event of a call with these arguments; name and position are the
 * caller's. arg0 is the first positional argument (a Path's own path for
 * its methods, then the call's arguments follow). */
static void fill_call_event(struct pya_event *ev, struct call_args *a,
			    const struct pya_val *arg0, const struct pya_val *arg1)
{
	ev->kind = PYA_CALL;
	ev->decoded_arg = a->decoded;
	ev->n_args = a->n_pos;
	ev->kwargs = a->kw;
	ev->n_kwargs = a->n_kw;
	ev->origin = a->origin;
	ev->taint = a->taint;
	if (arg0 && arg0->k == PYA_V_STR)
		ev->arg0 = arg0->s;
	if (arg0 && arg0->k == PYA_V_REF)
		ev->arg0_ref = arg0->s;
	ev->arg0_first = ev->arg0;
	if (arg0 && arg0->k == PYA_V_LIST && arg0->n_items && arg0->items[0].k == PYA_V_STR)
		ev->arg0_first = arg0->items[0].s;
	/* A process's list of arguments: its constant items as one command
	 * line ([sys.executable, "-m", "pip", "install", URL] reads "-m pip
	 * install URL"), so that rules on a command's text see it too. */
	if (arg0 && arg0->k == PYA_V_LIST && arg0->n_items > 1 && arg0->n_items <= 64 &&
	    !a->list_text) {
		size_t n = 1;
		for (size_t k = 0; k < arg0->n_items; k++)
			n += arg0->items[k].k == PYA_V_STR ? strlen(arg0->items[k].s) + 1 : 0;
		char *t = xmalloc(n), *o = t;
		*o = '\0';
		for (size_t k = 0; k < arg0->n_items; k++)
			if (arg0->items[k].k == PYA_V_STR)
				o += sprintf(o, "%s%s", o > t ? " " : "", arg0->items[k].s);
		a->list_text = t;
	}
	if (!ev->arg0 && a->list_text && a->list_text[0])
		ev->arg0 = a->list_text;
	if (arg1 && arg1->k == PYA_V_STR)
		ev->mode = arg1->s;
	if (arg1 && arg1->k == PYA_V_NUM) {
		ev->mode_bits = arg1->num;
		ev->mode_known = 1;
	}
	if (a->mode_known) {
		ev->mode_bits = a->mode_bits;
		ev->mode_known = 1;
	}
	for (size_t k = 0; k < a->n_kw; k++)
		if (strcmp(a->kw[k].name, "mode") == 0)
			ev->mode = a->kw[k].value;
}

/* A chmod method of an object (Path(p).chmod(mode), x.chmod(mode)) takes
 * the mode first, where os.chmod(path, mode) takes it second. */
static void method_mode(struct pya_event *ev, const struct pya_val *a0)
{
	size_t n = strlen(ev->name);

	if (n < 6 || strcmp(ev->name + n - 5, "chmod") != 0 || !a0 || a0->k != PYA_V_NUM)
		return;
	if (ev->name[0] == '.' || strstr(ev->name, ").")) {
		ev->mode_bits = a0->num;
		ev->mode_known = 1;
	}
}

/* What a call that nothing else explains returns: an instance named after
 * its callee ("tarfile.open()"), so that its methods are reported by
 * name; outside data when the call reads it or is given it. */
static void call_result(struct pya_val *r, struct pya_val *f, unsigned outside)
{
	size_t n = strlen(f->s);

	outside |= pya_reads_outside(f->s);
	if (r->k == PYA_V_UNKNOWN && n < 200 &&
	    (f->s[0] != 'b' || strncmp(f->s, "builtins.", 9) != 0 ||
	     !strcmp(f->s, "builtins.open"))) {
		/* The callee's name is not needed any more: it becomes the
		 * instance's, without a copy. */
		char *s = xrealloc(f->s, n + 3);
		f->s = NULL;
		memcpy(s + n, "()", 3);
		pya_set_ref(r, s, 0);
	}
	r->taint |= outside;
}

/* os.path.join, expanduser, abspath... of constants: the constant path,
 * so that the rules see where a file goes ("~/.bashrc", "/etc/cron.d/x").
 * 1 when r holds it. */
static int fold_path(const char *q, const struct call_args *a, struct pya_val *r)
{
	if (strncmp(q, "os.path.", 8) != 0 || a->n_pos < 1 || a->n_pos > MAX_ARGS)
		return 0;
	for (int k = 0; k < a->n_pos; k++)
		if (a->pos[k].k != PYA_V_STR)
			return 0;
	const char *fn = q + 8;
	if (!strcmp(fn, "join")) {
		size_t n = 1;
		for (int k = 0; k < a->n_pos; k++)
			n += strlen(a->pos[k].s) + 1;
		char *s = xmalloc(n), *o = s;
		*o = '\0';
		for (int k = 0; k < a->n_pos; k++) {
			const char *p = a->pos[k].s;
			if (p[0] == '/')
				o = s; /* an absolute part starts again */
			else if (o > s && o[-1] != '/')
				*o++ = '/';
			o = stpcpy(o, p);
		}
		pya_set_str(r, s);
		return 1;
	}
	if (a->n_pos == 1 && (!strcmp(fn, "expanduser") || !strcmp(fn, "expandvars") ||
			      !strcmp(fn, "abspath") || !strcmp(fn, "normpath") ||
			      !strcmp(fn, "realpath"))) {
		pya_set_str(r, xstrdup(a->pos[0].s));
		return 1;
	}
	return 0;
}

static void call_ref(struct pya_ctx *c, const struct pytok *at, struct pya_val *f,
		     struct call_args *a)
{
	const char *q = f->s;
	const struct pya_val *a0 = a->n_pos > 0 ? &a->pos[0] : NULL;
	const struct pya_val *a1 = a->n_pos > 1 ? &a->pos[1] : NULL;
	struct pya_event ev = { .name = q, .dynamic = f->dynamic };

	fill_call_event(&ev, a, a0, a1);
	method_mode(&ev, a0);
	pya_emit(c, &ev, at);

	struct pya_val r = { 0 };
	/* (q goes with call_result(): what needs it is looked at first) */
	int env = a0 && a0->k == PYA_V_STR && q[0] == 'o' &&
		  (!strcmp(q, "os.getenv") || !strcmp(q, "os.environ.get"));
	int secret = a0 && a0->k == PYA_V_STR && strchr("bcgiops", q[0]) &&
		     pya_names_secret(a0->s);
	int number = q[0] == 'b' && (!strcmp(q, "builtins.int") || !strcmp(q, "builtins.float") ||
				     !strcmp(q, "builtins.len") || !strcmp(q, "builtins.bool") ||
				     !strcmp(q, "builtins.abs") || !strcmp(q, "builtins.round") ||
				     !strcmp(q, "builtins.ord"));
	/* Every special case below is a builtin, importlib, pathlib or a
	 * decoder: the other calls (most of them) skip the comparisons. */
	if (q[0] == 'o' && fold_path(q, a, &r)) {
		/* os.path.join("/etc", "cron.d") is the constant path */
	} else if (!((q[0] == 'b' && !strncmp(q, "builtins.", 9)) ||
		     (q[0] == 'i' && !strncmp(q, "importlib.", 10)) ||
		     (q[0] == 'p' && !strncmp(q, "pathlib.", 8)) || is_decoder(q))) {
		call_result(&r, f, f->taint | a->taint);
	} else if (is_exec(q)) {
		if (a->decoded) {
			struct pya_event d = { .kind = PYA_SPECIAL, .name = "decode-exec", .dynamic = 1 };
			pya_emit(c, &d, at);
		}
		if (a0 && a0->k == PYA_V_STR)
			pya_analyze_text(c, a0->s, strlen(a0->s), at);
	} else if (is_decoder(q)) {
		r.k = PYA_V_DECODED;
		r.taint = a->taint; /* decoded from the network is still from the network */
	} else if (!strcmp(q, "builtins.__import__") || !strcmp(q, "importlib.import_module") ||
		   !strcmp(q, "importlib.__import__")) {
		if (a0 && a0->k == PYA_V_STR) {
			struct pya_event im = { .kind = PYA_IMPORT, .name = a0->s, .dynamic = 1 };
			pya_emit(c, &im, at);
			pya_set_ref(&r, xstrdup(a0->s), 1);
		} else {
			struct pya_event d = { .kind = PYA_SPECIAL, .name = "dynamic-import", .dynamic = 1 };
			pya_emit(c, &d, at);
		}
	} else if (!strcmp(q, "builtins.getattr") && a0 && a1) {
		int of_builtins = pya_is_builtins_ns(a0);
		/* A module's attribute of a computed name; what an object of a
		 * class of the script holds is its own business. */
		int of_module = a0->k == PYA_V_REF && !a0->guess && !strchr(a0->s, '(');
		if ((of_module || of_builtins) && a1->k != PYA_V_STR)
			pya_computed_name(c, of_builtins ? "computed-builtin" : "dynamic-attribute", a1, at);
		if (a1->k == PYA_V_STR && a0->k == PYA_V_REF)
			pya_set_ref(&r, xasprintf("%s.%s", a0->s, a1->s), 1);
		else if (a1->k == PYA_V_STR && a0->k == PYA_V_GLOBALS)
			pya_set_ref(&r, xasprintf("%s.%s", a0->s, a1->s), 1);
		r.taint = a0->taint;
	} else if (!strcmp(q, "builtins.setattr") && a0 && a0->k == PYA_V_REF &&
		   !strcmp(a0->s, "builtins")) {
		struct pya_event d = { .kind = PYA_SPECIAL, .name = "builtins-modified", .dynamic = 1 };
		pya_emit(c, &d, at);
	} else if (!strcmp(q, "builtins.globals") || !strcmp(q, "builtins.locals") ||
		   (!strcmp(q, "builtins.vars") && !a0)) {
		r.k = PYA_V_GLOBALS;
		r.s = xstrdup("builtins");
		r.ns_module = 1;
	} else if (!strcmp(q, "builtins.vars") && a0 && a0->k == PYA_V_REF) {
		r.k = PYA_V_GLOBALS;
		r.s = xstrdup(a0->s);
	} else if (!strcmp(q, "builtins.chr") && a0 && a0->k == PYA_V_NUM && a0->num > 0 &&
		   a0->num < 0x110000) {
		char u[5];
		u[pylex_utf8_encode((uint32_t)a0->num, u)] = '\0';
		pya_set_str(&r, xstrdup(u));
	} else if (!strcmp(q, "builtins.chr") && a0) {
		r.chr_of = 1; /* its characters, when a join names their codes */
		r.taint = a0->taint;
	} else if (!strcmp(q, "builtins.str") && a0 && (a0->k == PYA_V_STR || a0->k == PYA_V_NUM)) {
		pya_set_str(&r, val_text(a0));
	} else if (!strcmp(q, "builtins.map") && a0 && a1 && a0->k == PYA_V_REF &&
		   !strcmp(a0->s, "builtins.chr") && a1->k == PYA_V_LIST) {
		pya_val_copy(&r, a1);
		pya_chr_list(&r);
	} else if ((!strcmp(q, "builtins.bytes") || !strcmp(q, "builtins.bytearray")) && a0 &&
		   a0->k == PYA_V_LIST) {
		pya_val_copy(&r, a0);
		pya_chr_list(&r);
		char *s = pya_join_list("", &r);
		pya_val_clear(&r);
		if (s)
			pya_set_str(&r, s);
	} else if ((!strcmp(q, "pathlib.Path") || !strcmp(q, "pathlib.PosixPath")) && a0 &&
		   a0->k == PYA_V_STR) {
		/* Path('/etc/x').write_text(...) is reported as a call of
		 * pathlib.Path.write_text with the path as its first argument. */
		r.k = PYA_V_PATH;
		r.s = xstrdup(a0->s);
	} else if (!strcmp(q, "builtins.reversed") && a0 && a0->k == PYA_V_STR) {
		pya_set_str(&r, pya_reverse_utf8(a0->s));
	} else {
		call_result(&r, f, f->taint | a->taint);
	}
	/* os.getenv("USER"), os.environ.get("HOME"): by the variable's name;
	 * a read of a file that keeps secrets is a secret. */
	/* A number carries no command, code or name: int(input()) is a number. */
	if (number && r.taint)
		r.taint = 0;
	if (env) {
		unsigned t = (r.taint & ~(PYA_TAINT_SECRET | PYA_TAINT_DATA)) | pya_env_taint(a0->s);
		if (pya_env_is_home(a0->s)) /* os.getenv("HOME"): the path "~" */
			pya_set_str(&r, xstrdup("~"));
		r.taint = t;
	}
	else if (secret)
		r.taint |= PYA_TAINT_SECRET; /* open("~/.ssh/id_rsa"), glob("~/.ssh/id_*") */
	pya_val_clear(f);
	*f = r;
}

static void call_strmeth(struct pya_val *f, struct call_args *a)
{
	const char *m = f->meth;
	const struct pya_val *a0 = a->n_pos > 0 ? &a->pos[0] : NULL;
	char *r = NULL;
	int decoded = 0;

	/* b''.join([b64decode(...)]) is decoded data; ''.join(reversed(s)) is
	 * a string's characters joined. */
	if (!strcmp(m, "join") && a0 && pya_val_decoded(a0))
		decoded = 1;
	else if (!strcmp(m, "join") && a0 && a0->chr_of && a->n_pos == 2 &&
		 a->pos[1].k == PYA_V_LIST) {
		/* "".join(chr(c) for c in (114, 109, ...)): the generator's
		 * parts are the arguments chr(c) and the numbers */
		struct pya_val codes = { 0 };
		pya_val_copy(&codes, &a->pos[1]);
		pya_chr_list(&codes);
		r = pya_join_list(f->s, &codes);
		pya_val_clear(&codes);
	}
	else if (!strcmp(m, "join") && a0)
		r = a0->k == PYA_V_STR ? pya_join_chars(f->s, a0->s) : pya_join_list(f->s, a0);
	else if (!strcmp(m, "format") && a->n_kw == 0 && a->n_pos <= MAX_ARGS)
		r = pya_format_str(f->s, a->pos, (size_t)a->n_pos);
	else if ((!strcmp(m, "decode") || !strcmp(m, "encode") || !strcmp(m, "strip")) && !a0)
		r = xstrdup(f->s);
	else if (!strcmp(m, "lower") || !strcmp(m, "upper")) {
		r = xstrdup(f->s);
		for (char *p = r; *p; p++)
			if ((unsigned char)*p < 0x80)
				*p = (char)(m[0] == 'l' ? (*p >= 'A' && *p <= 'Z' ? *p + 32 : *p)
						     : (*p >= 'a' && *p <= 'z' ? *p - 32 : *p));
	} else if (!strcmp(m, "replace") && a->n_pos == 2 && a0->k == PYA_V_STR &&
		   a->pos[1].k == PYA_V_STR && a0->s[0]) {
		const char *from = a0->s, *to = a->pos[1].s;
		size_t fl = strlen(from), tl = strlen(to), o = 0, cap = strlen(f->s) + 1;
		r = xmalloc(cap);
		for (const char *p = f->s; *p;) {
			if (strncmp(p, from, fl) == 0) {
				cap += tl;
				r = xrealloc(r, cap);
				memcpy(r + o, to, tl);
				o += tl;
				p += fl;
			} else {
				r[o++] = *p++;
			}
		}
		r[o] = '\0';
	}
	if (r) {
		pya_set_str(f, r);
	} else {
		unsigned taint = a->taint | f->taint;
		pya_val_clear(f);
		f->taint = taint;
		if (decoded)
			f->k = PYA_V_DECODED;
	}
}

/* A method of a constant pathlib.Path, reported as pathlib.Path.NAME with
 * the path as its first argument and the call's arguments after it. */
static void call_path(struct pya_ctx *c, const struct pytok *at, struct pya_val *v,
		      struct call_args *a)
{
	char *q = xasprintf("pathlib.Path.%s", v->meth);
	struct pya_val path = { .k = PYA_V_STR, .s = v->s };
	struct pya_event ev = { .name = q, .dynamic = v->dynamic };

	fill_call_event(&ev, a, &path, a->n_pos > 0 ? &a->pos[0] : NULL);
	if (strcmp(v->meth, "open") != 0)
		ev.mode = NULL;
	pya_emit(c, &ev, at);
	free(q);
	pya_val_clear(v);
}

/* A call of something the analyzer cannot name: a method of an unknown
 * object (reported as ".name", so rules can name methods of any object),
 * a local function (the same), or an entry of globals() under a computed
 * key. */
static void call_unnamed(struct pya_ctx *c, const struct pytok *at, struct pya_val *v,
			 struct call_args *a)
{
	unsigned outside = v->taint | a->taint;

	if (v->computed) {
		struct pya_event d = { .kind = PYA_SPECIAL, .name = "computed-call", .dynamic = 1 };
		pya_emit(c, &d, at);
	}
	/* A method of an unnamed object is always reported; a bare local
	 * only with keywords (shell=...), as rules name nothing else of it. */
	const struct pytok *mt = v->meth_tok;
	const struct pya_filter *want = c->filter;
	if (mt && mt->n < 64 && (!v->guess_local || a->n_kw > 0) &&
	    (!want || (want->method_bits & pya_method_bit(mt->s, mt->n)) ||
	     (want->keyword_calls && a->n_kw > 0))) {
		char q[66];
		q[0] = '.';
		memcpy(q + 1, v->meth_tok->s, v->meth_tok->n);
		q[v->meth_tok->n + 1] = '\0';
		struct pya_event ev = { .name = q, .dynamic = v->dynamic };
		fill_call_event(&ev, a, a->n_pos > 0 ? &a->pos[0] : NULL,
				a->n_pos > 1 ? &a->pos[1] : NULL);
		method_mode(&ev, a->n_pos > 0 ? &a->pos[0] : NULL);
		pya_emit(c, &ev, at);
		outside |= pya_reads_outside(q);
	}
	int decrypted = mt && is_decryption(mt->s, mt->n);
	pya_val_clear(v);
	v->taint = outside;
	if (decrypted)
		v->k = PYA_V_DECODED;
}

void pya_call(struct pya_ctx *c, size_t *i, struct pya_val *v, const struct pytok *at)
{
	struct call_args a = { 0 };

	parse_args(c, i, &a);
	if (v->k == PYA_V_REF)
		call_ref(c, at, v, &a);
	else if (v->k == PYA_V_PATH && v->meth)
		call_path(c, at, v, &a);
	else if (v->k == PYA_V_STRMETH)
		call_strmeth(v, &a);
	else if ((v->k == PYA_V_GLOBALS || v->k == PYA_V_MODULES) && v->meth && a.n_pos > 0) {
		free(v->meth);
		v->meth = NULL;
		if (a.pos[0].k == PYA_V_STR) {
			char *q = v->k == PYA_V_MODULES ? xstrdup(a.pos[0].s)
						       : xasprintf("%s.%s", v->s, a.pos[0].s);
			pya_set_ref(v, q, 1);
		} else {
			int computed = v->k == PYA_V_GLOBALS;
			pya_val_clear(v);
			v->computed = computed;
		}
	} else if (v->k == PYA_V_UNKNOWN) {
		call_unnamed(c, at, v, &a);
	} else if (v->k != PYA_V_DECODED) {
		pya_val_clear(v);
	}
	args_clear(&a);
}
