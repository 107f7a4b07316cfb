/* Where values come from: which names read data from outside the script
 * (argv, environ, stdin, files, sockets, HTTP, the host's identity and
 * secrets) and of what kind, which keyword arguments
 * carry a call's data rather than its options, the origin of one argument,
 * truth values of constants, the stat module's mode bits, and the
 * bidirectional control characters that can reorder what a reader sees. */
#include <pthread.h>
#include <stdint.h>
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

const char *pya_taint_to_string(unsigned bit)
{
	switch (bit) {
	case PYA_TAINT_TYPED: return "typed";
	case PYA_TAINT_DATA: return "data";
	case PYA_TAINT_NET: return "network";
	case PYA_TAINT_SECRET: return "secret";
	case PYA_TAINT_HOST: return "host";
	case PYA_TAINT_SYSTEM: return "system";
	case PYA_TAINT_CREDENTIAL: return "credential";
	}
	return NULL;
}

struct taint_name {
	const char *name;
	unsigned taint;
};

static int cmp_taint_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct taint_name *)elem)->name);
}

/* The taint of q in a sorted table, or 0. */
static unsigned taint_of(const struct taint_name *list, size_t n, const char *q)
{
	const struct taint_name *t = bsearch(q, list, n, sizeof(*list), cmp_taint_name);
	return t ? t->taint : 0;
}

unsigned pya_ref_is_outside(const char *q)
{
	/* The whole environment is the host's secrets; one variable of it
	 * (os.environ["X"], os.environ.get("X")) is tainted by its name. */
	static const struct taint_name refs[] = {
		{ "os.environ", PYA_TAINT_SECRET }, { "os.environb", PYA_TAINT_SECRET },
		{ "sys.argv", PYA_TAINT_DATA }, { "sys.orig_argv", PYA_TAINT_DATA },
		{ "sys.stdin", PYA_TAINT_TYPED }, { "sys.stdin.buffer", PYA_TAINT_TYPED },
	};
	/* a web framework's request: what the network sent */
	if (q[0] == 'f' && !strncmp(q, "flask.request", 13) && (!q[13] || q[13] == '.'))
		return PYA_TAINT_NET;
	if (!((q[0] == 's' && q[1] == 'y') || (q[0] == 'o' && q[1] == 's')))
		return 0;
	return taint_of(refs, ARRAY_SIZE(refs), q);
}

int pya_env_is_home(const char *name)
{
	return !strcmp(name, "HOME") || !strcmp(name, "USERPROFILE");
}

unsigned pya_env_taint(const char *name)
{
	static const char *const host[] = {
		"COMPUTERNAME", "HOME", "HOSTNAME", "LOGNAME", "USER", "USERDOMAIN", "USERNAME",
		"USERPROFILE",
	};
	static const char *const credential[] = {
		"TOKEN", "SECRET", "PASSWORD", "PASSWD", "API_KEY", "ACCESS_KEY", "PRIVATE_KEY",
	};
	if (in_sorted(host, ARRAY_SIZE(host), name))
		return PYA_TAINT_HOST;
	for (size_t i = 0; i < ARRAY_SIZE(credential); i++)
		if (strstr(name, credential[i]))
			return PYA_TAINT_DATA | PYA_TAINT_CREDENTIAL;
	return PYA_TAINT_DATA;
}

int pya_names_system_path(const char *s)
{
	if (s[0] == '~')
		return !s[1] || (s[1] == '/' && !s[2]);
	if (s[0] != '/')
		return ((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z') && s[1] == ':' &&
		       (s[2] == '\\' || s[2] == '/') && !s[3];
	return strncmp(s, "/tmp", 4) != 0 && strncmp(s, "/var/tmp", 8) != 0 &&
	       strncmp(s, "/dev/", 5) != 0 && strncmp(s, "/proc/", 6) != 0;
}

/* The texts pya_string_marks() looks for. A table of the byte pairs they
 * start with rejects nearly every position of a string at once: string
 * literals are many, and each of a file's is searched. */
static const struct {
	const char *text;
	unsigned mark;
} marks[] = {
	/* keys, credentials files, browsers' and messengers' stores of
	 * logins, cookies and tokens, wallets */
	{ ".ssh/id_", PYA_MARK_SECRET }, { "id_rsa", PYA_MARK_SECRET },
	{ "id_ed25519", PYA_MARK_SECRET }, { "id_ecdsa", PYA_MARK_SECRET },
	{ "id_dsa", PYA_MARK_SECRET }, { ".aws/credentials", PYA_MARK_SECRET },
	{ ".netrc", PYA_MARK_SECRET }, { ".gnupg", PYA_MARK_SECRET },
	{ ".docker/config.json", PYA_MARK_SECRET }, { "/etc/shadow", PYA_MARK_SECRET },
	{ ".git-credentials", PYA_MARK_SECRET }, { ".pypirc", PYA_MARK_SECRET },
	{ ".kube/config", PYA_MARK_SECRET }, { "/proc/self/environ", PYA_MARK_SECRET },
	{ "Login Data", PYA_MARK_SECRET }, { "Local Storage", PYA_MARK_SECRET },
	{ "Web Data", PYA_MARK_SECRET }, { "Local State", PYA_MARK_SECRET },
	{ "key4.db", PYA_MARK_SECRET }, { "logins.json", PYA_MARK_SECRET },
	{ "cookies.sqlite", PYA_MARK_SECRET }, { "wallet.dat", PYA_MARK_SECRET },
	{ "Telegram Desktop", PYA_MARK_SECRET }, { ".bash_history", PYA_MARK_SECRET },
	{ "keychain", PYA_MARK_SECRET },
	/* places from which code starts by itself later */
	{ "Programs\\Startup", PYA_MARK_STARTUP }, { "Programs/Startup", PYA_MARK_STARTUP },
	{ ".config/autostart", PYA_MARK_STARTUP }, { "/etc/cron", PYA_MARK_STARTUP },
	{ "cron.d/", PYA_MARK_STARTUP }, { "/var/spool/cron", PYA_MARK_STARTUP },
	{ "/etc/systemd/system", PYA_MARK_STARTUP }, { ".config/systemd/user", PYA_MARK_STARTUP },
	{ "LaunchAgents", PYA_MARK_STARTUP }, { "LaunchDaemons", PYA_MARK_STARTUP },
	{ "/etc/init.d/", PYA_MARK_STARTUP }, { "/etc/rc.local", PYA_MARK_STARTUP },
	{ "/etc/profile.d/", PYA_MARK_STARTUP }, { ".bashrc", PYA_MARK_STARTUP },
	{ ".bash_profile", PYA_MARK_STARTUP }, { ".zshrc", PYA_MARK_STARTUP },
	{ ".zprofile", PYA_MARK_STARTUP }, { "sitecustomize.py", PYA_MARK_STARTUP },
	{ "CurrentVersion\\Run", PYA_MARK_RUN_KEY },
	/* looking for a sandbox, a virtual machine or a debugger */
	{ "/.dockerenv", PYA_MARK_ANALYSIS }, { "/proc/1/cgroup", PYA_MARK_ANALYSIS },
	{ "VBoxService", PYA_MARK_ANALYSIS }, { "VBoxTray", PYA_MARK_ANALYSIS },
	{ "VBoxGuest", PYA_MARK_ANALYSIS }, { "vboxguest", PYA_MARK_ANALYSIS },
	{ "vmtoolsd", PYA_MARK_ANALYSIS }, { "VMwareService", PYA_MARK_ANALYSIS },
	{ "vmware-tray", PYA_MARK_ANALYSIS }, { "SbieDll", PYA_MARK_ANALYSIS },
	{ "IsDebuggerPresent", PYA_MARK_ANALYSIS },
	{ "CheckRemoteDebuggerPresent", PYA_MARK_ANALYSIS }, { "wireshark.exe", PYA_MARK_ANALYSIS },
	{ "procmon.exe", PYA_MARK_ANALYSIS }, { "x64dbg", PYA_MARK_ANALYSIS },
	{ "ollydbg", PYA_MARK_ANALYSIS }, { "Sandboxie", PYA_MARK_ANALYSIS },
	{ "cuckoo", PYA_MARK_ANALYSIS }, { "joeboxserver", PYA_MARK_ANALYSIS },
	{ "vmsrvc", PYA_MARK_ANALYSIS }, { "qemu-ga", PYA_MARK_ANALYSIS },
};

static uint64_t pair_bits[65536 / 64];
static pthread_once_t pairs_once = PTHREAD_ONCE_INIT;

static unsigned pair_at(const char *p)
{
	return (unsigned)(unsigned char)p[0] << 8 | (unsigned char)p[1];
}

static void pairs_init(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(marks); i++)
		pair_bits[pair_at(marks[i].text) / 64] |= 1ULL << (pair_at(marks[i].text) % 64);
}

unsigned pya_string_marks(const char *s, size_t n)
{
	unsigned found = 0;

	pthread_once(&pairs_once, pairs_init);
	for (size_t i = 0; i + 1 < n; i++) {
		unsigned pr = pair_at(s + i);
		if (!(pair_bits[pr / 64] & (1ULL << (pr % 64))))
			continue;
		for (size_t m = 0; m < ARRAY_SIZE(marks); m++)
			if (pair_at(marks[m].text) == pr &&
			    !strncmp(s + i, marks[m].text, strlen(marks[m].text)))
				found |= marks[m].mark;
	}
	/* os.path.join(..., "Start Menu", "Programs", "Startup") */
	if ((n == 7 && !strcmp(s, "Startup")) || (n == 10 && !strcmp(s, "Start Menu")))
		found |= PYA_MARK_STARTUP;
	return found;
}

int pya_names_secret(const char *s)
{
	return (pya_string_marks(s, strlen(s)) & PYA_MARK_SECRET) != 0;
}

unsigned pya_reads_outside(const char *q)
{
	static const struct taint_name calls[] = {
		{ "builtins.input", PYA_TAINT_TYPED }, { "builtins.open", PYA_TAINT_DATA },
		{ "builtins.raw_input", PYA_TAINT_TYPED }, { "codecs.open", PYA_TAINT_DATA },
		{ "fileinput.input", PYA_TAINT_DATA }, { "getpass.getpass", PYA_TAINT_TYPED },
		{ "getpass.getuser", PYA_TAINT_HOST }, { "io.open", PYA_TAINT_DATA },
		{ "json.load", PYA_TAINT_DATA }, { "os.environ.copy", PYA_TAINT_SECRET },
		{ "os.fdopen", PYA_TAINT_DATA }, { "os.getenv", PYA_TAINT_DATA },
		{ "os.getenvb", PYA_TAINT_DATA }, { "os.getlogin", PYA_TAINT_HOST },
		{ "os.read", PYA_TAINT_DATA }, { "os.uname", PYA_TAINT_HOST },
		{ "platform.node", PYA_TAINT_HOST }, { "platform.uname", PYA_TAINT_HOST },
		{ "pwd.getpwuid", PYA_TAINT_HOST }, { "socket.getfqdn", PYA_TAINT_HOST },
		{ "socket.gethostname", PYA_TAINT_HOST }, { "subprocess.check_output", PYA_TAINT_DATA },
		{ "subprocess.getoutput", PYA_TAINT_DATA },
		{ "subprocess.getstatusoutput", PYA_TAINT_DATA }, { "urllib.urlopen", PYA_TAINT_NET },
		{ "urllib2.urlopen", PYA_TAINT_NET }, { "uuid.getnode", PYA_TAINT_HOST },
	};
	static const struct {
		const char *prefix;
		unsigned taint;
	} prefixes[] = {
		{ "aiohttp.", PYA_TAINT_NET }, { "asyncio.open_connection", PYA_TAINT_NET },
		{ "ftplib.", PYA_TAINT_NET },
		{ "http.client.", PYA_TAINT_NET }, { "httpx.", PYA_TAINT_NET },
		{ "pathlib.Path.read_", PYA_TAINT_DATA }, { "requests.", PYA_TAINT_NET },
		{ "socket.", PYA_TAINT_NET }, { "sys.stdin.", PYA_TAINT_TYPED },
		{ "telnetlib.", PYA_TAINT_NET }, { "urllib.request.", PYA_TAINT_NET },
		{ "urllib3.", PYA_TAINT_NET }, { "websocket.", PYA_TAINT_NET },
		{ "websockets.", PYA_TAINT_NET },
	};
	/* Methods that read, whatever the object (a file, a socket, a
	 * response, a process's pipes); the object's own taint joins. */
	static const struct taint_name methods[] = {
		{ "accept", PYA_TAINT_NET }, { "communicate", PYA_TAINT_DATA },
		{ "getresponse", PYA_TAINT_NET }, { "json", PYA_TAINT_DATA },
		{ "read", PYA_TAINT_DATA }, { "read_bytes", PYA_TAINT_DATA },
		{ "read_text", PYA_TAINT_DATA }, { "readall", PYA_TAINT_DATA },
		{ "readline", PYA_TAINT_DATA }, { "readlines", PYA_TAINT_DATA },
		{ "recv", PYA_TAINT_NET }, { "recv_bytes", PYA_TAINT_NET },
		{ "recvfrom", PYA_TAINT_NET },
	};
	const char *dot = strrchr(q, '.');
	unsigned t;

	/* First letters of the methods (1) and of the names (2) below. */
	static const unsigned char first[256] = {
		['a'] = 3, ['b'] = 2, ['c'] = 3, ['f'] = 2, ['g'] = 3, ['h'] = 2, ['i'] = 2, ['j'] = 3,
		['o'] = 2, ['p'] = 2, ['r'] = 3, ['s'] = 2, ['t'] = 2, ['u'] = 2, ['w'] = 2,
	};

	if (dot && (first[(unsigned char)dot[1]] & 1) &&
	    (t = taint_of(methods, ARRAY_SIZE(methods), dot + 1)))
		return t;
	if (!(first[(unsigned char)q[0]] & 2))
		return 0;
	if ((t = taint_of(calls, ARRAY_SIZE(calls), q)))
		return t;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (prefixes[i].prefix[0] == q[0] &&
		    strncmp(q, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
			return prefixes[i].taint;
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

	if (v->taint & ~PYA_TAINT_SYSTEM)
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
