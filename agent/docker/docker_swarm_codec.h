/* Swarm's JSON (jansson): the bodies of the create calls and the shape
 * checks of the replies, for docker_swarm.c. A reply that is not what API
 * 1.41 documents gives DOCKER_ERR_PROTOCOL with *err (caller frees). */
#ifndef MAI_DOCKER_SWARM_CODEC_H
#define MAI_DOCKER_SWARM_CODEC_H

#include "docker_swarm.h"

/* Bodies; caller frees. */
char *docker_swarm_codec_config_body(const char *name, const struct docker_label *labels,
				     size_t n_labels, const void *data, size_t len);
char *docker_swarm_codec_overlay_body(const char *name, const struct docker_label *labels,
				      size_t n_labels, bool internal);
char *docker_swarm_codec_service_body(const struct docker_service_params *p);

/* {"ID": ...} or {"Id": ...}: the reply of a create call. */
enum docker_error docker_swarm_codec_parse_id(const char *body, size_t len, const char *what,
					      char **id, char **err);
/* GET /info: whether this engine is an active swarm's manager, and its
 * node id ("" when it is not). */
enum docker_error docker_swarm_codec_parse_info(const char *body, size_t len, bool *manager,
						char **node_id, char **err);
enum docker_error docker_swarm_codec_parse_nodes(const char *body, size_t len,
						 const char *label_key,
						 struct docker_swarm_node **nodes, size_t *n,
						 char **err);
enum docker_error docker_swarm_codec_parse_tasks(const char *body, size_t len,
						 struct docker_swarm_task **tasks, size_t *n,
						 char **err);
/* From a service's inspect reply: its version (*version) and its spec with
 * the placement constraint DOCKER_SWARM_NO_NODE added (*spec, caller
 * frees), the body of the update that stops its tasks. */
enum docker_error docker_swarm_codec_stop_spec(const char *body, size_t len, int64_t *version,
					       char **spec, char **err);

#endif
