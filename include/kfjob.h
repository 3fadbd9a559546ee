/**
 * \file kfjob.h
 * \brief Public C API of kfjob: the Lua module entry points and the
 *        protected, sandboxed host API for C programs.
 *
 * Two ways to use kfjob from C:
 *
 * - **Your own Lua state.**  Call kfjob_preload() (or luaL_requiref() with
 *   luaopen_kfjob()) and run Lua code as usual.  These functions follow
 *   the Lua API conventions: they may raise Lua errors, so call them from
 *   inside a protected call (lua_pcall() of a lua_CFunction).
 *
 * - **The host API** (kfjob_host_*).  kfjob owns a sandboxed Lua state per
 *   run: a memory cap enforced by the allocator, an instruction budget
 *   enforced by a count hook, only safe standard libraries, scripts loaded
 *   as text.  Every entry point returns a ::kfjob_status; no Lua error ever
 *   unwinds (longjmps) into the host.  A minimal host:
 *
 * \code
 * static int on_job(void *ud, const kfjob_job *job) {
 *   FILE *f = fopen(job->name, "wb");          // (check the name first!)
 *   fwrite(job->data, 1, job->size, f);        // copy before returning
 *   fclose(f);
 *   return 0;                                  // 0: continue
 * }
 *
 * kfjob_host *h;
 * kfjob_run_options ro;
 * if (kfjob_host_new(NULL, &h) != KFJOB_OK) return 1;
 * kfjob_run_options_init(&ro);
 * ro.format = KFJOB_FORMAT_TEMPLATE;
 * if (kfjob_host_run_file(h, "train.lua", &ro, on_job, NULL) != KFJOB_OK)
 *   fprintf(stderr, "%s\n", kfjob_host_message(h));
 * kfjob_host_free(h);
 * \endcode
 *
 * **Ownership.**  Every pointer kfjob hands to the host (in ::kfjob_job,
 * to the log callback, from kfjob_host_message()) points into memory that
 * kfjob owns: copy what you need before the callback returns (before the
 * next call on the same handle for kfjob_host_message()).  Every pointer
 * the host hands to kfjob (scripts, options, parameters) is only read
 * during the call and may be freed as soon as it returns.
 *
 * **Threads.**  A ::kfjob_host is not thread-safe; separate handles are
 * independent and may be used from different threads at once.  kfjob
 * keeps no global mutable state but one: the first JSON parse installs
 * its own jansson allocation functions (json_set_alloc_funcs), which pass
 * every allocation outside kfjob on to the functions installed before
 * (malloc/free or the host's), so that jansson's memory inside kfjob
 * counts against the memory limit.  A host that uses jansson itself must
 * not call json_set_alloc_funcs while kfjob runs.
 */
#ifndef KFJOB_H
#define KFJOB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lua_State;

/** \defgroup kfjob_base Export macro, versions, Lua entry points
 *  @{ */

/** Marks the symbols the library exports; everything else is hidden
 *  (the library is built with `-fvisibility=hidden`). */
#if defined(_WIN32)
#  if defined(KFJOB_BUILDING)
#    define KFJOB_API __declspec(dllexport)
#  else
#    define KFJOB_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define KFJOB_API __attribute__((visibility("default")))
#else
#  define KFJOB_API
#endif

/** Major version of the headers a program is compiled with.
 *  The `KFJOB_VERSION*` macros describe the *headers*; kfjob_version_number()
 *  and kfjob_version_string() describe the *library* the program runs with
 *  (they differ when a program runs against a newer shared library). */
#define KFJOB_VERSION_MAJOR 0
/** Minor version of the headers. */
#define KFJOB_VERSION_MINOR 1
/** Patch version of the headers. */
#define KFJOB_VERSION_PATCH 0
/** The header version as a string, "MAJOR.MINOR.PATCH". */
#define KFJOB_VERSION_STRING "0.1.0"
/** The header version as a number: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define KFJOB_VERSION_NUMBER 100

/** Name under which the module is required (`require "kfjob"`). */
#define KFJOB_LIBNAME "kfjob"

/**
 * Open the module: pushes the `kfjob` table (what `require "kfjob"`
 * returns) and loads the embedded `kfjob.template`.  Use it with
 * luaL_requiref(L, KFJOB_LIBNAME, luaopen_kfjob, 0) or through
 * kfjob_preload().  May raise Lua errors (memory): call it in protected
 * mode.
 * \param L a Lua 5.4 state.
 * \return 1 (the module table is on the stack).
 */
KFJOB_API int luaopen_kfjob(struct lua_State *L);

/**
 * Register `kfjob` and its Lua submodules (`kfjob.template`, ...) in
 * `package.preload`, so `require` finds them with no files on disk.
 * May raise Lua errors (memory): call it in protected mode.
 * \param L a Lua 5.4 state.
 */
KFJOB_API void kfjob_preload(struct lua_State *L);

/**
 * Version of the library actually linked.
 * \return its KFJOB_VERSION_NUMBER (MAJOR * 10000 + MINOR * 100 + PATCH).
 */
KFJOB_API unsigned kfjob_version_number(void);

/**
 * Version of the library actually linked, as text.
 * \return its KFJOB_VERSION_STRING (static storage; do not free).
 */
KFJOB_API const char *kfjob_version_string(void);

/** @} */

/** \defgroup kfjob_host Sandboxed host API
 *  @{ */

/** Result of every host API call. */
typedef enum kfjob_status {
  KFJOB_OK = 0,        /**< Success. */
  KFJOB_ESCRIPT,       /**< The config script failed: syntax or runtime
                            error, or it returned nothing (nil) or a value
                            that is not a job, a list or table of jobs or
                            an iterator.  (An empty list, table or
                            iterator is no error: ::KFJOB_OK with no
                            callback, as the CLI exits 0.)  The message
                            reads `FILE:LINE: message`. */
  KFJOB_EJOB,          /**< A job could not be rendered (for example
                            task_type_version 0 cannot express it) or its
                            name is invalid or repeated.  The message reads
                            `FILE:LINE: job 'NAME': message`, LINE being
                            where the config made the job (its constructor,
                            `job:with` or `template.variants` call), or
                            `FILE: job 'NAME': message` when that is not
                            known. */
  KFJOB_EMEMORY,       /**< The run reached the memory limit (or the
                            system ran out of memory). */
  KFJOB_ELIMIT,        /**< The run used up its instruction budget (an
                            import: its time limit, or max_jobs; the
                            message says which). */
  KFJOB_EDATA,         /**< kfjob_host_decode(): the input is not a valid
                            message of the given type. */
  KFJOB_EIO,           /**< A file could not be read. */
  KFJOB_EARG,          /**< Invalid argument from the host (NULL pointer,
                            unknown format, malformed `key=value`, handle
                            used from its own callback). */
  KFJOB_EUNSUPPORTED,  /**< The format needs a job method this build of
                            kfjob lacks. */
  KFJOB_ESTOPPED       /**< The job callback returned non-zero. */
} kfjob_status;

/** What each job is rendered to. */
typedef enum kfjob_format {
  KFJOB_FORMAT_PB = 0,         /**< Plugin message wire bytes
                                    (`job:encode()`); binary. */
  KFJOB_FORMAT_JSON,           /**< The proto3 JSON `TaskTemplate.custom`
                                    holds (`job:to_json()`); text. */
  KFJOB_FORMAT_YAML,           /**< The same document as YAML; text. */
  KFJOB_FORMAT_TEMPLATE,       /**< `flyteidl.core.TaskTemplate` bytes
                                    (`job:task_template()`); binary. */
  KFJOB_FORMAT_TEMPLATE_JSON,  /**< The TaskTemplate as JSON; text. */
  KFJOB_FORMAT_MANIFEST,       /**< The `kubeflow.org/v1` custom resource
                                    as YAML (`job:manifest()`); text. */
  KFJOB_FORMAT_MANIFEST_JSON,  /**< The custom resource as JSON; text. */
  KFJOB_FORMAT_NONE,           /**< Nothing: validate (and lint) only;
                                    kfjob_job::data is NULL.  The job is
                                    still encoded for the run's version,
                                    so a job it cannot express fails. */
  KFJOB_FORMAT_TASKSPEC,       /**< `flyteidl.admin.TaskSpec` bytes
                                    (`job:task_spec()`), what `flytectl
                                    register files` reads; binary.  Its
                                    registration fields come from
                                    kfjob_run_options::project, ::domain,
                                    ::task_version, ::image, ::args,
                                    ::retries, ::timeout and, over them,
                                    a job's own `{job =, opts =}`. */
  KFJOB_FORMAT_TASKSPEC_JSON,  /**< The TaskSpec as JSON; text. */
  KFJOB_FORMAT_ENVIRONMENT     /**< Every pod's environment variables and
                                    files on kfjob_run_options::target
                                    (`job:environment()`, default target
                                    operator) as one JSON object; text.
                                    Last, so the earlier values keep
                                    their numbers. */
} kfjob_format;

/** Default of kfjob_host_options::memory_limit: 64 MiB per run. */
#define KFJOB_DEFAULT_MEMORY_LIMIT ((size_t)64 << 20)
/** Default of kfjob_host_options::instruction_limit: 500 million Lua VM
 *  instructions per run (about a second of pure Lua). */
#define KFJOB_DEFAULT_INSTRUCTION_LIMIT 500000000ULL

/** Default of kfjob_run_options::max_jobs: jobs one run may produce. */
#define KFJOB_DEFAULT_MAX_JOBS 10000000UL

/** Default of kfjob_run_options::time_limit_ms: 60 s of wall-clock time per
 *  run, far above what an honest config takes (the bundled example sweep
 *  renders in under 0.1 s, a 100 000-variant manifest sweep in about 4 s). */
#define KFJOB_DEFAULT_TIME_LIMIT_MS 60000UL
/** kfjob_run_options::time_limit_ms for no wall-clock limit.  Any limit
 *  too large for the clock saturates to the same (no wrap-around). */
#define KFJOB_NO_TIME_LIMIT ((unsigned long)-1)

/** Opaque handle: options, the last message and usage figures.  Each run
 *  gets a fresh sandboxed Lua state, closed before the run returns. */
typedef struct kfjob_host kfjob_host;

/**
 * Receives the text of each `print(...)` (its arguments joined by tabs,
 * without a newline) and of each `warn(...)` (prefixed "warning: ") from
 * scripts.
 * \param ud   kfjob_host_options::log_ud.
 * \param msg  the text; owned by kfjob, valid only during the call.
 * \param len  its length in bytes (msg is also NUL-terminated).
 */
typedef void (*kfjob_log_fn)(void *ud, const char *msg, size_t len);

/** Options of a handle; set defaults with kfjob_host_options_init(). */
typedef struct kfjob_host_options {
  size_t memory_limit;       /**< Bytes of Lua memory per run; 0: no
                                  limit.  Includes the libraries (about
                                  300 KiB), kfjob's scratch memory and
                                  what jansson allocates while kfjob
                                  parses JSON; kfjob_host_run_file()
                                  refuses a script larger than it before
                                  reading it. */
  unsigned long long instruction_limit;
                             /**< Lua VM instructions per run (pattern
                                  matching, table shifting and kfjob's
                                  own functions, one per byte they
                                  allocate, write or hash, count too);
                                  0: no limit.  See also
                                  kfjob_run_options::time_limit_ms. */
  kfjob_log_fn log;          /**< Output of print() and warn(); NULL
                                  discards it. */
  void *log_ud;              /**< Passed to #log. */
} kfjob_host_options;

/**
 * Fill `o` with the defaults: ::KFJOB_DEFAULT_MEMORY_LIMIT,
 * ::KFJOB_DEFAULT_INSTRUCTION_LIMIT, no log.
 * \param o options to initialise (not NULL).
 */
KFJOB_API void kfjob_host_options_init(kfjob_host_options *o);

/** One lint warning (`job:lint()`): a field path and a message, and for a
 *  target's warning the rule that gives it (as kfjob_problem's). */
typedef struct kfjob_warning {
  const char *path;     /**< Field path, e.g. "run_policy.backoff_limit". */
  const char *message;  /**< What is probably wrong. */
  const char *rule;     /**< The target's rule, e.g. "R20" (docs/RULES.md);
                             "" for a lint warning no target rule gives. */
  const char *source;   /**< The upstream file and function or issue the
                             rule follows; "" when none is cited. */
} kfjob_warning;

/** One reason the run's target refuses a job: an item of
 *  `job:check{target=}`'s list (kfjob_job::problems). */
typedef struct kfjob_problem {
  const char *path;     /**< Field path, e.g. "worker.restart_policy". */
  const char *message;  /**< Why the target cannot take it. */
  const char *rule;     /**< The rule, e.g. "R13" (docs/RULES.md). */
  const char *source;   /**< The upstream file and function or issue the
                             rule follows; "" when none is cited. */
  const char *target;   /**< The target whose rule it is ("trainer-2.3"). */
} kfjob_problem;

/** Pods of one replica group (kfjob_resources::groups). */
typedef struct kfjob_pod_group {
  const char *role;       /**< Replica type as the manifest names it:
                               "Worker", "PS", "Master", "Launcher", ... */
  long long replicas;     /**< Its pods. */
} kfjob_pod_group;

/** What a job asks of the cluster, read from its `kubeflow.org/v1`
 *  manifest (kfjob_run_options::resources).  Quantities are sums over all
 *  the job's pods (each pod's effective amount: its containers' sum, or
 *  its largest init container's), exact, in Kubernetes' canonical form
 *  ("12", "1500m", "96Gi"; "0" for none).  A limit sums only the
 *  containers that set one. */
typedef struct kfjob_resources {
  const kfjob_pod_group *groups;  /**< Groups with pods, manifest order. */
  size_t ngroups;                 /**< Number of #groups. */
  long long pods;                 /**< All pods of the job. */
  const char *gpu;                /**< nvidia.com/gpu requested (requests
                                       equal limits for GPUs). */
  const char *cpu_request, *cpu_limit;
  const char *memory_request, *memory_limit;
  long long gang;         /**< Pods that must start together (SPEC §13):
                               scheduling.gang.min_available, or the run's
                               target's default (Σ replicas on operator,
                               workers + 1 on mpi-operator, every pod on
                               Trainer; operator when no target is set). */
  int gang_set;           /**< #gang is the job's min_available. */
  int scheduled;          /**< The job sets `scheduling`. */
} kfjob_resources;

/** A job handed to the ::kfjob_job_fn callback.  Every pointer in it is
 *  owned by kfjob and valid only until the callback returns. */
typedef struct kfjob_job {
  const char *name;       /**< The job's name: its key in a `{name = job}`
                               table, the name an iterator gave, or one
                               made from kfjob_run_options::name.  Not
                               checked for use as a file name. */
  const char *kind;       /**< "TFJob", "PyTorchJob", "Elastic", "MPIJob",
                               "HorovodJob", "JAXJob", "XGBoostJob",
                               "PaddleJob". */
  const char *task_type;  /**< Flyte task type: "tensorflow", "pytorch",
                               "mpi" or "python-task"; "" for JAXJob,
                               XGBoostJob and PaddleJob, which have none
                               (only the manifest formats render them). */
  int version;            /**< task_type_version the output carries. */
  kfjob_format format;    /**< Format of #data. */
  const char *data;       /**< Rendered bytes (NULL for
                               ::KFJOB_FORMAT_NONE and failed jobs).  Always
                               followed by a NUL byte not counted in #size,
                               so text formats can be used as C strings. */
  size_t size;            /**< Length of #data in bytes. */
  size_t index;           /**< 0-based position of the job in the run. */
  size_t total;           /**< Number of jobs when known in advance (a job,
                               a list, a table, or an iterator of
                               `kfjob.template.variants`, counted by
                               `template.count`), 0 for other iterators. */
  const kfjob_warning *warnings;  /**< Lint warnings (when
                                       kfjob_run_options::lint is set). */
  size_t nwarnings;       /**< Number of #warnings. */
  const char *error;      /**< With kfjob_run_options::keep_going: why this
                               job could not be made or rendered (#data is
                               NULL); otherwise NULL.  A variant of
                               `kfjob.template.variants` that failed reads
                               `FILE:LINE: message`, the line of the
                               config's `variants` call. */
  const kfjob_resources *resources;  /**< With
                               kfjob_run_options::resources: what the job
                               asks of the cluster; NULL for a failed job
                               or one whose manifest cannot be made. */
  const kfjob_problem *problems;  /**< With kfjob_run_options::keep_going,
                               a job the target's rules refuse: every error
                               they find, as `job:check{target=}` lists
                               them (the first is #error's); NULL when the
                               job failed for another reason. */
  size_t nproblems;       /**< Number of #problems. */
  const char *resource_name;  /**< ::KFJOB_FORMAT_MANIFEST,
                               ::KFJOB_FORMAT_MANIFEST_JSON and
                               ::KFJOB_FORMAT_ENVIRONMENT: the name the
                               job's resources get (`metadata.name`, the
                               stem of the pods' names): a `{job =, opts =
                               {name = ...}}` entry's `opts.name`, else
                               #name.  NULL for other formats and failed
                               jobs. */
} kfjob_job;

/**
 * Called once per job, in order.  Runs outside the Lua VM: it may take
 * its time and call anything except functions on the same handle.
 * \param ud  the pointer given to the run function.
 * \param job the job; copy what you keep before returning.
 * \return 0 to continue; anything else stops the run, which then returns
 *         ::KFJOB_ESTOPPED.
 */
typedef int (*kfjob_job_fn)(void *ud, const kfjob_job *job);

/** Options of one run; set defaults with kfjob_run_options_init(). */
typedef struct kfjob_run_options {
  kfjob_format format;       /**< Output format (default
                                  ::KFJOB_FORMAT_JSON). */
  int version;               /**< task_type_version to render, 0 or 1;
                                  -1 (default): 1, or for
                                  kfjob_host_decode() the input's version. */
  const char *replica_encoding;  /**< Version 1 only: "flat" (NULL, the
                                      default) or "common". */
  int indent;                /**< JSON formats: 0 compact (default), 1..16
                                  pretty-printed with n spaces; another value
                                  is ::KFJOB_EARG. */
  const char *const *params; /**< `nparams` strings "key=value", visible to
                                  the script as `params.key` (and as its
                                  first argument `...`).  A value becomes a
                                  number when that number writes back as
                                  exactly the value ("8", "-3", "0.5",
                                  "2.0"), "true" and "false" booleans;
                                  anything else ("1.10", "010", "1e3")
                                  stays the string typed. */
  size_t nparams;            /**< Number of #params. */
  const char *name;          /**< Name of a job returned alone, and prefix
                                  of the names of a list's jobs
                                  ("NAME-1", ...).  NULL: "job". */
  const char *select;        /**< Render only the job of this name from a
                                  `{name = job}` table or an iterator (an
                                  error when there is none); NULL: all. */
  const char *namespace_;    /**< Manifest formats: metadata.namespace. */
  const char *image;         /**< Manifest formats: the task image (groups
                                  without an image of their own use it). */
  int lint;                  /**< Non-zero: fill kfjob_job::warnings. */
  int keep_going;            /**< Non-zero: a job that cannot be rendered
                                  is passed to the callback with
                                  kfjob_job::error set and the run goes on
                                  (it returns ::KFJOB_EJOB at the end).
                                  Zero: the run stops at that job. */
  unsigned long max_jobs;    /**< Most jobs one run may produce (0: the
                                  default ::KFJOB_DEFAULT_MAX_JOBS); one
                                  more is a script error naming the limit,
                                  so a runaway iterator cannot flood the
                                  host (an import: most callbacks, one more
                                  is ::KFJOB_ELIMIT naming the limit). */
  const char *const *string_params; /**< `nstring_params` strings
                                  "key=value" whose values stay strings
                                  (helm's --set-string); applied after
                                  #params, so they win for the same key. */
  size_t nstring_params;     /**< Number of #string_params. */
  unsigned long time_limit_ms; /**< Wall-clock limit of the run in
                                  milliseconds (0: the default
                                  ::KFJOB_DEFAULT_TIME_LIMIT_MS;
                                  ::KFJOB_NO_TIME_LIMIT: none), the
                                  last resort behind the memory limit and
                                  the instruction budget.  Checked with
                                  the instruction count (every 1000
                                  instructions), at the start and the end
                                  of each kfjob call, so a run stops
                                  within one kfjob call or one step of C
                                  work past it; then the run returns
                                  ::KFJOB_ELIMIT with the message
                                  `FILE:LINE: time limit exceeded (N ms)`.
                                  Time spent in the job callback counts
                                  too.  kfjob_host_import_manifests()
                                  checks it before each document
                                  (`time limit exceeded (N ms)`). */
  const char *target;        /**< The system the jobs are for (SPEC §11):
                                  "flyte", "flyte2", "operator",
                                  "mpi-operator", "trainer-2.2" or
                                  "trainer-2.3"; NULL: each format's
                                  default (flyte for the payload and
                                  template formats, operator for
                                  manifests and the environment).  An
                                  unknown name is ::KFJOB_EARG with a
                                  did-you-mean.  A job the target refuses
                                  fails with `<Constructor>: <path>:
                                  <problem> (target <name>)`; a format it
                                  does not emit is an error naming both;
                                  lint adds the target's warnings (NULL:
                                  flyte's).  With ::KFJOB_FORMAT_NONE and
                                  a target without payloads (operator,
                                  mpi-operator, trainer-*), the manifest
                                  is built instead of the payload. */
  /* TaskSpec formats (SPEC 3.4): the task id is project/domain/<job
  ** name>/task_version, the container image is #image; a job returned as
  ** `{job = <job>, opts = {id =, container =, interface =, metadata =}}`
  ** overrides any of them.  NULL / 0 / -1: not given. */
  const char *project;       /**< Flyte project of every task. */
  const char *domain;        /**< Flyte domain of every task. */
  const char *task_version;  /**< Registration version of every task. */
  const char *const *args;   /**< `nargs` container args of every task
                                  (for MPI/Horovod wrapped in the
                                  launcher command). */
  size_t nargs;              /**< Number of #args. */
  int retries;               /**< TaskMetadata retries 0..10; -1 (the
                                  default): none given. */
  const char *timeout;       /**< TaskMetadata timeout: whole seconds
                                  ("5400") or a duration ("1h30m"). */
  int resources;             /**< Non-zero: fill kfjob_job::resources. */
} kfjob_run_options;

/**
 * Fill `o` with the defaults: JSON, version -1, flat, compact, no
 * parameters, no names, no lint, stop at the first failing job.
 * \param o options to initialise (not NULL).
 */
KFJOB_API void kfjob_run_options_init(kfjob_run_options *o);

/**
 * Create a handle.
 * \param opts options (copied), or NULL for the defaults.
 * \param[out] out the new handle; NULL on failure.
 * \retval KFJOB_OK        success.
 * \retval KFJOB_EARG      `out` is NULL.
 * \retval KFJOB_EMEMORY   no memory for the handle.
 */
KFJOB_API kfjob_status kfjob_host_new(const kfjob_host_options *opts,
                                      kfjob_host **out);

/**
 * Free a handle and everything it owns.  NULL is allowed.  Must not be
 * called from the handle's own callbacks.
 * \param h the handle.
 */
KFJOB_API void kfjob_host_free(kfjob_host *h);

/**
 * Run a config script from a file and render every job it returns.
 *
 * The script runs in a fresh sandbox: standard libraries base (without
 * dofile/loadfile; load() of text only; setmetatable() without `__gc`),
 * string (without dump), table, math, utf8, coroutine and os.time,
 * os.clock, os.date; no io, package or debug; `require` finds only the
 * kfjob modules and those libraries; `print`/`warn` go to the log
 * callback.  Pattern matching and table.insert/remove/move count against
 * the instruction budget, so no C function can run unbounded.  The script returns a
 * job, a list of jobs, a `{name = job}` table (rendered in name order) or
 * an iterator of `name, job` (such as `kfjob.template.variants`).
 *
 * A path ending `.yaml`, `.yml` or `.json` (any case) is a data config
 * instead: YAML or JSON holding one job (a mapping with `kind`, the
 * constructor's name, and its keys), a list of jobs (named `NAME-1`, ...)
 * or `{jobs: {name: job}}` (name order), each built by its constructor as
 * a script's would be; messages read `path:LINE: PATH: problem`.
 *
 * \param h    the handle.
 * \param path the script; its name appears in messages as `path:LINE:`.
 * \param o    run options, or NULL for the defaults.
 * \param cb   called for each job; may be NULL (validate only).
 * \param ud   passed to `cb`.
 * \return ::KFJOB_OK, or an error status with kfjob_host_message() set:
 *         ::KFJOB_EIO (unreadable file), ::KFJOB_ESCRIPT, ::KFJOB_EJOB,
 *         ::KFJOB_EMEMORY, ::KFJOB_ELIMIT, ::KFJOB_EUNSUPPORTED,
 *         ::KFJOB_ESTOPPED, ::KFJOB_EARG.
 */
KFJOB_API kfjob_status kfjob_host_run_file(kfjob_host *h, const char *path,
                                           const kfjob_run_options *o,
                                           kfjob_job_fn cb, void *ud);

/**
 * Like kfjob_host_run_file() with the script given as text.
 * \param h         the handle.
 * \param src       the script text (not necessarily NUL-terminated).
 * \param len       its length in bytes.
 * \param chunkname how messages name it, e.g. "train.lua"; NULL: "config".
 *                  A name ending `.yaml`, `.yml` or `.json` makes the text a
 *                  data config (see kfjob_host_run_file()).
 * \param o         run options, or NULL for the defaults.
 * \param cb        called for each job; may be NULL.
 * \param ud        passed to `cb`.
 * \return as kfjob_host_run_file() (never ::KFJOB_EIO).
 */
KFJOB_API kfjob_status kfjob_host_run_string(kfjob_host *h, const char *src,
                                             size_t len, const char *chunkname,
                                             const kfjob_run_options *o,
                                             kfjob_job_fn cb, void *ud);

/**
 * Decode one job and render it like a run would (one callback).
 *
 * With `task_type` NULL the input is a `flyteidl.core.TaskTemplate`, as
 * bytes or as JSON (`kfjob.decode_task_template`); the job's name is the
 * template id's name when there is one.  Otherwise it is the `custom` of
 * that task type: plugin message bytes of task_type_version `version`
 * (`kfjob.decode`), or proto3 JSON when it starts with `{`
 * (`kfjob.from_json`).  Rendering uses kfjob_run_options::version, or the
 * input's version when that is -1.  With format ::KFJOB_FORMAT_TASKSPEC or
 * ::KFJOB_FORMAT_TASKSPEC_JSON, a `flyteidl.admin.TaskSpec` input is written
 * again whole (its id, interface, metadata, container or pod and config);
 * any other input is rendered as ::KFJOB_FORMAT_JSON (kfjob_job::format
 * says which).
 *
 * \param h         the handle.
 * \param task_type "tensorflow", "pytorch", "mpi", or NULL (TaskTemplate).
 * \param version   task_type_version of plugin bytes (0 or 1).  With
 *                  `task_type` NULL it is not checked: a TaskTemplate or
 *                  TaskSpec carries its own (0 or 1 stands for a template
 *                  without one; any other value, -1 too, as 1).
 * \param data      the input bytes.
 * \param size      their length.
 * \param o         run options (name, format...), or NULL.
 * \param cb        receives the decoded job; may be NULL.
 * \param ud        passed to `cb`.
 * \return ::KFJOB_OK, ::KFJOB_EDATA for invalid input, or as
 *         kfjob_host_run_file().
 */
KFJOB_API kfjob_status kfjob_host_decode(kfjob_host *h, const char *task_type,
                                         int version, const void *data,
                                         size_t size,
                                         const kfjob_run_options *o,
                                         kfjob_job_fn cb, void *ud);

/** One path of a manifest kfjob could not hold (kfjob_import_info). */
typedef struct kfjob_unmapped {
  const char *path;    /**< Manifest path, e.g. "spec.pytorchReplicaSpecs.
                            Worker.template.spec.hostNetwork". */
  const char *value;   /**< The value as compact JSON. */
  const char *reason;  /**< Why it does not carry over. */
} kfjob_unmapped;

/** The report of one document read by kfjob_host_import_manifests() (SPEC §14's
 *  `info`).  Every pointer is owned by kfjob and valid only during the
 *  callback. */
typedef struct kfjob_import_info {
  size_t document;          /**< 1-based position in the stream. */
  const char *kind;         /**< The manifest's kind ("PyTorchJob",
                                 "MPIJob", "TrainJob"); the job's own is
                                 kfjob_job::kind. */
  const char *api_version;  /**< The manifest's apiVersion. */
  const char *target;       /**< The target whose output it is ("operator",
                                 "mpi-operator", "trainer-2.3", ...). */
  const char *name;         /**< metadata.name ("" when none). */
  const char *namespace_;   /**< metadata.namespace, or NULL. */
  int copy_to_pods;         /**< Always non-zero (kept for the ABI): the
                                 job holds the resource's labels and
                                 annotations and each pod template its
                                 own, so a re-emit needs no option. */
  const kfjob_unmapped *unmapped;  /**< What was not read (lossy only). */
  size_t nunmapped;         /**< Number of #unmapped. */
  const char *const *ignored;  /**< Server-set paths left out ("status"). */
  size_t nignored;          /**< Number of #ignored. */
  int other;                /**< Non-zero: a document of a kind kfjob does
                                 not read (a ConfigMap, a Service), given
                                 with kfjob_import_options::other: the job's
                                 #data is the document itself, its kind the
                                 document's, #name its metadata.name. */
  size_t item;              /**< 1-based place in the items of a List
                                 document (`kind: List`, as `kubectl get
                                 -o yaml` writes, or a typed list such as
                                 PyTorchJobList), whose items a stream
                                 reads as documents; 0: not a List's. */
  const char *generate_name;  /**< metadata.generateName when the manifest
                                 had no name (the job is named after it,
                                 without its trailing '-'), else NULL. */
  size_t line;              /**< The 1-based line of the text where the
                                 document's content starts (a List's item:
                                 the item's own, else the List's); 0 when
                                 unknown. */
} kfjob_import_info;

/** Options of kfjob_host_import_manifests(); zero them for the defaults. */
typedef struct kfjob_import_options {
  const char *kind;   /**< Read as this kind ("Elastic" for a TrainJob,
                           "HorovodJob" for an MPIJob); NULL: the
                           manifest's. */
  int lossy;          /**< Non-zero: list what kfjob cannot hold in
                           kfjob_import_info::unmapped instead of failing. */
  int stream;         /**< Non-zero: the text is a stream of documents
                           (other kinds are skipped; a stream with no
                           job at all is ::KFJOB_EDATA, "no job in the
                           stream", as `kfjob convert` refuses it); zero:
                           exactly one. */
  int other;          /**< Non-zero (a stream): documents of other kinds
                           reach the callback too, unchanged as data (YAML;
                           JSON for the JSON formats), with
                           kfjob_import_info::other set, so a converter
                           can copy them through. */
} kfjob_import_options;

/**
 * Receives each job kfjob_host_import_manifests() read, rendered, with its report.
 * \return 0 to continue; anything else stops (::KFJOB_ESTOPPED).
 */
typedef int (*kfjob_import_fn)(void *ud, const kfjob_job *job,
                               const kfjob_import_info *info);

/**
 * Read Kubernetes manifests (YAML or JSON text: kubeflow.org/v1 TFJob,
 * PyTorchJob, MPIJob, JAXJob, XGBoostJob, PaddleJob; kubeflow.org/v2beta1
 * MPIJob; trainer.kubeflow.org/v1alpha1 TrainJob) into jobs, as
 * `kfjob.from_manifest` / `kfjob.from_manifests` do, and render each as a
 * run would (kfjob_run_options::format and ::target; target NULL: for the
 * manifest formats, the environment and "none" the manifest's own, so a
 * manifest format writes the input back; for the others flyte).  The
 * manifest formats take the name, namespace, labels, annotations and the
 * container's command, args and env from the input
 * (kfjob_run_options::name and ::namespace_ override them; ::image is the
 * image of groups without their own).  With kfjob_run_options::keep_going
 * a job the target refuses reaches the callback with kfjob_job::error set
 * (and its report), and the import goes on, then returns ::KFJOB_EJOB.  The
 * lint warnings (kfjob_run_options::lint) and what lossy leaves out are
 * named by their path in a kubeflow.org manifest read
 * ("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args[1]"),
 * by the job's field path for other inputs.  Runs in C, outside any Lua
 * state, within kfjob_host_options::memory_limit.
 *
 * \param h    the handle.
 * \param text the manifest text (not necessarily NUL-terminated).
 * \param len  its length in bytes.
 * \param io   import options, or NULL (strict, one document).
 * \param o    run options, or NULL for the defaults.
 * \param cb   called for each job read; may be NULL.
 * \param ud   passed to `cb`.
 * \return ::KFJOB_OK; ::KFJOB_EDATA for input kfjob cannot read (the
 *         message names the document and manifest path); ::KFJOB_EJOB when
 *         the target refuses a job (`<who>: <path>: <problem> (target T)`);
 *         ::KFJOB_EARG, ::KFJOB_EMEMORY, ::KFJOB_ESTOPPED; ::KFJOB_ELIMIT past
 *         kfjob_run_options::max_jobs callbacks.
 */
KFJOB_API kfjob_status kfjob_host_import_manifests(kfjob_host *h, const char *text,
                                         size_t len,
                                         const kfjob_import_options *io,
                                         const kfjob_run_options *o,
                                         kfjob_import_fn cb, void *ud);

/**
 * Message of the last call on `h` that failed ("" after a success).
 * \param h the handle (NULL gives a fixed message).
 * \return text owned by `h`, valid until the next call on `h`.
 */
KFJOB_API const char *kfjob_host_message(const kfjob_host *h);

/**
 * Whether the last call on `h` failed because its input is not what kfjob
 * reads at all, rather than a text it reads with a mistake in it: text
 * holding a NUL byte (no YAML or JSON text; a manifest stream's or a data
 * config's), or a manifest whose kind or apiVersion kfjob refuses (a
 * near-miss of a job kind such as `PytorchJob`, another version of a job
 * kind, a kind of kubeflow.org it does not read, a kind without its
 * apiVersion or the reverse).  The status is the call's as documented
 * (::KFJOB_EDATA, ::KFJOB_ESCRIPT for a data config); `kfjob convert` exits
 * 2 for these, as for a misspelt option, and 1 for other invalid input.
 * \param h the handle (NULL gives 0).
 * \return 1 or 0 (0 after a success).
 */
KFJOB_API int kfjob_host_not_input(const kfjob_host *h);

/** Figures about the last run of a handle. */
typedef struct kfjob_usage {
  size_t memory_peak;              /**< Largest Lua memory in use, bytes
                                        (kfjob_host_import_manifests():
                                        its own memory, no Lua). */
  unsigned long long instructions; /**< Instructions the script used
                                        (counted in steps of 1000). */
  size_t jobs;                     /**< Jobs passed to the callback. */
  size_t failed;                   /**< Of those, jobs with an error. */
} kfjob_usage;

/**
 * Usage of the last run on `h`.
 * \param h the handle.
 * \param[out] u filled in (zeros when `h` is NULL or nothing ran yet).
 */
KFJOB_API void kfjob_host_usage(const kfjob_host *h, kfjob_usage *u);

/**
 * Name of a status, e.g. "script error".
 * \param s a status.
 * \return static text.
 */
KFJOB_API const char *kfjob_status_string(kfjob_status s);

/**
 * Short name of a format: "pb", "json", "yaml", "template",
 * "template-json", "manifest", "manifest-json", "none".
 * \param f a format.
 * \return static text, or NULL for an unknown value.
 */
KFJOB_API const char *kfjob_format_name(kfjob_format f);

/**
 * Parse a format name as kfjob_format_name() spells it.
 * \param name the name.
 * \param[out] out the format.
 * \retval 1 known name; \retval 0 unknown (out unchanged).
 */
KFJOB_API int kfjob_format_parse(const char *name, kfjob_format *out);

/**
 * Check a target name for kfjob_run_options::target.
 * \param name the name ("flyte", "operator", ...).
 * \param[out] msg on failure, why: "unknown target 'x' (did you mean
 *        'y'?)" or the list of targets; may be NULL.
 * \param cap size of msg in bytes.
 * \retval 1 a target; \retval 0 not one.
 */
KFJOB_API int kfjob_target_check(const char *name, char *msg, size_t cap);

/**
 * Text generated from kfjob's schema rows (`kfjob meta`, `kfjob schema`,
 * `kfjob explain`): runs the embedded generator `kfjob.<what>` in a state of
 * its own (no config, no sandbox: the generators read only the rows).
 * \param what  "meta" (the LuaCATS definition file), "schema" (JSON Schema
 *              of a data config: args[0] a kind or NULL, args[1] a target or
 *              NULL) or "explain" (args[0] KIND[.path], args[1] a target or
 *              NULL, args[2] non-NULL for --recursive), or "convert"
 *              (args[0] manifests text, args[1] "lua" for a config script,
 *              "config" for a data config as JSON or "config-yaml" as
 *              YAML: the jobs the manifests hold by name, as
 *              `kfjob.to_lua` / `to_config`; no sandbox, the YAML reader's
 *              limits bound the text; args[2] "\1manifests\t0", or
 *              "\1manifests\t1" to leave out of a data config what it
 *              cannot say instead of refusing it, optionally followed by
 *              "\tKIND" (read them as that kind, as --kind; empty: their
 *              own) and "\tKEY" for each job in order (its name in the
 *              output).  args[0] may be a TaskTemplate or TaskSpec as hex
 *              digits with args[2] "\1flyte\t<0|1>\tKIND\tNAME" (KIND
 *              empty for the template's own kind, NAME its job's name:
 *              "\1flyte\t0\t\tbert"), or a data config
 *              (no apiVersion) with args[2] "NAME" (a single job's name, a
 *              list's prefix) followed by a tab and the name of each job
 *              to write, none meaning all).
 * \param args  three strings or NULLs, as `what` says.
 * \param out   receives the text (malloc'd, NUL-terminated; free() it), or
 *              on KFJOB_EARG the message (also malloc'd; also for an
 *              unknown `what`, but not when `out` is NULL).
 * \retval KFJOB_OK     done.
 * \retval KFJOB_EARG   the generator refused its arguments (unknown kind,
 *                      target or path; the message says which).
 * \retval KFJOB_EMEMORY out of memory.
 */
KFJOB_API kfjob_status kfjob_generate(const char *what,
                                      const char *const args[3], char **out);

/**
 * The exact sum of two Kubernetes quantities ("8" + "500m" = "8500m",
 * "32Gi" + "16Gi" = "48Gi"), in Kubernetes' canonical form, keeping the
 * first non-zero one's format (as `resource.Quantity.Add`).
 * \param a, b  quantities without a sign.
 * \param out   receives the sum, NUL-terminated.
 * \param cap   size of out (96 is always enough).
 * \retval KFJOB_OK   done.
 * \retval KFJOB_EARG a NULL argument, a malformed quantity, a sum too large,
 *                    or out too small.
 */
KFJOB_API kfjob_status kfjob_quantity_add(const char *a, const char *b,
                                          char *out, size_t cap);

/**
 * The did-you-mean of kfjob's own messages (`kfjob.suggest` in Lua): the
 * candidate closest to `word` by edit distance (the first of equally
 * close ones), when it is close enough - at most two edits, or a third
 * of the word.
 * \param word       the word typed.
 * \param candidates NULL-terminated list of the words that exist.
 * \return one of `candidates`, or NULL when none is close (or an argument
 *         is NULL).
 */
KFJOB_API const char *kfjob_suggest(const char *word,
                                    const char *const *candidates);

/** @} */

#ifdef __cplusplus
}
#endif
#endif
