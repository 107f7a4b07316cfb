/* The codec's own helpers (docker_codec.c), shared with the codec of Swarm's
 * objects (docker_swarm_codec.c), so that both read replies alike: a
 * missing optional field keeps its default, a field of the wrong type is an
 * error; the int-returning helpers give 0 or -1 after setting *err. For the
 * docker folder only. */
#ifndef MAI_DOCKER_CODEC_FIELDS_H
#define MAI_DOCKER_CODEC_FIELDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "docker_error.h"
#include "docker_types.h"

/* Sets *err to "unexpected Docker reply to WHAT: FIELD EXPECTED ...". */
enum docker_error docker_codec_shape_error(char **err, const char *what, const char *field,
					   const char *expected);
/* The reply as JSON, NULL (with *err) when it is not JSON / not an object /
 * not an array. */
json_t *docker_codec_load(const char *body, size_t len, const char *what, char **err);
json_t *docker_codec_load_object(const char *body, size_t len, const char *what, char **err);
json_t *docker_codec_load_array(const char *body, size_t len, const char *what, char **err);
int docker_codec_get_string(json_t *obj, const char *key, bool required, char **out,
			    const char *what, char **err);
int docker_codec_get_int(json_t *obj, const char *key, bool required, int64_t *out,
			 const char *what, char **err);
int docker_codec_get_bool(json_t *obj, const char *key, bool required, bool *out,
			  const char *what, char **err);
/* The object at key; NULL when absent and not required, or (with *err) of
 * another type. */
json_t *docker_codec_get_object(json_t *obj, const char *key, bool required, const char *what,
				char **err);
json_t *docker_codec_strv(const char *const *v);
json_t *docker_codec_labels(const struct docker_label *labels, size_t n);
/* {"Name", "Soft", "Hard"} with soft = hard = value. */
json_t *docker_codec_ulimit(const char *name, int64_t value);
/* Appends to ulimits the per-uid kernel quotas that are set (> 0):
 * sigpending, msgqueue, memlock. */
void docker_codec_quota_ulimits(json_t *ulimits, int64_t sigpending, int64_t msgqueue_bytes,
				int64_t memlock_bytes);
/* The string member key of every object of a JSON array reply. */
enum docker_error docker_codec_parse_ids(const char *body, size_t len, const char *key,
					 const char *what, char ***ids, size_t *n, char **err);

#endif
