/*
** gateway.c - a tiny job-submission gateway built on libkfjob.
**
** It runs a user's config script in kfjob's sandbox (memory cap,
** instruction budget, no I/O) and writes one flyteidl.core.TaskTemplate
** file per job into OUTDIR, as a submission service would before handing
** them to Flyte.  A hostile config can fail, but it cannot crash or hang
** the gateway.
**
**   kfjob-gateway CONFIG.lua OUTDIR [KEY=VALUE...]
**
** Build against an installed kfjob:
**   cc gateway.c $(pkg-config --cflags --libs kfjob) -o kfjob-gateway
** or with CMake: find_package(kfjob) and link kfjob::kfjob (CMakeLists.txt).
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include <kfjob.h>

typedef struct gateway {
  const char *outdir;
  int written;
} gateway;

/* A job name we are willing to use as a file name. */
static int safe_name(const char *s) {
  if (*s == '\0' || *s == '.') return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.') return 0;
  return 1;
}

/* Called once per job.  job->data belongs to kfjob: use it (or copy it)
** before returning. */
static int on_job(void *ud, const kfjob_job *job) {
  gateway *g = (gateway *)ud;
  char path[4096];
  FILE *f;
  size_t i;
  if (!safe_name(job->name)) {
    fprintf(stderr, "gateway: refusing job name '%s'\n", job->name);
    return 1;                                   /* stop the run */
  }
  snprintf(path, sizeof path, "%s/%s.pb", g->outdir, job->name);
  if ((f = fopen(path, "wb")) == NULL ||
      fwrite(job->data, 1, job->size, f) != job->size || fclose(f) != 0) {
    perror(path);
    return 1;
  }
  for (i = 0; i < job->nwarnings; i++)
    printf("  warning: %s: %s\n", job->warnings[i].path, job->warnings[i].message);
  printf("submitted %s (%s, task type %s v%d, %zu bytes) -> %s\n", job->name,
         job->kind, job->task_type, job->version, job->size, path);
  g->written++;
  return 0;
}

int main(int argc, char **argv) {
  kfjob_host_options ho;
  kfjob_run_options ro;
  kfjob_host *h;
  kfjob_status st;
  gateway g;
  if (argc < 3) {
    fprintf(stderr, "usage: %s CONFIG.lua OUTDIR [KEY=VALUE...]\n", argv[0]);
    return 2;
  }
  printf("kfjob library %s (built with headers %s)\n", kfjob_version_string(),
         KFJOB_VERSION_STRING);

  kfjob_host_options_init(&ho);
  ho.memory_limit = (size_t)32 << 20;           /* 32 MiB per config */
  ho.instruction_limit = 100000000;             /* ~0.2 s of Lua */
  if (kfjob_host_new(&ho, &h) != KFJOB_OK) return 2;

  kfjob_run_options_init(&ro);
  ro.format = KFJOB_FORMAT_TEMPLATE;            /* TaskTemplate bytes */
  ro.params = (const char *const *)(argv + 3);  /* KEY=VALUE -> params.KEY */
  ro.nparams = (size_t)(argc - 3);
  ro.name = "job";
  ro.lint = 1;

  g.outdir = argv[2];
  g.written = 0;
  st = kfjob_host_run_file(h, argv[1], &ro, on_job, &g);
  if (st != KFJOB_OK)
    fprintf(stderr, "gateway: %s: %s\n", kfjob_status_string(st), kfjob_host_message(h));
  printf("%d job%s submitted\n", g.written, g.written == 1 ? "" : "s");
  kfjob_host_free(h);
  return st == KFJOB_OK ? 0 : 1;
}
