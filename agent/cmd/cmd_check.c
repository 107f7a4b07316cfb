/* mai-agent check FILE|DIR...: assess Python files without running them. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#include "assess.h"
#include "assess_external.h"
#include "assess_sarif.h"
#include "cmd.h"
#include "follow.h"
#include "config.h"
#include "fileio.h"
#include "log.h"
#include "names.h"
#include "ordered_pool.h"

/* Exit statuses of check, by the highest level among the files. */
enum {
	CHECK_EXIT_LOW = 0,
	CHECK_EXIT_MEDIUM = 10,
	CHECK_EXIT_HIGH = 11,
	CHECK_EXIT_BLOCKED = 12,
};

/* Larger files are refused as the daemon's intake would refuse them. */
#define CHECK_MAX_FILE (256u * 1024 * 1024)

/* Default and largest --jobs: a few threads saturate the CPUs; more only
 * add memory (each has files in flight and its own malloc arena). */
#define CHECK_JOBS_DEFAULT_MAX 8u
#define CHECK_JOBS_MAX 64u

enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_SARIF };
/* Whether the text format quotes the source line under each finding. */
enum context { CONTEXT_AUTO, CONTEXT_ALWAYS, CONTEXT_NEVER };

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent check [--format text|json|sarif] [--config-dir DIR] [--native-only]\n"
		"                       [--jobs N] [--context auto|always|never] FILE|DIR...\n"
		"\n"
		"Assesses Python files without running them: findings, metrics and a level\n"
		"(LOW, MEDIUM, HIGH, BLOCKED) per file, as the agent would before a run.\n"
		"Bandit and Semgrep add their findings when installed and enabled; a\n"
		"note says when one is missing or timed out.\n"
		"Directories are searched for *.py files (symbolic links are not followed).\n"
		"\n"
		"Options:\n"
		"  -f, --format FMT     text (default): compiler-style lines\n"
		"                       FILE:LINE:COL: error|warning|note: MESSAGE [RULE]\n"
		"                       (error: HIGH or CRITICAL finding, warning: MEDIUM,\n"
		"                       note: LOW) that vim's quickfix (:compiler gcc) and\n"
		"                       emacs' compilation mode read, then one summary line\n"
		"                       per file; json (one object per file; a name that is\n"
		"                       not UTF-8 is escaped, with path_escaped: true); or\n"
		"                       sarif (SARIF 2.1.0 for code scanning, paths\n"
		"                       relative to the current directory)\n"
		"      --context WHEN   quote the source line and a caret under each finding:\n"
		"                       auto (default: when the output is a terminal), always\n"
		"                       or never. A quoted line of code can look like a\n"
		"                       location to an editor, so pipes get none by default\n"
		"  -c, --config-dir DIR read DIR/security.yaml (rules, thresholds); default\n"
		"                       $MAI_CONFIG_DIR, else %s; the built-in rules\n"
		"                       alone when the directory has no security.yaml\n"
		"  -n, --native-only    do not run Bandit or Semgrep even when security.yaml\n"
		"                       enables them (analyzers.bandit.enabled, ...)\n"
		"  -j, --jobs N         assess N files at a time (1 to %u; default: the\n"
		"                       CPUs this process may use, at most %u); the output\n"
		"                       is the same, in the same order, for every N\n"
		"  -h, --help           this help\n"
		"\n"
		"Exit status: 0 every file is LOW; 10 the worst is MEDIUM; 11 HIGH;\n"
		"12 BLOCKED (a rejected file, e.g. invalid UTF-8, is BLOCKED);\n"
		"2 usage error or a file that cannot be read; 3 invalid security.yaml.\n",
		CONFIG_DEFAULT_DIR, CHECK_JOBS_MAX, CHECK_JOBS_DEFAULT_MAX);
}

struct check_files {
	char **v;
	size_t n, cap;
};

static void files_add(struct check_files *f, char *path)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 16;
		f->v = xrealloc(f->v, f->cap * sizeof(char *));
	}
	f->v[f->n++] = path;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collects *.py under dir, sorted, depth-first without following links. */
static int collect_dir(const char *dir, struct check_files *out, int depth)
{
	DIR *d;
	struct dirent *e;
	struct check_files here = { 0 };

	if (depth > 64)
		return 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (lstat(p, &st) < 0 || !(S_ISDIR(st.st_mode) ||
					   (S_ISREG(st.st_mode) && strlen(e->d_name) > 3 &&
					    !strcmp(e->d_name + strlen(e->d_name) - 3, ".py")))) {
			free(p);
			continue;
		}
		files_add(&here, p);
	}
	closedir(d);
	if (here.n)
		qsort(here.v, here.n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < here.n; i++) {
		struct stat st;
		if (lstat(here.v[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			collect_dir(here.v[i], out, depth + 1);
			free(here.v[i]);
		} else {
			files_add(out, here.v[i]);
		}
	}
	free(here.v);
	return 0;
}

/* Prints one line of the source and a caret under the column, as gcc does
 * ("  12 | code" and "     |   ^"). */
static void print_context(const char *data, size_t len, unsigned line, unsigned col)
{
	const char *p = data, *end = data + len;
	for (unsigned l = 1; l < line && p < end; l++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return;
		p = nl + 1;
	}
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);
	if (n > 0 && p[n - 1] == '\r')
		n--;
	if (n > 300)
		n = 300; /* a 10 MB line is not shown whole */
	int w = printf("%5u | ", line) - 2;
	printf("%.*s\n%*s| ", (int)n, p, w, "");
	unsigned c = 1;
	for (size_t i = 0; i < n && c < col; i++) {
		if (((unsigned char)p[i] & 0xC0) == 0x80)
			continue;
		putchar(p[i] == '\t' ? '\t' : ' ');
		c++;
	}
	printf("^\n");
}

/* The compiler's word for a finding of this severity: what editors type
 * an entry by. */
static const char *text_kind(enum assess_severity s)
{
	return s >= ASSESS_SEV_HIGH ? "error" : s == ASSESS_SEV_MEDIUM ? "warning" : "note";
}

/* Where a rejected file's first bad byte is: line and column (code points). */
static void offset_position(const char *data, size_t len, size_t offset, unsigned *line,
			    unsigned *col)
{
	size_t start = 0;
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < offset && i < len; i++)
		if (data[i] == '\n')
			(*line)++, start = i + 1;
	for (size_t i = start; i < offset && i < len; i++)
		*col += ((unsigned char)data[i] & 0xC0) != 0x80;
}

/* One location line per finding, "FILE:LINE:COL: KIND: MESSAGE [RULE]"; then
 * the notes and one summary line per file, in a form no compile-output parser
 * takes for a location (no line number after the file name). */
static void print_text(const char *path, const char *data, size_t len, const struct assess_result *r,
		       int context)
{
	if (r->rejection) {
		unsigned line, col;
		offset_position(data, len, r->rejection_offset, &line, &col);
		printf("%s:%u:%u: error: rejected at byte %zu: %s; the file is BLOCKED and not assessed [MAI900]\n",
		       path, line, col, r->rejection_offset, r->rejection);
	}
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct assess_finding *f = &r->findings[i];
		int both = f->bandit_id && strcmp(f->bandit_id, f->rule_id) != 0;
		const char *origin = assess_origin_describe(f->origin);
		printf("%s:%u:%u: %s: %s%s%s%s [%s%s%s]\n", path, f->line ? f->line : 1,
		       f->col ? f->col : 1, text_kind(f->severity), f->message,
		       origin ? " (arguments: " : "", origin ? origin : "", origin ? ")" : "",
		       f->rule_id, both ? "/" : "", both ? f->bandit_id : "");
		if (context)
			print_context(data, len, f->line, f->col);
	}
	for (size_t i = 0; i < r->n_notes; i++)
		printf("%s: note: %s\n", path, r->notes[i]);
	printf("%s: level %s, score %.1f, %zu finding%s, %zu lines\n", path,
	       level_to_string(r->level), r->score, r->n_findings,
	       r->n_findings == 1 ? "" : "s", r->metrics.lines);
}

/* One file between its assessment (a worker thread) and its output (the
 * calling thread, in the order of the file list). */
struct check_slot {
	char *data;
	size_t len;
	int read_error;       /* -errno from reading the file, or 0 */
	struct assess_result res;
};

struct check_run {
	const struct check_files *files;
	const struct assess_rules *rules;
	const struct mai_config *cfg;
	int native_only;
	enum format format;
	int context;              /* text: quote source lines */
	struct check_slot *slots; /* indexed by file % window */
	size_t window;
	/* Output side, touched by check_done only. */
	enum level worst;
	int unreadable;
	size_t json_items;        /* elements of the JSON array printed */
	struct assess_sarif sarif;
};

/* Reads and assesses one file; runs on a worker thread. */
static void check_work(void *p, size_t i)
{
	struct check_run *run = p;
	struct check_slot *sl = &run->slots[i % run->window];
	const char *path = run->files->v[i];

	memset(sl, 0, sizeof(*sl));
	sl->read_error = fileio_read_path(path, CHECK_MAX_FILE, &sl->data, &sl->len);
	if (sl->read_error < 0)
		return;
	const uint8_t *data = (const uint8_t *)sl->data;
	struct assess_result *res = &sl->res;
	assess_with_analyzers(run->rules, run->native_only ? NULL : &run->cfg->security.analyzers,
			      NULL, path, data, sl->len, res);
}

/* Prints one element of the --format json array exactly as json_dumpf()
 * of the whole array would: the array is streamed, so output starts while
 * files are still being assessed and only one file's JSON is held. */
static void print_json_element(const json_t *j, int first)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_ENSURE_ASCII);

	fputs(first ? "[\n  " : ",\n  ", stdout);
	for (const char *p = s, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl) {
			fputs(p, stdout);
			break;
		}
		fwrite(p, 1, (size_t)(nl - p) + 1, stdout);
		fputs("  ", stdout); /* one level deeper inside the array */
	}
	free(s);
}

/* Prints one assessed file and frees what it held; in file order. */
static void check_done(void *p, size_t i)
{
	struct check_run *run = p;
	struct check_slot *sl = &run->slots[i % run->window];
	const char *path = run->files->v[i];
	struct assess_result *res = &sl->res;

	if (sl->read_error < 0) {
		const char *why = sl->read_error == -EFBIG ? "larger than 256 MiB"
				: sl->read_error == -EINVAL ? "not a regular file"
				: strerror(-sl->read_error);
		log_errorx("%s: cannot read: %s", path, why);
		if (run->format == FORMAT_SARIF)
			assess_sarif_add_unreadable(&run->sarif, path, why);
		run->unreadable = 1;
		return;
	}
	if (res->level > run->worst)
		run->worst = res->level;
	if (run->format == FORMAT_TEXT) {
		print_text(path, sl->data, sl->len, res, run->context);
	} else if (run->format == FORMAT_JSON) {
		json_t *j = assess_result_to_json(res);
		if (names_is_utf8(path)) {
			json_object_set_new(j, "path", json_string(path));
		} else { /* JSON strings are UTF-8: escaped, and said so */
			_cleanup_free_ char *printable = names_printable(path);
			json_object_set_new(j, "path", json_string(printable));
			json_object_set_new(j, "path_escaped", json_true());
		}
		print_json_element(j, run->json_items++ == 0);
		json_decref(j);
	} else {
		assess_sarif_add(&run->sarif, path, sl->data, sl->len, res);
	}
	assess_result_clear(res);
	free(sl->data);
	sl->data = NULL;
}

static int load_rules(const char *config_dir, struct assess_rules **rules,
		      struct mai_config **cfg, int native_only)
{
	_cleanup_free_ char *dir = NULL, *err = NULL, *path = NULL;
	struct stat st;

	if (follow_config_dir(config_dir, &dir, &err) < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
	/* The whole configuration, for the analyzers' settings; it also
	 * reports any bad key of security.yaml with its position. Not needed
	 * (and not paid for) when only the native analyzer runs. */
	if (native_only)
		goto rules;
	enum log_level saved = log_get_level();
	if (saved > LOG_LEVEL_WARN)
		log_set_level(LOG_LEVEL_WARN); /* "file not found: defaults" is noise here */
	int r = config_load(dir, cfg, &err);
	log_set_level(saved);
	if (r < 0) {
		log_errorx("%s", err);
		return MAI_EXIT_CONFIG;
	}
rules:
	path = xasprintf("%s/security.yaml", dir);
	if (stat(path, &st) < 0 && errno == ENOENT) { /* like the config loader: defaults */
		free(path);
		path = NULL;
	}
	if (assess_rules_load(path, rules, &err) < 0) {
		log_errorx("%s; fix the file or check it with 'mai-agent config check'", err);
		return MAI_EXIT_CONFIG;
	}
	if (*cfg)
		assess_rules_set_max_findings(*rules, (size_t)(*cfg)->security.max_findings);
	return 0;
}

/* The index of arg in names (NULL-terminated, in the order of the enum it
 * stands for), or -1 after saying what --option expects. */
static int choice(const char *option, const char *arg, const char *const names[],
		  const char *expected)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg, names[i]))
			return i;
	log_errorx("unknown --%s '%s'; use %s", option, arg, expected);
	return -1;
}

int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "config-dir", required_argument, NULL, 'c' },
		{ "native-only", no_argument, NULL, 'n' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "context", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum format format = FORMAT_TEXT;
	enum context context = CONTEXT_AUTO;
	const char *config_dir = NULL;
	struct assess_rules *rules = NULL;
	struct check_files files = { 0 };
	struct mai_config *cfg = NULL;
	int c, rc = 0, unreadable = 0, native_only = 0;
	unsigned jobs = 0;

	while ((c = getopt_long(argc, argv, "f:c:nj:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': {
			static const char *const names[] = { "text", "json", "sarif", NULL };
			int i = choice("format", optarg, names, "text, json or sarif");
			if (i < 0)
				return MAI_EXIT_USAGE;
			format = (enum format)i;
			break;
		}
		case 'c':
			config_dir = optarg;
			break;
		case 'C': {
			static const char *const names[] = { "auto", "always", "never", NULL };
			int i = choice("context", optarg, names, "auto, always or never");
			if (i < 0)
				return MAI_EXIT_USAGE;
			context = (enum context)i;
			break;
		}
		case 'n':
			native_only = 1;
			break;
		case 'j': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !optarg[0] || v < 1 || v > CHECK_JOBS_MAX) {
				log_errorx("bad --jobs '%s'; use a number from 1 to %u", optarg,
					   CHECK_JOBS_MAX);
				return MAI_EXIT_USAGE;
			}
			jobs = (unsigned)v;
			break;
		}
		case 'h':
			usage(stdout);
			return MAI_EXIT_OK;
		default:
			usage(stderr);
			return MAI_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		log_errorx("check needs at least one FILE or DIR; see 'mai-agent check --help'");
		return MAI_EXIT_USAGE;
	}
	rc = load_rules(config_dir, &rules, &cfg, native_only);
	if (rc) {
		config_free(cfg);
		return rc;
	}
	for (int i = optind; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			int r = collect_dir(argv[i], &files, 0);
			if (r < 0) {
				log_errorx("%s: cannot read the directory: %s", argv[i], strerror(-r));
				unreadable = 1;
			}
		} else {
			files_add(&files, xstrdup(argv[i]));
		}
	}
	struct check_run run = { .files = &files, .rules = rules, .cfg = cfg,
				 .native_only = native_only, .format = format, .worst = LEVEL_LOW,
				 .context = context == CONTEXT_ALWAYS ||
					    (context == CONTEXT_AUTO && isatty(STDOUT_FILENO)) };
	if (format == FORMAT_SARIF) {
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		const struct config_analyzers *a = cfg ? &cfg->security.analyzers : NULL;
		assess_sarif_init(&run.sarif, cwd ? cwd : "/", a && a->bandit.enabled,
				  a && a->semgrep.enabled);
		const struct config_analyzer *tools[] = { [ASSESS_SARIF_BANDIT] = a ? &a->bandit : NULL,
							  [ASSESS_SARIF_SEMGREP] = a ? &a->semgrep : NULL };
		for (int t = ASSESS_SARIF_BANDIT; t <= ASSESS_SARIF_SEMGREP; t++) {
			if (!tools[t] || !tools[t]->enabled)
				continue;
			_cleanup_free_ char *v = assess_external_version(tools[t]->path,
									 (unsigned)tools[t]->timeout_ms);
			assess_sarif_set_version(&run.sarif, (enum assess_sarif_tool)t, v);
		}
	}
	if (!jobs)
		jobs = ordered_pool_cpus(CHECK_JOBS_DEFAULT_MAX);
	/* Two files per thread in flight: one being assessed, one waiting to
	 * be printed; memory stays a few files whatever the tree. */
	size_t window = 2 * (size_t)jobs;
	run.slots = xcalloc(window, sizeof(*run.slots));
	run.window = window;
	ordered_pool_run(files.n, jobs, window, check_work, check_done, &run);
	free(run.slots);
	unreadable |= run.unreadable;
	if (format == FORMAT_JSON)
		fputs(run.json_items ? "\n]\n" : "[]\n", stdout);
	if (format == FORMAT_SARIF) {
		json_t *doc = assess_sarif_finish(&run.sarif);
		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		putchar('\n');
		json_decref(doc);
	}
	fflush(stdout);
	for (size_t i = 0; i < files.n; i++)
		free(files.v[i]);
	free(files.v);
	assess_rules_free(rules);
	config_free(cfg);
	if (unreadable)
		return MAI_EXIT_USAGE;
	static const int by_level[] = { CHECK_EXIT_LOW, CHECK_EXIT_MEDIUM, CHECK_EXIT_HIGH,
					CHECK_EXIT_BLOCKED };
	return by_level[run.worst];
}
