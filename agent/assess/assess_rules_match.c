/* Does an event meet a rule: the conditions of a rule's `match:` against
 * one call, import, special construct or string the analyzer reported.
 * assess_rules_index.c picks the few rules an event may meet; this checks
 * each in full. */
#include <fnmatch.h>
#include <string.h>

#include "assess_rules.h"

const char *const assess_mode_classes[ASSESS_MODE_CLASSES] = {
	"world-writable-or-setid", "group-writable-or-exec", "restricted", "unknown",
};

/* Patterns are mostly exact names or "prefix.*": those are compared
 * directly (every call of a file meets every rule), the rest by fnmatch. */
static int glob_one(const char *pat, const char *name)
{
	if (pat[0] == '*' && pat[1] == '\0')
		return 1; /* every call, whatever it is a method of */
	if (pat[0] != name[0] && pat[0] != '*' && pat[0] != '?' && pat[0] != '[')
		return 0;
	const char *star = strchr(pat, '*');
	if (!star && !strpbrk(pat, "?["))
		return strcmp(pat, name) == 0;
	/* "socket.*" names the module's members, not the methods of what they
	 * return ("socket.socket().bind"): a prefix does not reach past "()". */
	if (star && star[1] == '\0' && !strpbrk(pat, "?["))
		return strncmp(pat, name, (size_t)(star - pat)) == 0 &&
		       !strchr(name + (star - pat), '(');
	return fnmatch(pat, name, 0) == 0;
}

static int any_glob(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (glob_one(s->v[i], name))
			return 1;
	return 0;
}

static int any_exact(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return 1;
	return 0;
}

static int any_module(const struct assess_strv *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		size_t k = strlen(s->v[i]);
		if (!strncmp(name, s->v[i], k) && (name[k] == '\0' || name[k] == '.'))
			return 1;
	}
	return 0;
}

static int is_outside(const char *p)
{
	if (strstr(p, ".."))
		return 1;
	if (p[0] == '~')
		return 1;
	if (p[0] != '/')
		return 0;
	/* The temporary directories are scratch space, not "outside". */
	return strncmp(p, "/tmp/", 5) != 0 && strncmp(p, "/var/tmp/", 9) != 0;
}

/* A path from the root of a system: absolute (not under the temporary
 * directories), a drive, or the home directory itself. */
static int is_absolute(const char *p)
{
	if (!strcmp(p, "~") || !strcmp(p, "~/"))
		return 1;
	if (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':' &&
	    (p[2] == '\\' || p[2] == '/'))
		return 1;
	return p[0] == '/' && is_outside(p);
}

static const struct pya_kwarg *kwarg_get(const struct pya_event *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_kwargs; i++)
		if (!strcmp(ev->kwargs[i].name, name))
			return &ev->kwargs[i];
	return NULL;
}

const char *assess_mode_class(const struct pya_event *ev)
{
	/* Bandit's B103 grading: others may write (or set-id bits) is high;
	 * the group may write or run, or others may run, is medium. */
	if (!ev->mode_known)
		return assess_mode_classes[3];
	if (ev->mode_bits & 06002)
		return assess_mode_classes[0];
	if (ev->mode_bits & 00031)
		return assess_mode_classes[1];
	return assess_mode_classes[2];
}

/* A program named without a directory is looked up in PATH: Bandit's B607
 * counts a path from the root, a drive letter, '\' or '.' as given. */
static int is_partial_path(const char *p)
{
	if (!p || !p[0])
		return 0;
	if (p[0] == '/' || p[0] == '\\' || p[0] == '.')
		return 0;
	if (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':')
		return 0;
	return 1;
}

static int kwarg_is(const struct pya_event *ev, const char *spec)
{
	const char *eq = strchr(spec, '=');
	size_t kn = (size_t)(eq - spec);
	for (size_t i = 0; i < ev->n_kwargs; i++)
		if (strlen(ev->kwargs[i].name) == kn && !strncmp(ev->kwargs[i].name, spec, kn) &&
		    ev->kwargs[i].value && !strcmp(ev->kwargs[i].value, eq + 1))
			return 1;
	return 0;
}

int assess_rule_matches(const struct assess_rule *r, const struct pya_event *ev)
{
	if (!r->enabled)
		return 0;
	/* First the cheapest test that fails for most calls of a rule that
	 * names every call ("*" with shell=...). */
	for (size_t i = 0; i < r->kwarg_true.n; i++) {
		const struct pya_kwarg *k = kwarg_get(ev, r->kwarg_true.v[i]);
		if (!k || k->truth == PYA_TRUTH_FALSE)
			return 0;
	}
	/* Then the conditions on a call's arguments, a compare each, before
	 * its name's patterns: the intent rules name the same calls many
	 * times over and most of their events fail these. */
	if (ev->kind == PYA_CALL &&
	    ((r->taint && !(ev->taint & r->taint)) ||
	     (r->decoded >= 0 && r->decoded != !!ev->decoded_arg) ||
	     ((r->arg_contains.n || r->arg_glob.n) && !ev->arg0) ||
	     (r->program.n && !ev->arg0_first)))
		return 0;
	switch (ev->kind) {
	case PYA_CALL:
		if (!r->call.n || !any_glob(&r->call, ev->name))
			return 0;
		break;
	case PYA_IMPORT:
		if (!r->import.n || !any_module(&r->import, ev->name))
			return 0;
		break;
	case PYA_SPECIAL:
		if (!r->special.n || !any_glob(&r->special, ev->name))
			return 0;
		break;
	case PYA_STRING:
		return r->string.n && any_exact(&r->string, ev->name);
	default:
		return 0;
	}
	if (r->not_call.n && any_glob(&r->not_call, ev->name))
		return 0;
	if (r->taint && !(ev->taint & r->taint))
		return 0;
	if (r->has_kwarg.n) {
		int any = 0;
		for (size_t i = 0; i < r->has_kwarg.n && !any; i++)
			any = kwarg_get(ev, r->has_kwarg.v[i]) != NULL;
		if (!any)
			return 0;
	}
	for (size_t i = 0; i < r->lacks_kwarg.n; i++)
		if (kwarg_get(ev, r->lacks_kwarg.v[i]))
			return 0;
	if (r->mode.n && !any_exact(&r->mode, assess_mode_class(ev)))
		return 0;
	if (r->partial_path >= 0 && r->partial_path != is_partial_path(ev->arg0_first))
		return 0;
	if (r->arg_glob.n) {
		int hit = 0;
		for (size_t i = 0; ev->arg0 && i < r->arg_glob.n && !hit; i++)
			hit = fnmatch(r->arg_glob.v[i], ev->arg0, 0) == 0;
		if (!hit)
			return 0;
	}
	if (r->dynamic >= 0 && r->dynamic != !!ev->dynamic)
		return 0;
	if (r->in_loop >= 0 && r->in_loop != !!ev->in_loop)
		return 0;
	if (r->kwarg && !kwarg_is(ev, r->kwarg))
		return 0;
	for (size_t i = 0; i < r->unless_kwarg.n; i++)
		if (kwarg_is(ev, r->unless_kwarg.v[i]))
			return 0;
	if (r->write_mode >= 0) {
		/* os.open's flags are not folded: treat it as writing. */
		int w = ev->mode ? strpbrk(ev->mode, "wax+") != NULL
				 : !strcmp(ev->name, "os.open") ||
				   !strcmp(ev->name, "pathlib.Path.write_text") ||
				   !strcmp(ev->name, "pathlib.Path.write_bytes") ||
				   !strcmp(ev->name, "pathlib.Path.touch");
		if (w != r->write_mode)
			return 0;
	}
	if (r->path == 1 && !(ev->arg0 && is_outside(ev->arg0)))
		return 0;
	if (r->path == 2 && ev->arg0 && is_outside(ev->arg0))
		return 0;
	if (r->path == 3 && !(ev->arg0 && is_absolute(ev->arg0)))
		return 0;
	if (r->arg_contains.n) {
		int hit = 0;
		for (size_t i = 0; ev->arg0 && i < r->arg_contains.n && !hit; i++)
			hit = strstr(ev->arg0, r->arg_contains.v[i]) != NULL;
		if (!hit)
			return 0;
	}
	if (r->arg_ref.n && !(ev->arg0_ref && any_glob(&r->arg_ref, ev->arg0_ref)))
		return 0;
	if (r->not_arg_ref.n && ev->arg0_ref && any_glob(&r->not_arg_ref, ev->arg0_ref))
		return 0;
	if (r->decoded >= 0 && r->decoded != !!ev->decoded_arg)
		return 0;
	if (r->program.n) {
		/* the program a process starts: the first argument, or the
		 * first item of a list, by its file name */
		const char *p = ev->arg0_first;
		if (!p)
			return 0;
		size_t len = strcspn(p, " ");
		for (size_t k = len; k > 0; k--)
			if (p[k - 1] == '/') {
				p += k;
				len -= k;
				break;
			}
		int hit = 0;
		for (size_t i = 0; i < r->program.n && !hit; i++)
			hit = strlen(r->program.v[i]) == len && !strncmp(r->program.v[i], p, len);
		if (!hit)
			return 0;
	}
	return 1;
}
