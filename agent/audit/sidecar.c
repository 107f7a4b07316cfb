#include "sidecar.h"

#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "audit.h"
#include "audit_format.h"
#include "audit_internal.h"
#include "audit_reader.h"
#include "checkpoint.h"
#include "fileio.h"
#include "hash.h"
#include "macro.h"

int audit_sidecar_render(struct audit_log *log, const uint64_t *seqs, size_t n, char **out,
			 size_t *out_len, struct audit_sidecar_info *pos)
{
	_cleanup_free_ char *note = NULL;
	uint64_t size;
	int r = audit_checkpoint_sign(log, &note, &size);
	if (r < 0)
		return r;
	if (pos) {
		pos->checkpoint_size = size;
		pos->entry_hash[0] = '\0';
	}

	_cleanup_free_ struct audit_proof *proofs = xcalloc(n ? n : 1, sizeof(*proofs));
	if ((r = audit_inclusion_proofs(log, seqs, n, size, proofs)) < 0)
		return r;
	struct audit_reader *rd = NULL;
	_cleanup_free_ char *rerr = NULL;
	if ((r = audit_reader_open(audit_log_dir(log), &rd, &rerr)) < 0)
		return r;
	json_t *records = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *proof = json_array();
		for (size_t j = 0; j < proofs[i].n; j++) {
			char hex[65];
			hash_to_hex(proofs[i].path[j], MERKLE_HASH_LEN, hex);
			json_array_append_new(proof, json_string(hex));
		}
		char *line = NULL;
		size_t len = 0;
		r = audit_reader_get(rd, seqs[i], &line, &len);
		if (r < 0) {
			json_decref(proof);
			json_decref(records);
			audit_reader_close(rd);
			return r;
		}
		json_array_append_new(records, json_pack("{s:I, s:s%, s:o}", "seq", (json_int_t)seqs[i],
							 "record", line, len, "proof", proof));
		/* A line starts with its entry hash (audit_format.h). */
		if (pos && i + 1 == n && len >= 64)
			snprintf(pos->entry_hash, sizeof(pos->entry_hash), "%.64s", line);
		free(line);
	}
	audit_reader_close(rd);
	json_t *doc = json_pack("{s:s, s:s, s:o}", "format", SIDECAR_FORMAT, "checkpoint", note,
				"records", records);
	_cleanup_free_ char *text = json_dumps(doc, JSON_INDENT(1) | JSON_SORT_KEYS);
	json_decref(doc);
	*out_len = strlen(text) + 1;
	*out = xasprintf("%s\n", text);
	return 0;
}

int audit_sidecar_write(struct audit_log *log, const uint64_t *seqs, size_t n, const char *path,
			struct audit_sidecar_info *pos)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = audit_sidecar_render(log, seqs, n, &text, &len, pos);
	return r < 0 ? r : fileio_write_atomic(path, text, len, 0644);
}

static int bad(char **err, const char *what)
{
	*err = xstrdup(what);
	return -EBADMSG;
}

int sidecar_parse(const char *text, size_t len, struct sidecar *out, char **err)
{
	memset(out, 0, sizeof(*out));
	json_error_t je;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		*err = xasprintf("not JSON: line %d column %d: %s", je.line, je.column, je.text);
		return -EBADMSG;
	}
	int r = 0;
	const char *format = json_string_value(json_object_get(doc, "format"));
	const char *ck = json_string_value(json_object_get(doc, "checkpoint"));
	json_t *recs = json_object_get(doc, "records");
	if (!format || strcmp(format, SIDECAR_FORMAT) != 0)
		r = bad(err, "not a Mai audit sidecar (\"format\" is not " SIDECAR_FORMAT ")");
	else if (!ck)
		r = bad(err, "sidecar has no \"checkpoint\"");
	else if (!json_is_array(recs) || json_array_size(recs) == 0 || json_array_size(recs) > 100000)
		r = bad(err, "sidecar \"records\" must be a non-empty array");
	if (r < 0) {
		json_decref(doc);
		return r;
	}
	out->checkpoint = xstrdup(ck);
	out->n = json_array_size(recs);
	out->records = xcalloc(out->n, sizeof(*out->records));
	for (size_t i = 0; i < out->n && r == 0; i++) {
		json_t *rec = json_array_get(recs, i);
		json_t *seq = json_object_get(rec, "seq"), *line = json_object_get(rec, "record");
		json_t *proof = json_object_get(rec, "proof");
		struct sidecar_record *sr = &out->records[i];
		if (!json_is_integer(seq) || json_integer_value(seq) < 0 || !json_is_string(line) ||
		    !json_is_array(proof) || json_array_size(proof) > MERKLE_MAX_PROOF) {
			*err = xasprintf("sidecar record %zu: needs \"seq\", \"record\" and \"proof\"", i);
			r = -EBADMSG;
			break;
		}
		sr->seq = (uint64_t)json_integer_value(seq);
		sr->line_len = json_string_length(line);
		sr->line = xstrndup(json_string_value(line), sr->line_len);
		sr->proof_n = json_array_size(proof);
		for (size_t j = 0; j < sr->proof_n; j++) {
			const char *h = json_string_value(json_array_get(proof, j));
			if (!h || hash_from_hex(h, sr->proof[j], MERKLE_HASH_LEN) < 0) {
				*err = xasprintf("sidecar record %zu: proof step %zu is not a hex hash", i, j);
				r = -EBADMSG;
				break;
			}
		}
	}
	json_decref(doc);
	if (r < 0)
		sidecar_clear(out);
	return r;
}

void sidecar_clear(struct sidecar *sc)
{
	for (size_t i = 0; i < sc->n; i++)
		free(sc->records[i].line);
	free(sc->records);
	free(sc->checkpoint);
	memset(sc, 0, sizeof(*sc));
}
