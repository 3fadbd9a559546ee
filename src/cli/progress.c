/*
** progress.c - the progress bar of render and check on stderr: shown on a
** terminal only when a render takes a while (or with --progress), redrawn
** in place there and one line per update elsewhere.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void cli_progress_init(progress *p, int setting) {
  memset(p, 0, sizeof *p);
  p->tty = isatty(STDERR_FILENO);
  p->on = setting == 1 || (setting == -1 && p->tty);
  p->forced = setting == 1;
  p->start = p->last = now();
}

/* "12.5/s", "3/s", "0.20/s" */
static void put_rate(double rate) {
  if (rate >= 100) fprintf(stderr, "%.0f/s", rate);
  else if (rate >= 10) fprintf(stderr, "%.1f/s", rate);
  else fprintf(stderr, "%.2f/s", rate);
}

/* "42s", "3m05s", "1h02m" */
static void put_duration(double s) {
  unsigned long t = (unsigned long)(s + 0.5);
  if (t < 60) fprintf(stderr, "%lus", t);
  else if (t < 3600) fprintf(stderr, "%lum%02lus", t / 60, t % 60);
  else fprintf(stderr, "%luh%02lum", t / 3600, t / 60 % 60);
}

/* [#####.......] 5/12 41% 3.20/s 2s left NAME, or without a total
** [|] 12 jobs 3.20/s NAME. */
static void progress_draw(progress *p) {
  double el = now() - p->start, rate = el > 0 ? p->done / el : 0;
  p->shown = 1;
  p->drawn = p->done;
  fputs(p->tty ? "\r\033[K" : "", stderr);
  if (p->total) {
    int i, w = 30, fill = (int)(w * p->done / p->total);
    fputc('[', stderr);
    for (i = 0; i < w; i++) fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %zu/%zu %d%% ", p->done, p->total,
            (int)(100.0 * p->done / p->total));
    put_rate(rate);
    if (p->done < p->total && rate > 0) {
      fputc(' ', stderr);
      put_duration((double)(p->total - p->done) / rate);
      fputs(" left", stderr);
    }
    fprintf(stderr, " %s", p->name);
  } else {
    fprintf(stderr, "[%c] %zu jobs ", "|/-\\"[p->done % 4], p->done);
    put_rate(rate);
    fprintf(stderr, " %s", p->name);
  }
  if (!p->tty) fputc('\n', stderr);
  fflush(stderr);
}

void cli_progress_update(progress *p, const kfjob_job *j) {
  double t = now();
  if (!p->on) return;
  p->done = j->index + 1;
  p->total = j->total;
  snprintf(p->name, sizeof p->name, "%s", j->name);
  if (!p->forced && t - p->start < 0.3) return;     /* only long renders */
  if (p->shown && t - p->last < 0.1 && p->done != p->total) return;
  p->last = t;
  progress_draw(p);
}

/* The final count (when it was not drawn), then clear a terminal line. */
void cli_progress_end(progress *p) {
  if (p->shown && p->drawn != p->done) progress_draw(p);
  if (p->shown && p->tty) fputs("\r\033[K", stderr);
  fflush(stderr);
}
