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

typedef struct kf_option {
  const char *name;     /* "replica_encoding" */
  const char *type;     /* as LuaCATS says it: '"flat"|"common"' */
  unsigned methods;     /* KF_OPT_BIT per method taking it */
  const char *desc;     /* one line */
  int output;           /* the form of the result (format, indent): a CLI
                           run's, never an entry's (kf_option_entry_names) */
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

#endif
