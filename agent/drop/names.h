/* Names in the drop directory: which ones are scripts, which are the user's
 * answers to a held script, and which the agent ignores on purpose (and why).
 *
 * Decisions (docs/ARCHITECTURE.md "The files a user sees"):
 * - A script is a name ending in ".py" (lower case) with at least one
 *   character before it, that is not hidden.
 * - Ignored, with a reason for the debug log: hidden names (leading '.',
 *   which also covers the agent's and submit's own temporary files, vim's
 *   ".foo.py.swp" and the names "." and ".."), editor temporaries (vim's
 *   "4913" probe and ".swp"/".swo"/".swx" files, backups ending in '~',
 *   emacs lock files ".#foo.py" and autosaves "#foo.py#"), the agent's own
 *   sidecars (".result.json", ".audit", and temporaries of an atomic write
 *   "*.tmp.N", N a process or thread id), and anything else that is not ".py".
 * - "foo.approve" and "foo.override" are answers to the held "foo.py";
 *   "foo.rerun" asks for "foo.py" to run again as it is (a new job for
 *   content that has its answer already).
 * - Hostile but valid names (spaces, newlines, a leading dash, non-ASCII
 *   UTF-8) are scripts like any other: the agent never hands a name to a
 *   shell and always opens it relative to the drop directory. A ".py" name
 *   that is not valid UTF-8 is NAMES_BAD_NAME: it cannot be named faithfully
 *   in JSON, so the agent answers it with a "rejected" result that asks for
 *   a rename (the result names it with names_printable()). */
#ifndef MAI_NAMES_H
#define MAI_NAMES_H

#include <stdbool.h>

#include "macro.h"

enum names_kind {
	NAMES_SCRIPT,   /* foo.py: take it in */
	NAMES_APPROVE,  /* foo.approve: confirmation for foo.py */
	NAMES_OVERRIDE, /* foo.override: override for foo.py */
	NAMES_RERUN,    /* foo.rerun: run foo.py again as it is */
	NAMES_BAD_NAME, /* foo.py whose name is not valid UTF-8: reject it */
	NAMES_IGNORED,  /* see the reason */
};

enum names_reason {
	NAMES_REASON_NONE,      /* not ignored */
	NAMES_REASON_EMPTY,
	NAMES_REASON_HIDDEN,
	NAMES_REASON_VIM_PROBE,
	NAMES_REASON_VIM_SWAP,
	NAMES_REASON_BACKUP,
	NAMES_REASON_EMACS_LOCK,
	NAMES_REASON_EMACS_AUTOSAVE,
	NAMES_REASON_SIDECAR,
	NAMES_REASON_TEMPORARY,
	NAMES_REASON_NOT_PYTHON,
};

/* Classifies one path component. *reason is set for NAMES_IGNORED and
 * NAMES_REASON_NONE otherwise. reason may be NULL. */
enum names_kind names_classify(const char *name, enum names_reason *reason) _nonnull_(1);

const char *names_kind_to_string(enum names_kind k);
/* A phrase for the debug log: "hidden file", "vim swap file", ... */
const char *names_reason_to_string(enum names_reason r);

/* True when s is valid UTF-8 (no overlong forms, no surrogates). */
bool names_is_utf8(const char *s) _nonnull_(1);

/* The name with control characters, backslashes and invalid UTF-8 escaped
 * as \n, \t, \\ or \xNN: safe for one log line and for JSON. Caller frees. */
char *names_printable(const char *name) _nonnull_(1);

/* "foo.py" + ".result.json" -> "foo.result.json". name must be a script
 * (or any name: a missing ".py" suffix is kept whole). Caller frees. */
char *names_sidecar(const char *script, const char *suffix) _nonnull_(1, 2);

/* Whether the sidecars of script fit in a file name: its last component
 * without ".py" plus ".result.json" (the longest suffix) is at most
 * NAME_MAX (255) bytes, i.e. the script's own name at most 246. */
bool names_sidecar_fits(const char *script) _nonnull_(1);

/* The agent's sidecar of script (".result.json", ".audit"): names_sidecar()
 * when it fits, else a short stated name in the same directory, the first
 * NAMES_SHORT_PREFIX bytes of the name without ".py" (cut at a character
 * boundary), '~', and the first 16 hex digits of the SHA-256 of the
 * script's whole last component: "<prefix>~<16 hex>.result.json". Such a
 * script is rejected (name_too_long), and its answer goes there. Caller
 * frees. */
#define NAMES_SHORT_PREFIX 200
char *names_result_sidecar(const char *script, const char *suffix) _nonnull_(1, 2);

/* "foo.approve", "foo.override" or "foo.rerun" -> "foo.py"; NULL for any
 * other name. Caller frees. */
char *names_script_for_answer(const char *name) _nonnull_(1);

#endif
