/*
** kf_yaml.h - value trees as YAML text (libyaml's emitter).
*/
#ifndef KF_YAML_H
#define KF_YAML_H

#include "kf_core.h"

/* Nodes -> a YAML stream, one document each (block style, keys in node
** order, strings that a YAML 1.1 or 1.2 reader would take for a number,
** boolean, null or timestamp double-quoted).  `indent` 2..9. */
kf_status kf_yaml(const kf_node *const *docs, size_t n, int indent,
                  kf_buf *out, kf_err *e);

#endif
