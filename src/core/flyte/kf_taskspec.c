/*
** kf_taskspec.c - flyteidl.admin.TaskSpec, the file `flytectl register
** files` reads from a pyflyte package (SPEC 3.4): the TaskTemplate of
** kf_template.c with metadata and interface always set, and the
** description entity when a description is given.  Lua-free.
*/
#include <string.h>

#include "kf_job.h"
#include "kf_pb.h"
#include "kf_json.h"
#include "kf_template.h"
#include "kf_wire.h"
#include "flyteidl/admin/task.pb-c.h"
#include "flyteidl/admin/description_entity.pb-c.h"

static kf_status description(kf_arena *A, const char *text,
                             Flyteidl__Admin__DescriptionEntity **out, kf_err *e) {
  Flyteidl__Admin__DescriptionEntity *d;
  *out = NULL;
  if (text == NULL || text[0] == '\0') return KF_OK;
  if ((d = kf_arena_alloc(A, sizeof *d)) == NULL) return kf_nomem(e);
  flyteidl__admin__description_entity__init(d);
  d->short_description = (char *)text;
  *out = d;
  return KF_OK;
}

/* flyteadmin's CreateTask compiles the task (flytepropeller task_compiler.go
** validateContainerCommand): a container task whose interface has inputs or
** outputs needs a command or args to run them with. */
static kf_status check_command(const Flyteidl__Core__TaskTemplate *t,
                               const char *who, kf_err *e) {
  const Flyteidl__Core__TypedInterface *in = t->interface;
  const Flyteidl__Core__Container *c = t->container;
  int vars = in && ((in->inputs && in->inputs->n_variables) ||
                    (in->outputs && in->outputs->n_variables));
  if (c == NULL || !vars || c->n_command || c->n_args) return KF_OK;
  return kf_fail(e, KF_EINVAL, "%s: opts.container.args: neither command nor args, "
                 "but the interface has inputs or outputs: flyteadmin refuses the task "
                 "(a container task needs a command to run them; flytepropeller "
                 "task_compiler.go validateContainerCommand)", who);
}

kf_status kf_task_spec(const kf_job *j, const kf_encopts *o, const kf_node *opts,
                       kf_arena *A, Flyteidl__Admin__TaskSpec **out,
                       const char *who, kf_err *e) {
  Flyteidl__Admin__TaskSpec *s = kf_arena_alloc(A, sizeof *s);
  Flyteidl__Core__TaskTemplate *t;
  const char *desc = NULL;
  kf_status st;
  if (s == NULL) return kf_nomem(e);
  flyteidl__admin__task_spec__init(s);
  if ((st = kf_template_build(j, o, opts, 1, A, &t, NULL, &desc, who, e)) ||
      (st = check_command(t, who, e)) ||
      (st = description(A, desc, &s->description, e)))
    return st;
  s->template_ = t;
  *out = s;
  return KF_OK;
}

kf_status kf_task_spec_bytes(const kf_job *j, const kf_encopts *o,
                             const kf_node *opts, kf_arena *A, kf_buf *out,
                             const char *who, kf_err *e) {
  Flyteidl__Admin__TaskSpec tail;
  Flyteidl__Core__TaskTemplate *t;
  kf_node *custom = NULL;
  const char *desc = NULL;
  kf_buf tb;
  uint8_t hdr[11];
  size_t n;
  kf_status st;
  if ((st = kf_template_build(j, o, opts, 1, A, &t, &custom, &desc, who, e)) ||
      (st = check_command(t, who, e)))
    return st;
  /* template (1): its bytes framed by hand, then the description (2) */
  kf_buf_init(&tb, A->a);
  if ((st = kf_template_pack(t, custom, A, &tb, e)) == KF_OK) {
    hdr[0] = 0x0a;   /* field 1, length-delimited */
    n = (size_t)(kf_varint_put(hdr + 1, tb.n) - hdr);
    if (!kf_buf_add(out, (const char *)hdr, n) || !kf_buf_add(out, tb.p, tb.n))
      st = kf_nomem(e);
  }
  kf_buf_free(&tb);
  if (st) return st;
  flyteidl__admin__task_spec__init(&tail);
  if ((st = description(A, desc, &tail.description, e))) return st;
  return kf_msg_pack_into(&tail.base, A, out, e);
}

kf_status kf_decode_task_spec(const char *p, size_t n, int kind, kf_arena *A,
                              kf_job *j, kf_node **info, const char *who,
                              kf_err *e) {
  Flyteidl__Admin__TaskSpec *s = NULL;
  Flyteidl__Core__TaskTemplate *t;
  kf_node *x;
  kf_status st;
  if ((st = kf_envelope_read(p, n, &flyteidl__admin__task_spec__descriptor, A,
                             (ProtobufCMessage **)&s, who, e)))
    return st;
  if ((t = s->template_) == NULL)
    return kf_fail(e, KF_EINVAL, "%s: template: missing (a TaskSpec without a "
                   "TaskTemplate)", who);
  if ((st = kf_template_to_job(t, kind, A, j, info, who, e))) return st;
  if (t->interface) {
    if ((x = kf_interface_node(A, t->interface)) == NULL ||
        !kf_node_push(A, *info, "interface", x))
      return kf_nomem(e);
  }
  if (t->metadata || s->description) {
    const char *d = s->description ? s->description->short_description : NULL;
    if ((x = kf_metadata_node(A, t->metadata, d)) == NULL ||
        !kf_node_push(A, *info, "metadata", x))
      return kf_nomem(e);
  }
  if (t->metadata && t->metadata->runtime) {
    const Flyteidl__Core__RuntimeMetadata *r = t->metadata->runtime;
    if ((x = kf_obj_add(A, *info, "runtime", KF_NOBJ)) == NULL ||
        !kf_obj_str(A, x, "version", r->version) || !kf_obj_str(A, x, "flavor", r->flavor))
      return kf_nomem(e);
  }
  return KF_OK;
}
