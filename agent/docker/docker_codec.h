/* The only place that builds or reads Docker JSON (jansson). Every reply is
 * checked for shape before use: a reply that is not what the API documents
 * gives DOCKER_ERR_PROTOCOL with *err (caller frees) saying what was wrong.
 * Parsed structs are freed with their *_clear() from docker_types.h. */
#ifndef MAI_DOCKER_CODEC_H
#define MAI_DOCKER_CODEC_H

#include "docker_error.h"
#include "docker_types.h"

/* The body of POST /containers/create; caller frees. */
char *docker_codec_create_body(const struct docker_create_params *p);
/* The body of POST /containers/ID/update for the limits that can change on
 * a running container; caller frees. */
char *docker_codec_update_body(int64_t memory_bytes, int64_t nano_cpus, int64_t pids_limit);
/* The body of POST /networks/create for an internal bridge network whose
 * bridge interface is named bridge; caller frees. */
char *docker_codec_network_create_body(const char *name, const char *bridge,
				       const struct docker_label *labels, size_t n_labels);
/* URL-ready (not yet escaped) value of ?filters= for a label match; caller frees. */
char *docker_codec_label_filter(const char *key, const char *value);

/* The "message" of an error reply, or the start of the raw body when it has
 * none. Always returns a string; caller frees. */
char *docker_codec_error_message(const char *body, size_t len);

enum docker_error docker_codec_parse_create(const char *body, size_t len, char **id, char **err);
/* The reply of POST /networks/create. */
enum docker_error docker_codec_parse_network_create(const char *body, size_t len, char **id,
						    char **err);
/* The reply of GET /networks/NAME. */
enum docker_error docker_codec_parse_network(const char *body, size_t len,
					     struct docker_network *out, char **err);
enum docker_error docker_codec_parse_wait(const char *body, size_t len, int64_t *status_code,
					  char **err);
enum docker_error docker_codec_parse_version(const char *body, size_t len,
					     struct docker_version *out, char **err);
enum docker_error docker_codec_parse_info(const char *body, size_t len, struct docker_info *out,
					  char **err);
enum docker_error docker_codec_parse_image(const char *body, size_t len, struct docker_image *out,
					   char **err);
enum docker_error docker_codec_parse_container(const char *body, size_t len,
					       struct docker_container_state *out, char **err);
enum docker_error docker_codec_parse_stats(const char *body, size_t len, struct docker_stats *out,
					   char **err);
enum docker_error docker_codec_parse_list(const char *body, size_t len, char ***ids, size_t *n,
					  char **err);

#endif
