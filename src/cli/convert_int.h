/*
** convert_int.h - what the files of `kfjob convert` share, private to
** them: the command line (cargs), the jobs held until all converted
** (held, conv) and the functions one file defines for another, all
** convert_-prefixed.  Bottom to top: convert_read.c (reading the input
** and holding its documents; the time limit and a host call's report),
** convert_gen.c (-f lua, config, config-yaml: the generator), convert.c
** (the command line, writing out, cli_cmd_convert).
*/
#ifndef KFJOB_CLI_CONVERT_INT_H
#define KFJOB_CLI_CONVERT_INT_H

#include <stddef.h>

#include "cli.h"

/* The command line of convert. */
typedef struct cargs {
  const char *file, *to, *name, *kind, *outdir, *image;
  kfjob_format format;
  const char *config;   /* -f lua, config or config-yaml: the generator's mode,
                           else NULL */
  int lossy;
  unsigned long time_limit_ms;   /* --time-limit (0: the default) */
  size_t memory_limit;  /* --memory-limit (0: none); unset: by the input's size */
  int memory_set;
  unsigned long long start_ms;   /* when the command started (monotonic) */
  int format_set;       /* -f given; else a JSON manifest writes JSON back */
} cargs;

/* One job converted, held until every job is. */
typedef struct held {
  char *file;        /* its file name under -o DIR */
  size_t doc;        /* its document in the input (1-based; a config's job:
                        its place among the jobs) */
  size_t item;       /* its place in a List's items (1-based; 0: none) */
  char *ns;          /* a manifest's metadata.namespace, or NULL */
  char *stem;        /* its name among the others (names.c), or NULL */
  kfjob_job job;     /* data, name and kind copied */
} held;

/* What the input is. */
enum { IN_MANIFEST, IN_FLYTE, IN_DATA, IN_SCRIPT };

typedef struct conv {
  const cargs *a;
  int in;               /* IN_* */
  char *name;           /* a config's default job name (render's) */
  held *v;
  size_t n, cap;
  size_t unmapped;
  size_t refused;       /* documents the target refused, each reported */
  size_t others;        /* documents of other kinds held, copied through */
  int quiet;            /* the second pass of -f lua/config: no report */
  size_t seen;          /* jobs a config gave (held or refused) */
  int check_only;       /* the first pass of -f lua/config of manifests: the
                           target's checks, no manifest kept (the second
                           pass makes what the config is written from) */
  int reuse;            /* ... except without --to: the first pass keeps the
                           input's own target's JSON, and with no document
                           of another kind the second pass is not run */
  const char *text;     /* the input (convert_run), for copying documents */
  size_t ntext;
} conv;


/* ---- convert_read.c ------------------------------------------------------ */

/* The monotonic clock, in milliseconds. */
unsigned long long convert_now_ms(void);
/* The time left of the command's limit (at least 1 ms). */
unsigned long convert_time_left(const cargs *a);
/* A host call's failure as an exit status, said on stderr. */
int convert_report(kfjob_host *h, kfjob_status st, const cargs *a);
/* A held job's data becomes `text` (a config), its file NAME<ext>. */
int convert_replace_held(held *h, const char *text, const char *ext);
/* Each held job a name no other has; exit 2 when none can be told apart. */
int convert_unique_stems(conv *c);
/* `msg` in the command line's words (malloc'd). */
char *convert_user_words(const conv *c, const char *msg);
/* JSON input: IN_MANIFEST, IN_DATA, IN_FLYTE, or -1 (not JSON). */
int convert_json_input(const char *d, size_t n);
/* What the input is (IN_*), by its file name and text. */
int convert_input_of(const char *file, const char *d, size_t n);
/* Read and convert the input, holding each job in c. */
kfjob_status convert_run(kfjob_host *h, conv *c, const char *data, size_t n);
/* Free what c holds. */
void convert_free(conv *c);

/* ---- convert_gen.c ------------------------------------------------------- */

/* -f lua / config / config-yaml: the held jobs made a config. */
int convert_to_config(kfjob_host *h, conv *c, const char *data, size_t n);

#endif
