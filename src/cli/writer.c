/*
** writer.c - render -o DIR: job files are written by a second thread while
** the config goes on rendering, so the file system's cost (open, write,
** close: most of a render to a directory) overlaps the Lua side's.
**
** The callback (main thread) still does every check and keeps every list:
** it adds the job's entry to c->written, copies the job's bytes into the
** next slot of a bounded ring (QUEUE_SLOTS jobs in flight at most) and
** moves on.  The writer takes the slots in order and calls cli_write_job
** on each; the main thread collects the results in the same order and
** copies each proof into its entry.  After the first failure the writer
** skips every later slot, and the main thread, once it sees it (on the
** next job, or at the end), reports it as the serial code did and cuts
** c->written back to the files actually written.
**
** Why it is race-free: head (next slot to collect) is the main thread's
** alone; tail (next free slot) and done (next slot to write) are written
** under mu, each by one thread only.  A slot in [done, tail) belongs to
** the writer, one in [head, done) to the main thread again; ownership
** passes with the increment of done or tail under mu, which orders the
** slot's contents.  A slot's file name is its entry's heap string in
** c->written: moved with the array on a realloc but never changed or freed
** while queued (the list is cut only after the writer is idle).
*/
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define QUEUE_SLOTS 256   /* memory bound: this many job copies at most */
/* Slots a thread hands over at once: the other is woken (a futex call and
** a context switch each) once per BATCH jobs, not once per job. */
#define BATCH 32

typedef struct slot {
  const char *file;     /* the entry's name (see above) */
  size_t at;            /* the entry's position in c->written */
  char *data;           /* a copy of the job's bytes; kept for the next use */
  size_t n, cap;
  int newline, listed;   /* cli_write_job's arguments */
  int ok, err;          /* result: written (or already there), else errno */
  entry proof;          /* result: size, inode and hash when ok */
} slot;

struct writer {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t work, room;      /* the writer waits for work, main for room */
  int writer_waits, main_waits;   /* signal only a thread that waits */
  int dirfd;
  int closing;                    /* no more slots will come */
  int failed;                     /* a write failed: skip the rest */
  size_t head, done, tail;        /* head <= done <= tail <= head + QUEUE_SLOTS */
  size_t cut;                     /* position in c->written of the failed file */
  slot s[QUEUE_SLOTS];
};

static void *run(void *arg) {
  struct writer *w = (struct writer *)arg;
  pthread_mutex_lock(&w->mu);
  for (;;) {
    size_t i, end;
    int skip, failed = 0;
    while (w->done == w->tail && !w->closing) {
      w->writer_waits = 1;
      pthread_cond_wait(&w->work, &w->mu);
      w->writer_waits = 0;
    }
    if (w->done == w->tail) break;
    end = w->tail - w->done > BATCH ? w->done + BATCH : w->tail;
    skip = w->failed;
    pthread_mutex_unlock(&w->mu);
    for (i = w->done; i < end; i++) {   /* done: written only by this thread */
      slot *s = &w->s[i % QUEUE_SLOTS];
      s->ok = 0;
      s->err = 0;
      if (skip || failed) continue;
      memset(&s->proof, 0, sizeof s->proof);
      s->ok = cli_write_job(w->dirfd, s->file, s->data, s->n, s->newline, &s->proof,
                           s->listed) == 0;
      s->err = s->ok ? 0 : errno;
      failed = !s->ok;
    }
    pthread_mutex_lock(&w->mu);
    if (failed) w->failed = 1;
    w->done = end;
    if (w->main_waits) pthread_cond_signal(&w->room);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

void cli_writer_start(render_ctx *c) {
  struct writer *w = (struct writer *)cli_xmalloc(sizeof *w);
  sigset_t all, old;
  int r;
  memset(w, 0, sizeof *w);
  w->dirfd = c->dirfd;
  if (pthread_mutex_init(&w->mu, NULL) != 0) {
    free(w);
    return;
  }
  if (pthread_cond_init(&w->work, NULL) != 0) {
    pthread_mutex_destroy(&w->mu);
    free(w);
    return;
  }
  if (pthread_cond_init(&w->room, NULL) != 0) {
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return;
  }
  /* signals stay with the main thread */
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  r = pthread_create(&w->thread, NULL, run, w);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {   /* then the callback writes the files itself */
    pthread_cond_destroy(&w->room);
    pthread_cond_destroy(&w->work);
    pthread_mutex_destroy(&w->mu);
    free(w);
    return;
  }
  c->writer = w;
}

/* The results of slots [head, upto), in order (main thread, lock not held). */
static void collect(render_ctx *c, size_t upto) {
  struct writer *w = c->writer;
  for (; w->head < upto; w->head++) {
    slot *s = &w->s[w->head % QUEUE_SLOTS];
    if (c->write_failed) continue;   /* skipped by the writer */
    if (s->ok) {
      cli_entry_prove(&c->written.v[s->at], &s->proof);
    } else {
      fprintf(stderr, "kfjob: cannot write %s/%s: %s\n", c->o->outdir, s->file,
              strerror(s->err));
      c->status = EXIT_USAGE;
      c->write_failed = 1;
      w->cut = s->at;
    }
  }
}

/* The main thread's waits: wake the writer while `ready` does not hold;
** returns how far it has written. */
static int all_written(const struct writer *w) { return w->done == w->tail; }
static int room_or_failed(const struct writer *w) { return w->failed || w->done != w->head; }
static size_t wait_writer(struct writer *w, int (*ready)(const struct writer *)) {
  size_t done;
  pthread_mutex_lock(&w->mu);
  while (!ready(w)) {
    if (w->writer_waits) pthread_cond_signal(&w->work);
    w->main_waits = 1;
    pthread_cond_wait(&w->room, &w->mu);
    w->main_waits = 0;
  }
  done = w->done;
  pthread_mutex_unlock(&w->mu);
  return done;
}

int cli_writer_sync(render_ctx *c) {
  struct writer *w = c->writer;
  size_t done;
  if (w == NULL) return c->write_failed;
  done = wait_writer(w, all_written);
  collect(c, done);
  /* the writer is idle: the names of the entries cut are free to go */
  if (c->write_failed) cli_entries_truncate(&c->written, w->cut);
  return c->write_failed;
}

int cli_writer_queue(render_ctx *c, size_t at, const char *data, size_t n,
                     int newline, int listed) {
  struct writer *w = c->writer;
  size_t done;
  int failed;
  slot *s;
  if (c->write_failed) return 1;
  if (w->tail - w->head == QUEUE_SLOTS) {   /* full: wait for a written slot */
    done = wait_writer(w, room_or_failed);
    collect(c, done);
  }
  s = &w->s[w->tail % QUEUE_SLOTS];        /* collected: the main thread's */
  if (s->data == NULL || s->cap < n) {
    s->cap = n ? n : 1;
    s->data = (char *)cli_xrealloc(s->data, s->cap);
  }
  if (n) memcpy(s->data, data, n);
  s->n = n;
  s->newline = newline;
  s->listed = listed;
  s->file = c->written.v[at].file;
  s->at = at;
  pthread_mutex_lock(&w->mu);
  w->tail++;
  if (w->writer_waits && w->tail - w->done >= BATCH) pthread_cond_signal(&w->work);
  failed = w->failed;
  done = w->done;
  pthread_mutex_unlock(&w->mu);
  /* after a failure this job is skipped like every one queued after it */
  if (failed) return cli_writer_sync(c);   /* reports it, cuts the list: 1 */
  collect(c, done);
  return 0;
}

void cli_writer_stop(render_ctx *c) {
  struct writer *w = c->writer;
  size_t i;
  if (w == NULL) return;
  cli_writer_sync(c);
  pthread_mutex_lock(&w->mu);
  w->closing = 1;
  pthread_cond_signal(&w->work);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  for (i = 0; i < QUEUE_SLOTS; i++) free(w->s[i].data);
  pthread_cond_destroy(&w->room);
  pthread_cond_destroy(&w->work);
  pthread_mutex_destroy(&w->mu);
  free(w);
  c->writer = NULL;
}
