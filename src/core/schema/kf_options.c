/*
** kf_options.c - the options of the job methods as rows (kf_options.h).
** Every error message naming an option, every generated list of them and
** docs/OPTIONS.md come from this table.
*/
#include <pthread.h>
#include <stddef.h>

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
/* what every manifest takes (manifest, an entry of manifests, lint) */
#define KUBE (MAN | ITEM | LINT)

const char *const kf_opt_method_names[KF_OPT_NMETHODS] = {
  [KF_OPT_ENCODE] = "encode", [KF_OPT_TO_JSON] = "to_json",
  [KF_OPT_TEMPLATE] = "task_template", [KF_OPT_TASKSPEC] = "task_spec",
  [KF_OPT_MANIFEST] = "manifest", [KF_OPT_ITEM] = "manifests_entry",
  [KF_OPT_LINT] = "lint", [KF_OPT_ENVIRONMENT] = "environment",
  [KF_OPT_CHECK] = "check"};

const kf_option kf_options[] = {
  {"version", "0|1", ENC | JSON | TT | TS, "task_type_version (default 1)"},
  {"replica_encoding", "\"flat\"|\"common\"", ENC | JSON | TT | TS,
   "how v1 replica specs are written"},
  {"indent", "integer", JSON, "pretty-print with this indent"},
  {"format", "\"pb\"|\"json\"", TT | TS, "bytes (default) or JSON"},
  {"indent", "integer", TT | TS, "JSON indent"},
  {"id", "table", TT | TS, "{project=, domain=, name=, version=}"},
  {"container", "table", TT | TS, "{image=, command=, args=, env=}"},
  {"config", "table<string, string>", TT | TS, "TaskTemplate config"},
  {"wrap_launcher", "boolean", TT | TS,
   "MPI/Horovod args wrapped in the launcher command (default true)"},
  {"interface", "table", TS, "the task's inputs and outputs"},
  {"metadata", "table", TS, "TaskMetadata: retries, timeout, ..."},
  {"target", "kfjob.Target", ENC | JSON | TT | TS,
   "the system the job is for (default flyte)"},
  {"target", "kfjob.Target", CHECK, "the system to check for"},
  {"name", "string", CHECK, "the resource name, for the name rules"},
  {"env", "table<string, string>", CHECK,
   "the task environment, for the environment rules"},
  {"name", "string", KUBE, "resource name (required, DNS-1035)"},
  {"name", "string", ENV, "resource name (required)"},
  {"namespace", "string", KUBE | ENV, "resource namespace"},
  {"image", "string", KUBE, "container image (a group's own image wins)"},
  {"command", "string[]", KUBE, "container command"},
  {"args", "string[]", KUBE, "container args"},
  {"env", "table<string, string>", KUBE, "environment, emitted sorted"},
  {"env", "table<string, string>", ENV, "task environment"},
  {"labels", "table<string, string>", KUBE, "labels on the resource and its pods"},
  {"annotations", "table<string, string>", KUBE,
   "annotations on the resource and its pods"},
  {"copy_to_pods", "boolean", KUBE,
   "opts.labels and opts.annotations on every pod template too (default true, "
   "as Flyte; false is refused there)"},
  {"service_account", "string", KUBE, "pods' service account"},
  {"target", "kfjob.Target", KUBE,
   "the system the manifest is for (default operator)"},
  {"target", "kfjob.Target", ENV, "the system (default operator)"},
  {"format", "\"table\"|\"json\"|\"yaml\"", MAN, "the result's form (default table)"},
  {"indent", "integer", MAN, "JSON indent, 0-16"},
  {"job", "kfjob.Job", ITEM, "the entry's job"},
  {"version", "0|1", LINT, "task_type_version (default 1)"},
};
const unsigned kf_noptions = sizeof kf_options / sizeof kf_options[0];

#define MAX_PER_METHOD 24
static const char *names[KF_OPT_NMETHODS][MAX_PER_METHOD + 1];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_init(void) {
  unsigned i, m, n[KF_OPT_NMETHODS] = {0};
  for (i = 0; i < kf_noptions; i++)
    for (m = 0; m < KF_OPT_NMETHODS; m++)
      if ((kf_options[i].methods & KF_OPT_BIT(m)) && n[m] < MAX_PER_METHOD)
        names[m][n[m]++] = kf_options[i].name;
}

const char *const *kf_option_names(kf_opt_method m) {
  pthread_once(&names_once, names_init);
  return names[m];
}
