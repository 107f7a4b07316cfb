/* Shapes of intent made of several events of one file (assess_intent.h).
 * Each part is a mark: where it was first seen; a shape is reported once,
 * at the part that completes its meaning. */
#include <string.h>

#include "assess_intent.h"
#include "macro.h"

/* Strings longer than this are prose (docstrings, messages), not the
 * names and paths the shapes look for: not searched. */
#define INTENT_STRING_MAX 256

static void mark(struct assess_intent_mark *m, const struct pya_event *ev)
{
	if (!m->line) {
		m->line = ev->line ? ev->line : 1;
		m->col = ev->col;
	}
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_process(const char *q)
{
	return starts(q, "subprocess.") || starts(q, "os.system") || starts(q, "os.popen") ||
	       starts(q, "os.exec") || starts(q, "os.spawn") || starts(q, "os.posix_spawn") ||
	       starts(q, "pty.spawn") || starts(q, "asyncio.create_subprocess") ||
	       !strcmp(q, "os.startfile");
}

/* A program that is a file of its own (downloaded, say), not a command
 * named by PATH: an executable's extension, ./x, or a computed name. */
static int runs_a_file(const struct pya_event *ev)
{
	static const char *const exts[] = {
		".exe", ".bat", ".cmd", ".ps1", ".vbs", ".scr", ".msi", ".sh", ".jar", ".bin",
	};
	const char *p = ev->arg0_first;

	if (!strcmp(ev->name, "os.startfile"))
		return 1;
	if (!p)
		return ev->n_args > 0 && ev->origin != PYA_ORIGIN_LITERAL;
	if (starts(p, "./"))
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(exts); i++)
		if (ends(p, exts[i]))
			return 1;
	return 0;
}

static int is_network(const char *q)
{
	static const char *const prefixes[] = {
		"socket.socket", "socket.create_connection", "requests.", "httpx.", "urllib.request.",
		"urllib3.", "http.client.", "smtplib.", "ftplib.", "aiohttp.", "urllib.urlopen",
		"urllib2.",
	};
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (q[0] == prefixes[i][0] && starts(q, prefixes[i]))
			return 1;
	return 0;
}

static int writes_file(const struct pya_event *ev)
{
	const char *q = ev->name;
	if (!strcmp(q, "builtins.open") || !strcmp(q, "io.open") || !strcmp(q, "codecs.open") ||
	    !strcmp(q, "pathlib.Path.open"))
		return ev->mode && strpbrk(ev->mode, "wax+");
	return starts(q, "shutil.copy") || !strcmp(q, "shutil.move") ||
	       starts(q, "pathlib.Path.write_") || !strcmp(q, "os.rename") ||
	       !strcmp(q, "os.replace");
}

static void on_call(struct assess_intent *in, const struct pya_event *ev)
{
	const char *q = ev->name, *dot = strrchr(q, '.');
	const char *m = dot ? dot + 1 : q; /* the function's or method's own name */

	/* By that name, whatever the object. */
	switch (m[0]) {
	case 'd':
		if (!strcmp(m, "dup2"))
			mark(&in->dup2, ev);
		break;
	case 'c':
		if (!strcmp(m, "chmod") && ev->mode_known && (ev->mode_bits & 0111))
			mark(&in->run, ev);
		break;
	case 'e':
		if (!strcmp(m, "exec_module")) /* a module loaded from a file */
			mark(&in->run, ev);
		break;
	case 'w':
		if (!strcmp(m, "write") && (ev->taint & PYA_TAINT_NET))
			mark(&in->download, ev);
		break;
	case 'I':
	case 'C':
		if (ends(m, "DebuggerPresent"))
			mark(&in->anti_analysis, ev);
		break;
	case 'f':
		if (!strcmp(m, "fromhex"))
			mark(&in->decoder, ev);
		break;
	case 'p':
	case 's':
	case 'u':
		if (!strcmp(m, "post") || !strcmp(m, "send") || !strcmp(m, "sendall") ||
		    !strcmp(m, "urlopen"))
			mark(&in->net_send, ev);
		break;
	}
	/* By module: the first letters of the modules below; the methods of
	 * objects nobody can name (".x", most calls) stop here. */
	if (!strchr("abcfhilmoprsuwz_", q[0]))
		return;
	if (starts(q, "socket.socket") || starts(q, "socket.create_connection") ||
	    !strcmp(q, "socket.fromfd") || !strcmp(q, "asyncio.open_connection"))
		mark(&in->socket, ev);
	if (is_process(q)) {
		mark(&in->process, ev);
		if (runs_a_file(ev))
			mark(&in->run, ev);
	}
	if (starts(q, "importlib.machinery.SourceFileLoader") ||
	    !strcmp(q, "importlib.util.spec_from_file_location"))
		mark(&in->run, ev);
	/* site-packages: a .pth file there runs at every start of Python */
	if (!strcmp(q, "site.getsitepackages") || !strcmp(q, "site.getusersitepackages"))
		mark(&in->startup_name, ev);
	if (!strcmp(q, "urllib.request.urlretrieve") || !strcmp(q, "urllib.urlretrieve") ||
	    !strcmp(q, "wget.download") ||
	    (!strcmp(q, "shutil.copyfileobj") && (ev->taint & PYA_TAINT_NET)))
		mark(&in->download, ev);
	if (starts(q, "base64.b") || starts(q, "zlib.decompress") || starts(q, "codecs.decode") ||
	    starts(q, "binascii.a2b") || starts(q, "lzma.decompress") ||
	    starts(q, "bz2.decompress") || !strcmp(q, "marshal.loads"))
		mark(&in->decoder, ev);
	/* exec or compile of what the analyzer could not follow (eval is a
	 * calculator's everyday tool; exec of text is rarer) */
	if ((!strcmp(q, "builtins.exec") || !strcmp(q, "builtins.compile")) &&
	    ev->origin == PYA_ORIGIN_UNRESOLVED)
		mark(&in->exec_unknown, ev);
	if (starts(q, "winreg.SetValue") || starts(q, "_winreg.SetValue"))
		mark(&in->registry_write, ev);
	if (writes_file(ev))
		mark(&in->file_write, ev);
	if (ev->origin == PYA_ORIGIN_UNRESOLVED &&
	    (!strcmp(q, "shutil.rmtree") || !strcmp(q, "os.remove") || !strcmp(q, "os.unlink") ||
	     !strcmp(q, "os.rmdir") || !strcmp(q, "os.removedirs")))
		mark(&in->delete_unknown, ev);
	if (is_network(q))
		mark(&in->net_send, ev);
}

static void on_string(struct assess_intent *in, const struct pya_event *ev)
{
	const char *s = ev->name;
	size_t n = strnlen(s, INTENT_STRING_MAX + 1);

	if (s[0] == '~' && (!s[1] || (s[1] == '/' && !s[2])))
		mark(&in->home, ev);
	if (n > INTENT_STRING_MAX || n < 5)
		return;
	unsigned found = pya_string_marks(s, n);
	if (found & PYA_MARK_ANALYSIS)
		mark(&in->anti_analysis, ev);
	if (found & PYA_MARK_RUN_KEY)
		mark(&in->run_key, ev);
	if (found & PYA_MARK_STARTUP)
		mark(&in->startup_name, ev);
	if (found & PYA_MARK_SECRET)
		mark(&in->secret_name, ev);
}

void assess_intent_event(struct assess_intent *in, const struct pya_event *ev)
{
	if (ev->kind == PYA_CALL)
		on_call(in, ev);
	else if (ev->kind == PYA_STRING)
		on_string(in, ev);
}

static void report(const char *name, const struct assess_intent_mark *at, pya_event_fn fn,
		   void *ctx)
{
	struct pya_event ev = { .kind = PYA_SPECIAL, .name = name, .line = at->line,
				.col = at->col };
	fn(ctx, &ev);
}

void assess_intent_finish(const struct assess_intent *in, pya_event_fn fn, void *ctx)
{
	if (in->socket.line && in->dup2.line && in->process.line)
		report("reverse-shell", &in->dup2, fn, ctx);
	if (in->download.line && in->run.line)
		report("download-run", &in->run, fn, ctx);
	if (in->anti_analysis.line)
		report("anti-analysis", &in->anti_analysis, fn, ctx);
	if (in->registry_write.line && in->run_key.line)
		report("persistence", &in->registry_write, fn, ctx);
	else if (in->startup_name.line && in->file_write.line)
		report("persistence", &in->startup_name, fn, ctx);
	if (in->decoder.line && in->exec_unknown.line)
		report("decode-exec", &in->exec_unknown, fn, ctx);
	if (in->home.line && in->delete_unknown.line)
		report("delete-home", &in->delete_unknown, fn, ctx);
	if (in->secret_name.line && in->net_send.line)
		report("secret-store", &in->secret_name, fn, ctx);
}
