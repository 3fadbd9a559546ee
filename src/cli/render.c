/*
** render.c - `kfjob render`: run a config script and write every job it
** returns to stdout or, with -o DIR, one file per job, removing the files
** a previous render wrote there and this one did not.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* A job that failed under --keep-going: its error, with the config's
** line when known. */
static int report_failed(render_ctx *c, const kfjob_job *j) {
  if (cli_writer_sync(c)) return 1;      /* a file before it failed: stop there */
  c->nfailed++;
  if (c->prog.shown && c->prog.tty) fputs("\r\033[K", stderr);
  long line;
  const char *msg = cli_split_position(c->config, j->error, &line);
  const char *hint = c->nfailed == 1 ? cli_registration_hint(j->error) : "";
  if (line) fprintf(stderr, "%s:%ld: job '%s': %s%s\n", c->config, line, j->name, msg, hint);
  else fprintf(stderr, "%s: job '%s': %s%s\n", c->config, j->name, msg, hint);
  return 0;
}

/* A TaskSpec for -o DIR: held until the end, named by its task. */
static int hold_taskspec(render_ctx *c, const kfjob_job *j) {
  pending *p;
  char *task = cli_taskspec_name(j->data, j->size, j->format == KFJOB_FORMAT_TASKSPEC_JSON);
  if (task == NULL || !cli_safe_file_name(task)) {
    fprintf(stderr, "%s: job '%s': the task name '%s' cannot be used in a file name "
            "(letters, digits, '-', '_' and '.', not first)\n", c->config, j->name,
            task ? task : "");
    free(task);
    c->status = EXIT_INVALID;
    return 1;
  }
  if (c->npend == c->cappend)
    c->pend = (pending *)cli_xrealloc(c->pend, (c->cappend = c->cappend ? 2 * c->cappend : 16) *
                                                 sizeof *c->pend);
  p = &c->pend[c->npend++];
  p->task = task;
  p->data = (char *)memcpy(cli_xmalloc(j->size ? j->size : 1), j->data, j->size);
  p->size = j->size;
  p->type = cli_xstrdup(j->task_type);
  p->kind = cli_xstrdup(j->kind);
  p->name = cli_xstrdup(j->name);
  p->version = j->version;
  p->format = j->format;
  return 0;
}

/* A job's file in -o DIR (by the writer thread when there is one). */
static int write_job_file(render_ctx *c, const kfjob_job *j) {
  const opts *o = c->o;
  char file[256];   /* a safe name (<= 200 bytes) and its extension */
  const char *ext = cli_ext_of(j->format);
  size_t len;
  entry proof;
  if (!cli_safe_file_name(j->name)) {
    if (cli_writer_sync(c)) return 1;
    fprintf(stderr, "%s: job '%s': the name cannot be used as a file name "
            "(letters, digits, '-', '_' and '.', not first)\n", c->config, j->name);
    c->status = EXIT_INVALID;
    return 1;
  }
  len = strlen(j->name);
  memcpy(file, j->name, len);
  memcpy(file + len, ext, strlen(ext) + 1);
  if (cli_entries_find(&c->written, file)) {
    if (cli_writer_sync(c)) return 1;   /* that failure comes first */
    fprintf(stderr, "%s: job '%s': a second job writes %s\n", c->config, j->name, file);
    c->status = EXIT_INVALID;
    return 1;
  }
  if (c->writer) {   /* the entry now, the file by the writer thread */
    cli_entries_add(&c->written, file, kfjob_format_name(j->format), j->task_type,
                    j->version, j->kind, j->name);
    return cli_writer_queue(c, c->written.n - 1, j->data, j->size,
                            cli_is_text_format(j->format),
                            cli_entries_find(&c->old, file) != NULL);
  }
  if (o->dry_run) {
    printf("would write %s/%s (%zu bytes)\n", o->outdir, file, j->size);
  }
  memset(&proof, 0, sizeof proof);
  if (!o->dry_run && cli_write_job(c->dirfd, file, j->data, j->size,
                                      cli_is_text_format(j->format), &proof,
                                      cli_entries_find(&c->old, file) != NULL) != 0) {
    fprintf(stderr, "kfjob: cannot write %s/%s: %s\n", o->outdir, file, strerror(errno));
    c->status = EXIT_USAGE;
    return 1;
  }
  cli_entry_prove(cli_entries_add(&c->written, file, kfjob_format_name(j->format),
                                  j->task_type, j->version, j->kind, j->name), &proof);
  return 0;
}

/* A job to stdout: a --dry-run line, the one binary job, or text. */
static int write_stdout(render_ctx *c, const kfjob_job *j) {
  const opts *o = c->o;
  if (o->dry_run) {
    printf("%s\t%s\t%s\tv%d\t%zu bytes\n", j->name, j->kind, j->task_type,
           j->version, j->size);
    return 0;
  }
  if (!cli_is_text_format(j->format)) {
    if (c->binary_count++) {
      fprintf(stderr, "kfjob: -f %s writes a single job to stdout and %s has "
              "more; use -o DIR or --name\n", kfjob_format_name(j->format), c->config);
      c->status = EXIT_USAGE;
      return 1;
    }
    c->binary = (char *)memcpy(cli_xmalloc(j->size), j->data, j->size);
    c->binary_len = j->size;
    return 0;
  }
  cli_write_stream(c, stdout, j);
  if (ferror(stdout)) {
    c->status = EXIT_USAGE;
    return 1;
  }
  return 0;
}

static int on_render(void *ud, const kfjob_job *j) {
  render_ctx *c = (render_ctx *)ud;
  const opts *o = c->o;
  c->njobs++;
  cli_progress_update(&c->prog, j);
  if (c->sum) cli_summary_add(c->sum, j);
  if (j->error) return report_failed(c, j);   /* --keep-going */
  if (o->outdir && cli_is_taskspec_format(j->format)) return hold_taskspec(c, j);
  if (o->outdir) return write_job_file(c, j);
  return write_stdout(c, j);
}

/* The held TaskSpec files, named as pyflyte package names them:
** <index>_<task name>_1.pb (1: resource type TASK), the index zero-padded
** to ceil(log10(count)) digits, from 0 in render order. */
static void write_pending(render_ctx *c) {
  const opts *o = c->o;
  size_t i, p10 = 1;
  int width = 0;
  for (; p10 < c->npend; p10 *= 10) width++;
  for (i = 0; i < c->npend && c->status == 0; i++) {
    pending *p = &c->pend[i];
    char *file = cli_xprintf("%0*zu_%s_1%s", width, i, p->task, cli_ext_of(p->format));
    entry proof;
    memset(&proof, 0, sizeof proof);
    if (cli_entries_find(&c->written, file)) {
      fprintf(stderr, "%s: job '%s': a second job writes %s\n", c->config, p->name, file);
      c->status = EXIT_INVALID;
    } else if (o->dry_run) {
      printf("would write %s/%s (%zu bytes)\n", o->outdir, file, p->size);
    } else if (cli_write_job(c->dirfd, file, p->data, p->size,
                                cli_is_text_format(p->format), &proof,
                                cli_entries_find(&c->old, file) != NULL) != 0) {
      fprintf(stderr, "kfjob: cannot write %s/%s: %s\n", o->outdir, file, strerror(errno));
      c->status = EXIT_USAGE;
    }
    if (c->status == 0)
      cli_entry_prove(cli_entries_add(&c->written, file, kfjob_format_name(p->format),
                                      p->type, p->version, p->kind, p->name), &proof);
    free(file);
  }
  for (i = 0; i < c->npend; i++) {
    free(c->pend[i].task);
    free(c->pend[i].data);
    free(c->pend[i].type);
    free(c->pend[i].kind);
    free(c->pend[i].name);
  }
  free(c->pend);
  c->pend = NULL;
  c->npend = 0;
}

/* -o DIR: made, opened (everything below happens in the directory opened
** here) and its outputs list read; 0 or the exit code of a failure. */
static int open_outdir(render_ctx *c) {
  const opts *o = c->o;
  if (!o->dry_run && cli_mkdir_p(o->outdir, &c->made) != 0)
    return cli_errorf(EXIT_USAGE, "cannot create %s: %s", o->outdir, strerror(errno));
  c->dirfd = open(o->outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (c->dirfd < 0 && !(o->dry_run && errno == ENOENT))
    return cli_errorf(EXIT_USAGE, "cannot open %s: %s", o->outdir, strerror(errno));
  cli_entries_load_at(&c->old, c->dirfd);
  return 0;
}

/* After the run: stale files removed (only after a complete render), the
** outputs list saved; returns the exit code, `code` or a new failure. */
static int finish_outdir(render_ctx *c, int code) {
  const opts *o = c->o;
  size_t i, removed = 0;
  /* stale files go only after a complete render; the list then holds
  ** exactly what this render wrote, else everything either one wrote */
  for (i = 0; i < c->old.n; i++) {
    const entry *e = &c->old.v[i];
    int r;
    if (cli_entries_find(&c->written, e->file)) continue;
    if (code != 0) {
      cli_entry_prove(cli_entries_add(&c->written, e->file, e->format, e->type,
                                      e->version, e->kind, e->name), e);
      continue;
    }
    r = cli_remove_written(c->dirfd, e, o->dry_run);
    if (r > 0 && o->dry_run) {
      printf("would remove %s/%s\n", o->outdir, e->file);
    } else if (r > 0) {
      removed++;
    } else if (r < 0) {
      fprintf(stderr, "kfjob: cannot remove %s/%s: %s\n", o->outdir, e->file,
              strerror(errno));
      code = EXIT_USAGE;
    }
  }
  if (!o->dry_run && code != 0 && c->written.n == 0) {
    /* nothing written, nothing listed before: the render leaves no trace */
    if (c->made) cli_rmdir_made(o->outdir, c->made);
  } else if (!o->dry_run) {
    if (cli_entries_save(&c->written, c->dirfd) != 0)
      code = cli_errorf(EXIT_USAGE, "cannot write %s/%s: %s", o->outdir,
                        OUTPUTS_FILE, strerror(errno));
    else if (code == 0 && removed)
      fprintf(stderr, "kfjob: %zu job%s written to %s, %zu stale file%s removed\n",
              c->written.n, c->written.n == 1 ? "" : "s", o->outdir, removed,
              removed == 1 ? "" : "s");
    else if (code == 0)
      fprintf(stderr, "kfjob: %zu job%s written to %s\n", c->written.n,
              c->written.n == 1 ? "" : "s", o->outdir);
  }
  return code;
}

int cli_cmd_render(const opts *o) {
  render_ctx c;
  kfjob_run_options ro;
  kfjob_host *h;
  kfjob_status st;
  char *name = cli_default_name(o->pos[0]);
  int code;
  memset(&c, 0, sizeof c);
  c.dirfd = -1;
  c.o = o;
  c.config = cli_config_label(o->pos[0]);
  if (!o->outdir && !o->dry_run && !cli_is_text_format(o->format) &&
      isatty(STDOUT_FILENO)) {
    free(name);
    return cli_errorf(EXIT_USAGE, "-f %s writes binary data: use -o DIR or redirect "
                      "stdout", kfjob_format_name(o->format));
  }
  if (o->outdir && (code = open_outdir(&c)) != 0) {
    if (c.made) cli_rmdir_made(o->outdir, c.made);
    free(c.made);
    free(name);
    return code;
  }
  cli_run_options(o, &ro, name);
  ro.keep_going = o->keep_going;
  ro.resources = o->summary;
  if (o->summary) c.sum = cli_summary_new(0, stderr);
  if (o->outdir && (o->format == KFJOB_FORMAT_JSON ||
                    o->format == KFJOB_FORMAT_TEMPLATE_JSON ||
                    o->format == KFJOB_FORMAT_MANIFEST_JSON ||
                    o->format == KFJOB_FORMAT_TASKSPEC_JSON))
    ro.indent = 2;
  cli_progress_init(&c.prog, o->progress);
  h = cli_make_host(o);
  /* the writer thread: job files but the TaskSpec ones (held, see
  ** write_pending); not with --summary, whose table must stop at a file
  ** that cannot be written (the thread sees it up to 256 jobs late) */
  if (o->outdir && !o->dry_run && !o->summary && !cli_is_taskspec_format(o->format))
    cli_writer_start(&c);
  st = cli_run_config(h, o, o->pos[0], &ro, on_render, &c);
  cli_writer_stop(&c);   /* every file written (or failed) before the list is made */
  cli_progress_end(&c.prog);
  if (c.npend) write_pending(&c);
  if (c.sum) cli_summary_finish(c.sum, NULL);
  cli_summary_free(c.sum);
  code = c.status ? c.status : cli_report(h, st, c.config);
  /* a file that failed before the run ended stopped it, as far as what is
  ** reported goes: what the config did after it is not (the serial code
  ** never got there) */
  if (c.status && st != KFJOB_ESTOPPED && !c.write_failed) cli_report(h, st, c.config);
  if (code == 0 && c.binary) {
    if (fwrite(c.binary, 1, c.binary_len, stdout) != c.binary_len)
      code = cli_errorf(EXIT_USAGE, "cannot write to stdout");
  }
  if (o->outdir) code = finish_outdir(&c, code);
  if (fflush(stdout) != 0 && code == 0) code = cli_errorf(EXIT_USAGE, "cannot write to stdout");
  if (c.dirfd >= 0) close(c.dirfd);
  cli_entries_free(&c.old);
  cli_entries_free(&c.written);
  free(c.made);
  free(c.binary);
  free(name);
  kfjob_host_free(h);
  return code;
}
