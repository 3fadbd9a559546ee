/*
** kf_options.c - the options of the job methods as rows (kf_options.h).
** Every error message naming an option, every generated list of them and
** docs/OPTIONS.md come from this table.
*/
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "kf_core.h"
#include "kf_options.h"

#define ENC KF_OPT_BIT(KF_OPT_ENCODE)
#define JSON KF_OPT_BIT(KF_OPT_TO_JSON)
#define TT KF_OPT_BIT(KF_OPT_TEMPLATE)
#define TS KF_OPT_BIT(KF_OPT_TASKSPEC)
#define MAN KF_OPT_BIT(KF_OPT_MANIFEST)
#define ITEM KF_OPT_BIT(KF_OPT_ITEM)
#define LINT KF_OPT_BIT(KF_OPT_LINT)
#define ENV KF_OPT_BIT(KF_OPT_ENVIRONMENT)
#define CHECK KF_OPT_BIT(KF_OPT_CHECK)
/* a manifest option's slot: how kf_manifest_opts_parse reads it, where */
#define NOSLOT KF_OS_NONE, 0
#define SLOT(how, member) KF_OS_##how, offsetof(kf_manifest_opts, member)
/* what every manifest takes (manifest, an entry of manifests, lint) */
#define KUBE (MAN | ITEM | LINT)

const char *const kf_opt_method_names[KF_OPT_NMETHODS] = {
  [KF_OPT_ENCODE] = "encode", [KF_OPT_TO_JSON] = "to_json",
  [KF_OPT_TEMPLATE] = "task_template", [KF_OPT_TASKSPEC] = "task_spec",
  [KF_OPT_MANIFEST] = "manifest", [KF_OPT_ITEM] = "manifests_entry",
  [KF_OPT_LINT] = "lint", [KF_OPT_ENVIRONMENT] = "environment",
  [KF_OPT_CHECK] = "check"};

const kf_option kf_options[] = {
  {"version", "0|1", ENC | JSON | TT | TS, "task_type_version (default 1)", 0, NOSLOT},
  {"replica_encoding", "\"flat\"|\"common\"", ENC | JSON | TT | TS,
   "how v1 replica specs are written", 0, NOSLOT},
  {"indent", "integer", JSON, "pretty-print with this indent", 1, NOSLOT},
  {"format", "\"pb\"|\"json\"", TT | TS, "bytes (default) or JSON", 1, NOSLOT},
  {"indent", "integer", TT | TS, "JSON indent", 1, NOSLOT},
  {"id", "table", TT | TS, "{project=, domain=, name=, version=}", 0, NOSLOT},
  {"container", "table", TT | TS, "{image=, command=, args=, env=}", 0, NOSLOT},
  {"config", "table<string, string>", TT | TS, "TaskTemplate config", 0, NOSLOT},
  {"wrap_launcher", "boolean", TT | TS,
   "MPI/Horovod args wrapped in the launcher command (default true)", 0, NOSLOT},
  {"interface", "table", TS, "the task's inputs and outputs", 0, NOSLOT},
  {"metadata", "table", TS, "TaskMetadata: retries, timeout, ...", 0, NOSLOT},
  {"target", "kfjob.Target", ENC | JSON | TT | TS,
   "the system the job is for (default flyte)", 0, NOSLOT},
  {"target", "kfjob.Target", CHECK, "the system to check for", 0, NOSLOT},
  {"name", "string", CHECK, "the resource name, for the name rules", 0, NOSLOT},
  {"env", "table<string, string>", CHECK,
   "the task environment, for the environment rules", 0, NOSLOT},
  {"name", "string", KUBE, "resource name (required, DNS-1035)", 0, SLOT(STR, name)},
  {"name", "string", ENV, "resource name (required)", 0, NOSLOT},
  {"namespace", "string", KUBE | ENV, "resource namespace", 0, SLOT(STR, ns)},
  {"image", "string", KUBE, "container image (a group's own image wins)", 0,
   SLOT(STR, image)},
  {"command", "string[]", KUBE, "container command", 0, SLOT(STRS, command)},
  {"args", "string[]", KUBE, "container args", 0, SLOT(STRS, args)},
  {"env", "table<string, string>", KUBE, "environment, emitted sorted", 0,
   SLOT(MAP, env)},
  {"env", "table<string, string>", ENV, "task environment", 0, NOSLOT},
  {"labels", "table<string, string>", KUBE, "labels on the resource and its pods (Kueue's are scheduling's: an error)", 0,
   SLOT(MAP, labels)},
  {"annotations", "table<string, string>", KUBE,
   "annotations on the resource and its pods", 0, SLOT(MAP, annotations)},
  {"copy_to_pods", "boolean", KUBE,
   "opts.labels and opts.annotations on every pod template too (default true, "
   "as Flyte; false is refused there)", 0, SLOT(NOT_BOOL, no_pod_copy)},
  {"service_account", "string", KUBE, "pods' service account", 0,
   SLOT(STR, service_account)},
  {"target", "kfjob.Target", KUBE,
   "the system the manifest is for (default operator)", 0, SLOT(TARGET, target)},
  {"target", "kfjob.Target", ENV, "the system (default operator)", 0, NOSLOT},
  {"format", "\"table\"|\"json\"|\"yaml\"", MAN, "the result's form (default table)", 1, NOSLOT},
  {"indent", "integer", MAN, "JSON indent, 0-16", 1, NOSLOT},
  {"job", "kfjob.Job", ITEM, "the entry's job", 0, NOSLOT},
  {"version", "0|1", LINT, "task_type_version (default 1)", 0, NOSLOT},
};
const unsigned kf_noptions = sizeof kf_options / sizeof kf_options[0];

#define MAX_PER_METHOD 24
static const char *names[KF_OPT_NMETHODS][MAX_PER_METHOD + 1];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static const char *entry_names[KF_OPT_NENTRY][MAX_PER_METHOD + 1];
/* the methods whose options an entry's list joins, in order */
static const unsigned entry_methods[KF_OPT_NENTRY] = {
  [KF_OPT_E_ENCODE] = ENC, [KF_OPT_E_TEMPLATE] = ENC | TT,
  [KF_OPT_E_TASKSPEC] = ENC | TT | TS, [KF_OPT_E_MANIFEST] = MAN,
  [KF_OPT_E_ANY] = ENC | TT | TS | MAN};

/* Method m's names not yet in entry list x, appended (no output rows). */
static void entry_add(unsigned x, unsigned m, unsigned *n) {
  unsigned i;
  for (i = 0; i < kf_noptions; i++) {
    const kf_option *o = &kf_options[i];
    if ((o->methods & KF_OPT_BIT(m)) && !o->output && *n < MAX_PER_METHOD &&
        !kf_str_listed(entry_names[x], o->name))
      entry_names[x][(*n)++] = o->name;
  }
}

static void names_init(void) {
  unsigned i, m, x, n[KF_OPT_NMETHODS] = {0};
  for (i = 0; i < kf_noptions; i++)
    for (m = 0; m < KF_OPT_NMETHODS; m++)
      if ((kf_options[i].methods & KF_OPT_BIT(m)) && n[m] < MAX_PER_METHOD)
        names[m][n[m]++] = kf_options[i].name;
  for (x = 0; x < KF_OPT_NENTRY; x++) {
    unsigned k = 0;
    for (m = 0; m < KF_OPT_NMETHODS; m++)
      if (entry_methods[x] & KF_OPT_BIT(m)) entry_add(x, m, &k);
  }
}

const char *const *kf_option_names(kf_opt_method m) {
  pthread_once(&names_once, names_init);
  return names[m];
}

const char *const *kf_option_entry_names(kf_opt_entry x) {
  pthread_once(&names_once, names_init);
  return entry_names[x];
}

const kf_option *kf_option_slot(const char *name) {
  unsigned i;
  for (i = 0; i < kf_noptions; i++)
    if (kf_options[i].slot != KF_OS_NONE && strcmp(kf_options[i].name, name) == 0)
      return &kf_options[i];
  return NULL;
}

int kf_replica_encoding(const char *s) {
  return strcmp(s, "common") == 0 ? 1 : strcmp(s, "flat") == 0 ? 0 : -1;
}
