/*
** cli.h - what the files of the `kfjob` tool share: the parsed options,
** the state its commands pass between files, and every function one file
** defines for another (all cli_-prefixed).  Internal to src/cli/; it
** includes only library headers, so no file depends on another's includes.
*/
#ifndef KFJOB_CLI_H
#define KFJOB_CLI_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "kfjob.h"

#define EXIT_INVALID 1
#define EXIT_USAGE 2
#define OUTPUTS_FILE ".kfjob-outputs"

/* ---- options (args.c) ---------------------------------------------------- */

enum { C_RENDER = 1, C_CHECK = 2, C_DECODE = 4, C_DIFF = 8, C_ENV = 16, C_ALL = 31 };

typedef struct opts {
  int cmd;
  const char *cmdname;
  const char *pos[3];
  int npos;
  kfjob_format format;
  int format_set;
  int version;
  const char *outdir;
  const char **params;
  size_t nparams;
  const char **string_params;   /* --set-string */
  size_t nstring_params;
  const char *name, *ns, *image, *replica_encoding, *type;
  /* TaskSpec registration (-f taskspec): --project, --domain, --version,
  ** --args (one per flag), --retries (-1: none), --timeout */
  const char *project, *domain, *task_version, *timeout;
  const char **args;
  size_t nargs;
  int retries;
  int dry_run, progress, keep_going, strict;
  int summary, summary_json;    /* render --summary; check -f json */
  size_t memory_limit;
  unsigned long long instruction_limit;
  unsigned long time_limit_ms;
  const char *target;           /* --target, NULL: the command's default */
  const char *pod;              /* env --pod */
  int env_json;                 /* env -f json (else -f env) */
} opts;

/* Parse argv into o; returns -1 when done, else an exit status. */
int cli_parse_args(int argc, char **argv, opts *o);
/* "500ms", "30s", "2m", "1h" -> milliseconds (a bare number: seconds);
** -1 when it is not one. */
int cli_parse_duration(const char *s, unsigned long long *out);
/* "64M", "1G", "65536" -> bytes (binary: 1024-based units); -1 if malformed. */
int cli_parse_size(const char *s, unsigned long long *out, int binary);
/* A DNS-1123 label (1035: starting with a letter), at most 63 characters
** (apimachinery IsDNS1123Label / IsDNS1035Label); 1 if it is one. */
int cli_dns_label(const char *s, int dns1035);

/* ---- generators from the schema rows (meta.c, schema.c, explain.c) -------- */

/* Each a whole command, dispatched from main.c before cli_parse_args. */
int cli_cmd_meta(int argc, char **argv);
int cli_cmd_schema(int argc, char **argv);
int cli_cmd_explain(int argc, char **argv);
/* `kfjob convert` (convert.c), dispatched the same way. */
int cli_cmd_convert(int argc, char **argv);
/* argv[2..] of a generator command (meta.c); -1, or an exit status. */
int cli_generator_args(int argc, char **argv, const char *usage,
                       const char *flag, const char **pos, const char **target,
                       int *flag_set);
/* Prints kfjob_generate's text (frees it); returns the exit status. */
int cli_print_generated(kfjob_status st, char *text);

/* ---- small helpers (util.c) ---------------------------------------------- */

void cli_die_oom(void);
void *cli_xmalloc(size_t n);
void *cli_xrealloc(void *p, size_t n);
char *cli_xstrdup(const char *s);
char *cli_xprintf(const char *fmt, ...);
/* "kfjob: " and the message on stderr; returns code. */
int cli_errorf(int code, const char *fmt, ...);
/* Read a whole file ("-": stdin).  Returns 0, or -1 with errno set. */
int cli_read_file(const char *path, char **data, size_t *len);
/* The same, reading no more than max + 1 bytes (0: no cap): more is -1
** with errno EFBIG. */
int cli_read_file_max(const char *path, size_t max, char **data, size_t *len);
/* The largest input `kfjob convert` reads: the strict YAML/JSON reader's
** limit of a text (a data config's, kf_yaml_read.h KF_YAML_MAX_BYTES). */
#define CLI_MAX_INPUT ((size_t)16 << 20)
const char *cli_base_of(const char *path);
char *cli_dir_of(const char *path);
/* File name without directory and without its extensions. */
char *cli_stem_of(const char *path);
/* For a job error about missing TaskSpec registration fields, the flags
** that set them (a sentence to print after it); else "". */
const char *cli_registration_hint(const char *msg);
/* An error that starts with "CONFIG:LINE: ": the rest, and *line set;
** else the error itself and *line = 0. */
const char *cli_split_position(const char *config, const char *err, long *line);

/* ---- distinct names for the jobs of one convert (names.c) ---------------- */

/* A job (or a document copied through) by what tells it from another. */
typedef struct cli_named {
  const char *name, *ns, *kind;   /* ns: NULL when none */
  size_t doc, item;               /* 1-based; item 0: not a List's */
} cli_named;
/* Distinct names, malloc'd (each and the array): a name where it is
** unique, else "NS.NAME", then "NS.KIND.NAME", then with ".DOC" (and
** ".ITEM"), until none collides; NULL when even those do (a name made to
** match another's). */
char **cli_unique_names(const cli_named *v, size_t n);

/* ---- progress bar on stderr (progress.c) --------------------------------- */

typedef struct progress {
  int on;         /* 1: show, 0: never */
  int tty;        /* stderr is a terminal: redraw in place */
  int forced;     /* --progress: from the first job */
  double start, last;
  int shown;
  size_t done, total, drawn;  /* jobs seen, known total, jobs last drawn */
  char name[48];              /* the last job */
} progress;

void cli_progress_init(progress *p, int setting);
void cli_progress_update(progress *p, const kfjob_job *j);
/* The final count (when it was not drawn), then clear a terminal line. */
void cli_progress_end(progress *p);

/* ---- the host API, as every command uses it (host.c) --------------------- */

kfjob_host *cli_make_host(const opts *o);
/* Exit status of a failed host call, after printing its message. */
int cli_report(kfjob_host *h, kfjob_status st, const char *what);
/* Default job name: the config's file name without extension. */
char *cli_default_name(const char *config);
void cli_run_options(const opts *o, kfjob_run_options *ro, const char *name);
/* How messages name a config: "stdin" for "-". */
const char *cli_config_label(const char *path);
/* kfjob_host_run_file(), with "-" read from stdin. */
kfjob_status cli_run_config(kfjob_host *h, const opts *o, const char *path,
                            const kfjob_run_options *ro, kfjob_job_fn cb,
                            void *ud);

/* ---- writing jobs: formats, files, -o DIR (outputs.c) -------------------- */

/* One line of DIR/.kfjob-outputs: a file a render wrote there, with what
** proves it (the file's size, inode and content hash when written). */
typedef struct entry {
  char *file, *format, *type, *kind, *name;   /* one block, owned by file */
  int version;
  int proof;                 /* size, ino and hash are known */
  unsigned long long size, ino, hash;
} entry;

/* A slot of the index of entries by file name. */
typedef struct entry_slot {
  size_t at;                 /* 1 + position in v, 0: free */
  unsigned long long hash;   /* FNV-1a of the file name */
} entry_slot;

typedef struct entries {
  entry *v;
  size_t n, cap;
  entry_slot *slot;          /* open-addressing index by file name */
  size_t nslot;
} entries;

/* -f taskspec -o DIR: a file held until the run ends, when the number of
** files (which sets the width of its index, as pyflyte package's) is known. */
typedef struct pending {
  char *task, *data, *type, *kind, *name;   /* task: the TaskSpec's id.name */
  size_t size;
  int version;
  kfjob_format format;
} pending;

/* A render in progress; decode borrows it to print jobs the same way. */
typedef struct render_ctx {
  const opts *o;
  const char *config;
  progress prog;
  int status;                /* exit status decided in the callback */
  size_t njobs, nfailed;
  entries old, written;      /* -o: previous list, this render's files */
  int dirfd;                 /* -o: the directory, opened once (-1: none) */
  char *made;                /* -o: the first directory this run created, or NULL */
  struct summary *sum;       /* --summary: the resource table, else NULL */
  /* stdout */
  size_t ndocs;
  char *binary;              /* pb/template to stdout: the single job */
  size_t binary_len;
  int binary_count;
  pending *pend;             /* -f taskspec -o DIR */
  size_t npend, cappend;
  struct writer *writer;     /* -o DIR: the thread writing job files, or NULL */
  int write_failed;          /* a job file could not be written (reported) */
} render_ctx;

/* A job name that can be a file name: no '/', no leading '.'. */
int cli_safe_file_name(const char *s);
int cli_is_text_format(kfjob_format f);
const char *cli_ext_of(kfjob_format f);
int cli_is_taskspec_format(kfjob_format f);
/* The task name (template.id.name) of TaskSpec bytes or JSON, malloc'd;
** NULL when it has none. */
char *cli_taskspec_name(const char *data, size_t n, int json);
entry *cli_entries_add(entries *es, const char *file, const char *format,
                       const char *type, int version, const char *kind,
                       const char *name);
void cli_entries_free(entries *es);
const entry *cli_entries_find(const entries *es, const char *file);
/* Drops the entries from position n on. */
void cli_entries_truncate(entries *es, size_t n);
/* Read DIR/.kfjob-outputs; a missing file is an empty list. */
void cli_entries_load(entries *es, const char *dir);
/* The same from the directory open as `dirfd`. */
void cli_entries_load_at(entries *es, int dirfd);
int cli_entries_save(const entries *es, int dirfd);
/* One job to stdout in the stream form of its format. */
void cli_write_stream(render_ctx *c, FILE *f, const kfjob_job *j);
/* Write data to `file` in the directory `dirfd` through a new temporary
** file (O_CREAT|O_EXCL|O_NOFOLLOW, unpredictable name) and a rename, so
** nothing planted in the directory is followed or overwritten.  Fills
** e's proof (size, inode, content hash) when `e` is not NULL. */
int cli_write_atomic(int dirfd, const char *file, const char *data, size_t n,
                     int newline, entry *e);
/* A file of cli_write_all. */
typedef struct cli_file {
  const char *name;      /* in the directory */
  const char *data;
  size_t size;
  int newline;           /* add a final newline when missing */
} cli_file;
/* All or nothing: every file written under a temporary name first (as
** cli_write_atomic does), and renamed to its name only when all were; on
** a failure none is renamed and the temporary files are removed (only a
** rename failing midway, after every file was written, leaves the ones
** renamed before it).  -1 with errno, *failed the file that failed. */
int cli_write_all(int dirfd, const cli_file *f, size_t n, size_t *failed);
/* The same for a job's file, except that a name which does not exist yet
** is created under itself (O_CREAT|O_EXCL|O_NOFOLLOW) and written in place:
** a reader may see that new file grow; an existing regular file that
** already holds exactly these bytes is left untouched (its proof from
** fstat); any other existing one is still replaced by a rename.  On a
** write error the file created is removed.  `listed`: the previous
** render's list names the file (it is looked at before a create is
** tried).  Safe to call from the writer thread (writer.c): it touches
** nothing but its arguments. */
int cli_write_job(int dirfd, const char *file, const char *data, size_t n,
                  int newline, entry *e, int listed);
/* Remove e's file from `dirfd` only if it is the regular file e proves
** kfjob wrote (same size, inode and content hash); with `dry`, only check.
** 1 removed (or would be), 0 kept (not provably ours, or gone), -1 error
** (errno). */
int cli_remove_written(int dirfd, const entry *e, int dry);
/* Copies the proof of `from` into `to`. */
void cli_entry_prove(entry *to, const entry *from);
int cli_mkdir_p(const char *dir, char **made);
/* Remove `dir` and its parents up to `made` (what cli_mkdir_p created),
** each only if empty: a render that wrote nothing leaves nothing. */
void cli_rmdir_made(const char *dir, const char *made);

/* ---- render -o DIR: job files written by a second thread (writer.c) ------ */

/* Starts the thread writing c's job files into c->dirfd; when it cannot,
** c->writer stays NULL and files are written in the callback. */
void cli_writer_start(render_ctx *c);
/* Queues the file of the entry at position `at` of c->written (added by the
** caller, so duplicates are caught at once) with a copy of data.  Returns 1
** (stop the run) when an earlier file could not be written; see sync. */
int cli_writer_queue(render_ctx *c, size_t at, const char *data, size_t n,
                     int newline, int listed);
/* Waits until every queued file is written and records their proofs.  On
** the first failure: prints "kfjob: cannot write DIR/FILE: reason", sets
** c->status and c->write_failed, and drops that file's entry and all after
** it (none of which was written).  Returns c->write_failed. */
int cli_writer_sync(render_ctx *c);
/* sync, then ends the thread. */
void cli_writer_stop(render_ctx *c);

/* ---- reading renders back as JSON documents (readback.c) ----------------- */

typedef struct doc {
  char *name;
  json_t *v;
  int anon;                  /* named after its file, not by its content */
} doc;

typedef struct docs {
  doc *v;
  size_t n, cap;
} docs;

void cli_docs_free(docs *d);
/* Decode one binary (or TaskTemplate JSON) file into documents (out) or
** onto stdout (stream).  Returns an exit status. */
int cli_decode_bytes(kfjob_host *h, const opts *o, const char *path,
                     const char *data, size_t n, const entry *e,
                     docs *out, render_ctx *stream);
/* Documents of a file, a -o directory or a config script.  Returns an
** exit status. */
int cli_load_side(kfjob_host *h, const opts *o, const char *path, docs *out);

/* ---- the resource table (summary.c) ------------------------------------- */

typedef struct summary summary;
/* json: write a JSON document to `out` as the jobs come; else a table. */
summary *cli_summary_new(int json, FILE *out);
/* One job (a failed one is a row saying so, out of the totals). */
void cli_summary_add(summary *s, const kfjob_job *j);
/* The table with its totals row, or the end of the JSON document with
** "total" and the members of `extra` (a JSON object, taken; may be NULL). */
void cli_summary_finish(summary *s, json_t *extra);
void cli_summary_free(summary *s);

/* ---- the commands (render.c, check.c, decode.c, diff.c) ------------------ */

int cli_cmd_render(const opts *o);
int cli_cmd_check(const opts *o);
int cli_cmd_decode(const opts *o);
int cli_cmd_diff(const opts *o);
int cli_cmd_env(const opts *o);     /* env.c */

#endif
