/*
** kf_options.h - the options of the job methods, as rows: one table gives
** each option's name, its type as the generated definitions say it, the
** methods that take it and a one-line description.  The binding's option
** checks (lkf_checkopts), kfjob.options(), `kfjob meta` (the *Opts classes)
** and the generated options table (`kfjob meta --options`, docs/OPTIONS.md)
** read it.  Where two methods document an option differently, each has a
** row of its own; a method's options are its rows in table order.
*/
#ifndef KF_OPTIONS_H
#define KF_OPTIONS_H

#include <stddef.h>

#include "kf_core.h"
#include "kf_target.h"

/* The methods (and groups of methods taking the same options). */
typedef enum kf_opt_method {
  KF_OPT_ENCODE,        /* job:encode, job:custom */
  KF_OPT_TO_JSON,       /* job:to_json */
  KF_OPT_TEMPLATE,      /* job:task_template */
  KF_OPT_TASKSPEC,      /* job:task_spec */
  KF_OPT_MANIFEST,      /* job:manifest, kfjob.manifests' shared options */
  KF_OPT_ITEM,          /* an entry of kfjob.manifests */
  KF_OPT_LINT,          /* job:lint */
  KF_OPT_ENVIRONMENT,   /* job:environment */
  KF_OPT_CHECK,         /* job:check */
  KF_OPT_NMETHODS
} kf_opt_method;
#define KF_OPT_BIT(m) (1u << (m))

/* Inputs a task gives beyond the job: metadata and the task container
** (the options of manifest, a manifests entry, lint, environment and
** check, as kf_manifest_opts_parse reads them by the rows' slots). */
typedef struct kf_manifest_opts {
  const char *name;             /* required: DNS-1035 label */
  const char *ns;               /* namespace, NULL: none */
  const char *image;            /* task image; a group's image wins */
  const char *service_account;
  kf_strs command, args;        /* task container; n == 0: none */
  kf_kvs env, labels, annotations;
  int no_pod_copy;              /* opts.copy_to_pods = false: labels and
                                   annotations on the resource alone */
  int target_set;               /* 0: the default target, operator */
  kf_target target;
} kf_manifest_opts;

/* How an option's value lands in kf_manifest_opts (its row's `off`). */
typedef enum kf_opt_slot {
  KF_OS_NONE,           /* not a manifest option (or another row of the
                           name carries the slot) */
  KF_OS_STR,            /* const char *, a string without NUL */
  KF_OS_STRS,           /* kf_strs, a list of strings */
  KF_OS_MAP,            /* kf_kvs, a table of strings by name */
  KF_OS_NOT_BOOL,       /* int, set to the negation of a boolean */
  KF_OS_TARGET          /* kf_target, with target_set */
} kf_opt_slot;

typedef struct kf_option {
  const char *name;     /* "replica_encoding" */
  const char *type;     /* as LuaCATS says it: '"flat"|"common"' */
  unsigned methods;     /* KF_OPT_BIT per method taking it */
  const char *desc;     /* one line */
  int output;           /* the form of the result (format, indent): a CLI
                           run's, never an entry's (kf_option_entry_names) */
  kf_opt_slot slot;     /* how kf_manifest_opts_parse reads it ... */
  size_t off;           /* ... into kf_manifest_opts at this offset */
} kf_option;

extern const kf_option kf_options[];
extern const unsigned kf_noptions;
/* The method's name in kfjob.options() and the docs ("task_template"). */
extern const char *const kf_opt_method_names[KF_OPT_NMETHODS];

/* The option names method `m` takes, in table order, NULL-terminated. */
const char *const *kf_option_names(kf_opt_method m);

/* The options an entry of a host run ({ job =, opts = }) may give for an
** output, as its method takes them without the run's output rows: encode;
** a task template's (encode's, then its own); a task spec's (the
** template's, then its own); a manifest's; any output's (kfjob check). */
typedef enum kf_opt_entry {
  KF_OPT_E_ENCODE, KF_OPT_E_TEMPLATE, KF_OPT_E_TASKSPEC, KF_OPT_E_MANIFEST,
  KF_OPT_E_ANY, KF_OPT_NENTRY
} kf_opt_entry;
const char *const *kf_option_entry_names(kf_opt_entry x);

/* opts.replica_encoding's value: 0 "flat", 1 "common", -1 any other (the
** binding and the host API both check it here). */
int kf_replica_encoding(const char *s);

/* The row giving option `name` its kf_manifest_opts slot, or NULL: an
** option the manifest options do not hold (the caller skips it). */
const kf_option *kf_option_slot(const char *name);

#endif
