/*
** kf_opts.c - readers of an options node (the Lua opts table's shape)
** shared by the envelope builders (kf_template.c, kf_interface.c): below
** both, calling neither.
*/
#include <string.h>

#include "kf_job.h"
#include "kf_template.h"

/* Option strings become proto3 strings: no NUL bytes, valid UTF-8. */
const char *kf_opt_bad_text(const kf_node *v) {
  if (v->u.s.n > KF_MAX_STRING) return "string longer than the limit of 1 MiB";
  if (strlen(v->u.s.p) != v->u.s.n) return "string contains a NUL byte";
  if (!kf_utf8_ok(v->u.s.p, v->u.s.n)) return "invalid UTF-8";
  return NULL;
}

kf_status kf_opt_string(const kf_node *o, const char *key, const char *path,
                            const char **out, const char *who, kf_err *e) {
  const kf_node *v = kf_node_get(o, key);
  if (v == NULL) return KF_OK;
  if (v->t != KF_NSTR)
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: expected a string", who, path,
                   key);
  if (kf_opt_bad_text(v))
    return kf_fail(e, KF_EINVAL, "%s: opts.%s%s: %s", who, path, key,
                   kf_opt_bad_text(v));
  *out = v->u.s.p;
  return KF_OK;
}

kf_status kf_opt_check_known(const kf_node *o, const char *path,
                             const char *const *known, const char *who,
                             kf_err *e) {
  size_t i, j;
  if (o->t != KF_NOBJ && !(o->t == KF_NARR && o->u.c.n == 0))
    return kf_fail(e, KF_EINVAL, "%s: opts.%s: expected a table", who, path);
  for (i = 0; o->t == KF_NOBJ && i < o->u.c.n; i++) {
    for (j = 0; known[j]; j++)
      if (strcmp(known[j], o->u.c.k[i]) == 0) break;
    if (!known[j]) {
      const char *s = kf_suggest(o->u.c.k[i], known);
      return kf_fail(e, KF_EINVAL, "%s: opts.%s.%s: unknown option%s%s%s", who, path,
                     o->u.c.k[i], s ? " (did you mean '" : "", s ? s : "",
                     s ? "'?)" : "");
    }
  }
  return KF_OK;
}
