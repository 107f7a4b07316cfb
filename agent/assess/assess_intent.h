/* Intent that no single call shows: shapes made of several events of one
 * file (a reverse shell: a socket, its descriptor duplicated onto the
 * standard ones, a program started), reported as special events that the
 * rules weigh like any other (`special: [reverse-shell]`, ...). */
#ifndef MAI_ASSESS_INTENT_H
#define MAI_ASSESS_INTENT_H

#include "pyanalyze.h"

/* Where one part of a shape was first seen (line 0: not seen). */
struct assess_intent_mark {
	unsigned line, col;
};

/* What the events of one file showed so far; zero it before the first. */
struct assess_intent {
	struct assess_intent_mark socket, dup2, process, download, run, anti_analysis,
		registry_write, run_key, startup_name, file_write, secret_name, net_send, decoder,
		exec_unknown, home, delete_unknown;
};

/* Notes what ev adds to the shapes. Cheap for the events that add
 * nothing (most calls and strings). */
void assess_intent_event(struct assess_intent *in, const struct pya_event *ev);
/* Reports the shapes that are complete as special events to fn:
 * "reverse-shell", "download-run", "anti-analysis", "persistence",
 * "secret-store", "decode-exec" for a decoder and an exec of a value the
 * analyzer cannot follow in the same file, and "delete-home" for the home
 * directory named ("~") and a delete of a path the analyzer cannot follow
 * (a helper's parameter). */
void assess_intent_finish(const struct assess_intent *in, pya_event_fn fn, void *ctx);

#endif
