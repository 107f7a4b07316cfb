/* mai-agent keygen: makes the Ed25519 key that signs audit checkpoints. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "fileio.h"
#include "log.h"
#include "macro.h"
#include "note_sign.h"

static void keygen_usage(FILE *out)
{
	fprintf(out,
		"Usage: mai-agent keygen [--name NAME] [--log-dir DIR] [--force] KEYFILE [PUBFILE]\n"
		"\n"
		"Creates the Ed25519 key that signs the audit log's checkpoints.\n"
		"KEYFILE gets the private key (mode 0600); keep it outside the log\n"
		"directory and point signing_key in audit.yaml at it. PUBFILE (default\n"
		"KEYFILE.pub) gets the public key, which is also printed.\n"
		"\n"
		"Both are one line in the C2SP signed-note key formats (as Go's\n"
		"golang.org/x/mod/sumdb/note reads them):\n"
		"  private: PRIVATE+KEY+<name>+<key hash hex>+<base64(0x01 || seed)>\n"
		"  public:  <name>+<key hash hex>+<base64(0x01 || public key)>\n"
		"\n"
		"Options:\n"
		"  --name NAME     key name; use the origin from audit.yaml (default mai-agent)\n"
		"  --log-dir DIR   refuse to put the key inside this log directory\n"
		"  --force         replace an existing KEYFILE\n"
		"\n"
		"Exit status: 0 created; 2 bad arguments or the file cannot be written.\n");
}

/* True when path lies inside dir (both resolved; path need not exist yet). */
static int inside(const char *path, const char *dir)
{
	char rdir[PATH_MAX], rparent[PATH_MAX];
	_cleanup_free_ char *copy = xstrdup(path);
	char *slash = strrchr(copy, '/');
	const char *parent = slash ? (slash == copy ? "/" : (*slash = '\0', copy)) : ".";
	if (!realpath(dir, rdir) || !realpath(parent, rparent))
		return 0;
	size_t n = strlen(rdir);
	return strncmp(rparent, rdir, n) == 0 && (rparent[n] == '\0' || rparent[n] == '/');
}

int cmd_keygen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "log-dir", required_argument, NULL, 'l' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *name = "mai-agent", *log_dir = NULL;
	int force = 0, c;
	while ((c = getopt_long(argc, argv, "n:l:fh", opts, NULL)) != -1) {
		switch (c) {
		case 'n': name = optarg; break;
		case 'l': log_dir = optarg; break;
		case 'f': force = 1; break;
		case 'h': keygen_usage(stdout); return MAI_EXIT_OK;
		default: keygen_usage(stderr); return MAI_EXIT_USAGE;
		}
	}
	if (optind >= argc || argc - optind > 2) {
		log_errorx("keygen: give the private key file (and optionally the public key file); "
			   "see 'mai-agent keygen --help'");
		return MAI_EXIT_USAGE;
	}
	const char *key = argv[optind];
	_cleanup_free_ char *pub = argc - optind == 2 ? xstrdup(argv[optind + 1]) : xasprintf("%s.pub", key);
	if (log_dir && inside(key, log_dir)) {
		log_errorx("keygen: %s is inside the log directory %s; anyone who can write the log "
			   "could then sign it. Put the key elsewhere", key, log_dir);
		return MAI_EXIT_USAGE;
	}
	if (!force && access(key, F_OK) == 0) {
		log_errorx("keygen: %s exists; checkpoints signed with it would no longer verify with "
			   "a new key. Use --force to replace it", key);
		return MAI_EXIT_USAGE;
	}
	_cleanup_free_ char *priv = NULL, *vkey = NULL;
	if (note_keygen(name, &priv, &vkey) < 0) {
		log_errorx("keygen: '%s' is not a valid key name: C2SP signed notes take UTF-8 "
			   "without spaces, '+' or control characters (use the origin from audit.yaml)",
			   name);
		return MAI_EXIT_USAGE;
	}
	int r = fileio_write_atomic(key, priv, strlen(priv), 0600);
	explicit_bzero(priv, strlen(priv));
	if (r < 0) {
		log_errorx("keygen: cannot write %s: %s", key, strerror(-r));
		return MAI_EXIT_USAGE;
	}
	r = fileio_write_atomic(pub, vkey, strlen(vkey), 0644);
	if (r < 0) {
		log_errorx("keygen: cannot write %s: %s", pub, strerror(-r));
		return MAI_EXIT_USAGE;
	}
	fputs(vkey, stdout);
	log_info("private key %s (0600), public key %s", key, pub);
	return MAI_EXIT_OK;
}
