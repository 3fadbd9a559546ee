/*
** kf_manifest_int.h - what kf_manifest.c shares with kf_lint.c: the
** context of one call and the helpers both use.  Private to the core.
*/
#ifndef KF_MANIFEST_INT_H
#define KF_MANIFEST_INT_H

#include "kf_manifest.h"

typedef struct mctx {
  kf_arena *A;
  kf_err *e;
  const char *who;
} mctx;

#define OOM(c, x) do { if (!(x)) return kf_nomem((c)->e); } while (0)

long double kfm_qty_value(const char *s);
int kfm_qty_cmp(const char *a, const char *b);
const kf_group *kfm_task_resources(const kf_job *j, const kf_group *g,
                                   kf_group *tmp);
int kfm_present_roles(const kf_job *j, int out[KF_NROLES]);
size_t kfm_longest_pod(const kf_job *j, const char *name, char *buf,
                       size_t cap);
int kfm_dns_label(const char *s, size_t n, int dns1035);
extern const char kfm_dns1035_rule[];   /* the rule, said in messages */

#endif
