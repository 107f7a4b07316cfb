/* What a container runs and reads (sandbox_bootstrap.c): the bootstrap
 * program, its stdin for a job, and the end marker it writes last. */
#ifndef MAI_SANDBOX_BOOTSTRAP_H
#define MAI_SANDBOX_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox_attach.h"
#include "sandbox_job.h"

/* Run as python3 -I -u -B -c; reads the job from stdin (sandbox_job_input)
 * and writes the end marker when the interpreter exits (sandbox_attach.h). */
extern const char sandbox_bootstrap[];

#define SANDBOX_NONCE_LEN 32
/* A fresh nonce (hex) and the end marker the bootstrap writes with it. */
void sandbox_end_marker(char nonce[SANDBOX_NONCE_LEN + 1], char marker[SANDBOX_MARKER_MAX + 1]);
/* The bootstrap's stdin for the job (caller frees; *len its length); spec
 * the dependencies' JSON or NULL. */
uint8_t *sandbox_job_input(const struct sandbox_job *job, const char *spec, const char *nonce,
			   size_t *len);

#endif
