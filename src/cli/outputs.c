/*
** outputs.c - writing jobs: the stream form of each format on stdout,
** files written into a directory, and the list of files a render wrote
** there (DIR/.kfjob-outputs), which lets the next render remove stale
** files and lets diff and decode know what each file holds.
**
** Files in DIR are created the way mkstemp(3) and openat(2) with
** O_NOFOLLOW make safe: relative to the directory opened once, with
** O_CREAT|O_EXCL|O_NOFOLLOW (a link planted in DIR is never followed, an
** existing file never reused).  A job's file whose name is free is created
** under that name and written in place; a name that exists is left alone
** when it is a regular file that already holds the job's bytes (read
** through a descriptor opened with O_NOFOLLOW); otherwise it (and the
** list, always) is written under a new unpredictable temporary name and
** renamed over it (rename replaces a link, it does not follow it).  A stale file is
** removed only when it is still the regular file the list proves kfjob
** wrote: same size, inode and content hash.
*/
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

/* JSON string literal of s (escaped) appended to f. */
static void put_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* A job name that can be a file name: no '/', no leading '.'. */
int cli_safe_file_name(const char *s) {
  size_t i, n = strlen(s);
  if (n == 0 || n > 200 || s[0] == '.' || s[0] == '-') return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (!(isalnum(c) || c == '-' || c == '_' || c == '.')) return 0;
  }
  return 1;
}

int cli_is_text_format(kfjob_format f) {
  return f != KFJOB_FORMAT_PB && f != KFJOB_FORMAT_TEMPLATE && f != KFJOB_FORMAT_TASKSPEC;
}

int cli_is_taskspec_format(kfjob_format f) {
  return f == KFJOB_FORMAT_TASKSPEC || f == KFJOB_FORMAT_TASKSPEC_JSON;
}

/* The length-delimited field `num` of the message in p..p+n (the last one,
** as a parser merges), or 0. */
static int pb_field(const unsigned char *p, size_t n, unsigned num,
                    const unsigned char **sub, size_t *subn) {
  const unsigned char *end = p + n;
  int found = 0;
  while (p < end) {
    unsigned long long tag = 0, v = 0;
    int sh = 0;
    do {
      if (p == end || sh > 63) return found;
      tag |= (unsigned long long)(*p & 0x7f) << sh;
      sh += 7;
    } while (*p++ & 0x80);
    switch (tag & 7) {
      case 0:
        do { if (p == end) return found; } while (*p++ & 0x80);
        break;
      case 1: if ((size_t)(end - p) < 8) return found; p += 8; break;
      case 5: if ((size_t)(end - p) < 4) return found; p += 4; break;
      case 2:
        sh = 0;
        do {
          if (p == end || sh > 63) return found;
          v |= (unsigned long long)(*p & 0x7f) << sh;
          sh += 7;
        } while (*p++ & 0x80);
        if (v > (unsigned long long)(end - p)) return found;
        if ((tag >> 3) == num) *sub = p, *subn = (size_t)v, found = 1;
        p += v;
        break;
      default: return found;
    }
  }
  return found;
}

char *cli_taskspec_name(const char *data, size_t n, int json) {
  if (json) {
    json_t *root = json_loadb(data, n, 0, NULL);
    const char *s = json_string_value(json_object_get(
        json_object_get(json_object_get(root, "template"), "id"), "name"));
    char *r = s && s[0] ? cli_xstrdup(s) : NULL;
    json_decref(root);
    return r;
  } else {
    const unsigned char *t, *id, *name;
    size_t tn, idn, nn;
    char *r;
    if (!pb_field((const unsigned char *)data, n, 1, &t, &tn) ||   /* template */
        !pb_field(t, tn, 1, &id, &idn) ||                          /* id */
        !pb_field(id, idn, 4, &name, &nn) || nn == 0)              /* name */
      return NULL;
    r = (char *)cli_xmalloc(nn + 1);
    memcpy(r, name, nn);
    r[nn] = '\0';
    return r;
  }
}

const char *cli_ext_of(kfjob_format f) {
  switch (f) {
    case KFJOB_FORMAT_PB: return ".pb";
    case KFJOB_FORMAT_JSON: return ".json";
    case KFJOB_FORMAT_YAML: return ".yaml";
    case KFJOB_FORMAT_TEMPLATE: return ".template.pb";
    case KFJOB_FORMAT_TEMPLATE_JSON: return ".template.json";
    case KFJOB_FORMAT_MANIFEST: return ".manifest.yaml";
    case KFJOB_FORMAT_MANIFEST_JSON: return ".manifest.json";
    case KFJOB_FORMAT_TASKSPEC: return ".pb";
    case KFJOB_FORMAT_TASKSPEC_JSON: return ".json";
    default: return "";
  }
}

/* 64-bit FNV-1a of n bytes, continuing from h. */
static unsigned long long fnv1a(unsigned long long h, const char *p, size_t n) {
  size_t i;
  for (i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
  return h;
}
#define FNV_INIT 0xcbf29ce484222325ULL

/* The index slot of `file` (whose hash is h): where it is, or the free
** slot it would take.  The index keeps a render of N jobs to -o DIR linear
** in N (a list scan per job made 100 000 jobs quadratic); the hash kept in
** the slot spares most probes a visit to the entry and its name (cache
** misses, at 100 000 names). */
static size_t entries_slot(const entries *es, const char *file, unsigned long long h) {
  size_t mask = es->nslot - 1, i = (size_t)h & mask;
  while (es->slot[i].at &&
         (es->slot[i].hash != h || strcmp(es->v[es->slot[i].at - 1].file, file) != 0))
    i = (i + 1) & mask;
  return i;
}

static unsigned long long name_hash(const char *file) {
  return fnv1a(FNV_INIT, file, strlen(file));
}

static void entries_index(entries *es) {   /* rebuilt at twice the capacity */
  size_t i;
  free(es->slot);
  es->nslot = es->cap * 2;
  es->slot = (entry_slot *)cli_xmalloc(es->nslot * sizeof *es->slot);
  memset(es->slot, 0, es->nslot * sizeof *es->slot);
  for (i = 0; i < es->n; i++) {
    unsigned long long h = name_hash(es->v[i].file);
    entry_slot *sl = &es->slot[entries_slot(es, es->v[i].file, h)];
    sl->at = i + 1;
    sl->hash = h;
  }
}

entry *cli_entries_add(entries *es, const char *file, const char *format,
                       const char *type, int version, const char *kind,
                       const char *name) {
  entry *e;
  if (es->n == es->cap) {
    es->v = (entry *)cli_xrealloc(es->v, (es->cap = es->cap ? es->cap * 2 : 16) * sizeof *e);
    entries_index(es);
  }
  e = &es->v[es->n++];
  { /* the five strings in one block (a render to a directory adds one
    ** entry per job): e->file owns it */
    const char *s[5];
    char **to[5], *p;
    size_t len[5], total = 0;
    int k;
    s[0] = file, s[1] = format, s[2] = type, s[3] = kind, s[4] = name;
    to[0] = &e->file, to[1] = &e->format, to[2] = &e->type, to[3] = &e->kind, to[4] = &e->name;
    for (k = 0; k < 5; k++) total += len[k] = strlen(s[k]) + 1;
    p = (char *)cli_xmalloc(total);
    for (k = 0; k < 5; k++) {
      *to[k] = (char *)memcpy(p, s[k], len[k]);
      p += len[k];
    }
  }
  e->version = version;
  e->proof = 0;
  e->size = e->ino = e->hash = 0;
  { unsigned long long h = name_hash(file);
    entry_slot *sl = &es->slot[entries_slot(es, file, h)];
    if (!sl->at) {   /* a second add of a name: the first stays found */
      sl->at = es->n;
      sl->hash = h;
    } }
  return e;
}

void cli_entries_free(entries *es) {
  size_t i;
  for (i = 0; i < es->n; i++) free(es->v[i].file);   /* and its other strings */
  free(es->v);
  free(es->slot);
  memset(es, 0, sizeof *es);
}

void cli_entries_truncate(entries *es, size_t n) {
  if (n >= es->n) return;
  while (es->n > n) free(es->v[--es->n].file);
  entries_index(es);   /* forgets the names cut */
}

const entry *cli_entries_find(const entries *es, const char *file) {
  const entry_slot *sl;
  if (!es->nslot) return NULL;
  sl = &es->slot[entries_slot(es, file, name_hash(file))];
  return sl->at ? &es->v[sl->at - 1] : NULL;
}


/* The whole regular file `name` of `dirfd`, never through a link. */
static int read_at(int dirfd, const char *name, char **data, size_t *len,
                   struct stat *sb) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  size_t n = 0, cap = 0;
  char *p = NULL;
  if (fd < 0) return -1;
  if (fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  for (;;) {
    ssize_t r;
    if (cap - n < 4096) p = (char *)cli_xrealloc(p, cap = cap ? cap * 2 : 8192);
    r = read(fd, p + n, cap - n - 1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int e = errno;
      close(fd);
      free(p);
      errno = e;
      return -1;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  p[n] = '\0';
  *data = p;
  *len = n;
  return 0;
}

/* Read DIR/.kfjob-outputs; a missing file is an empty list. */
void cli_entries_load(entries *es, const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  memset(es, 0, sizeof *es);
  if (fd < 0) return;
  cli_entries_load_at(es, fd);
  close(fd);
}

void cli_entries_load_at(entries *es, int dirfd) {
  char *data, *line, *next;
  size_t len;
  struct stat sb;
  memset(es, 0, sizeof *es);
  if (dirfd < 0 || read_at(dirfd, OUTPUTS_FILE, &data, &len, &sb) != 0) return;
  for (line = data; line && *line; line = next) {
    char *f[9];
    int n = 0;
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    f[n++] = line;
    while (n < 9 && (line = strchr(line, '\t')) != NULL) {
      *line++ = '\0';
      f[n++] = line;
    }
    /* only plain file names: a tampered list cannot point elsewhere */
    if ((n == 6 || n == 9) && cli_safe_file_name(f[0])) {
      entry *e = cli_entries_add(es, f[0], f[1], f[2], atoi(f[3]), f[4], f[5]);
      if (n == 9) {   /* lists of older versions prove nothing */
        e->size = strtoull(f[6], NULL, 10);
        e->ino = strtoull(f[7], NULL, 10);
        e->hash = strtoull(f[8], NULL, 16);
        e->proof = 1;
      }
    }
  }
  free(data);
}

/* The list's text is put together by hand: fprintf cost 4 000 instructions
** a line, 8 % of a render of 100 000 jobs to a directory. */
static char *put_s(char *p, const char *s) {
  size_t n = strlen(s);
  memcpy(p, s, n);
  return p + n;
}

static char *put_u(char *p, unsigned long long v) {   /* as %llu */
  char t[24];
  int k = 0;
  do t[k++] = (char)('0' + v % 10); while (v /= 10);
  while (k) *p++ = t[--k];
  return p;
}

int cli_entries_save(const entries *es, int dirfd) {
  static const char head[] =
      "# Files of this directory written by `kfjob render`; the next render\n"
      "# into it removes those it does not write again, if they are still\n"
      "# what it wrote (size, inode and FNV-1a hash of the content).\n"
      "# file\tformat\ttask_type\tversion\tkind\tname\tsize\tinode\thash\n";
  size_t cap = sizeof head + 4096, i;
  char *text = (char *)cli_xmalloc(cap), *p = put_s(text, head);
  int r, k;
  for (i = 0; i < es->n; i++) {
    const entry *e = &es->v[i];
    /* the strings, then at most 8 separators, 12 + 20 + 20 + 16 digits */
    size_t need = strlen(e->file) + strlen(e->format) + strlen(e->type) + strlen(e->kind) +
                  strlen(e->name) + 8 + 68 + 1;
    if (cap - (size_t)(p - text) < need) {
      size_t at = (size_t)(p - text);
      text = (char *)cli_xrealloc(text, cap = 2 * cap + need);
      p = text + at;
    }
    p = put_s(p, e->file), *p++ = '\t';
    p = put_s(p, e->format), *p++ = '\t';
    p = put_s(p, e->type), *p++ = '\t';
    if (e->version < 0) *p++ = '-';
    p = put_u(p, e->version < 0 ? 0ULL - (unsigned long long)e->version
                                : (unsigned long long)e->version), *p++ = '\t';
    p = put_s(p, e->kind), *p++ = '\t';
    p = put_s(p, e->name);
    if (e->proof) {
      *p++ = '\t', p = put_u(p, e->size);
      *p++ = '\t', p = put_u(p, e->ino);
      *p++ = '\t';
      for (k = 15; k >= 0; k--) *p++ = "0123456789abcdef"[(e->hash >> (4 * k)) & 15];
    }
    *p++ = '\n';
  }
  r = cli_write_atomic(dirfd, OUTPUTS_FILE, text, (size_t)(p - text), 0, NULL);
  free(text);
  return r;
}

/* Write the custom YAML of a job under "custom:", indented. */
static void put_indented(FILE *f, const char *yaml, size_t n) {
  const char *p = yaml, *end = yaml + n;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    if (len) fputs("  ", f);
    fwrite(p, 1, len, f);
    fputc('\n', f);
    p += len + 1;
  }
}

/* {"name","kind","type","taskTypeVersion",<key>: the document} on a line. */
static void json_line(FILE *f, const kfjob_job *j, const char *key) {
  fputs("{\"name\":", f);
  put_json_string(f, j->name);
  fputs(",\"kind\":", f);
  put_json_string(f, j->kind);
  fputs(",\"type\":", f);
  put_json_string(f, j->task_type);
  fprintf(f, ",\"taskTypeVersion\":%d,\"%s\":", j->version, key);
  fwrite(j->data, 1, j->size, f);
  fputs("}\n", f);
}

/* One job to stdout in the stream form of its format. */
void cli_write_stream(render_ctx *c, FILE *f, const kfjob_job *j) {
  if (c->o->format == KFJOB_FORMAT_TASKSPEC_JSON && j->format != c->o->format) {
    /* decode: the host gives any input but a TaskSpec as the job's JSON */
    c->status = cli_errorf(EXIT_INVALID, "%s: -f taskspec-json writes a TaskSpec back "
                           "and this is %s (render -f taskspec-json makes one from a "
                           "config)", c->config, c->o->type ? "plugin data"
                           : "a TaskTemplate, not a TaskSpec");
    return;
  }
  switch (j->format) {
    case KFJOB_FORMAT_JSON:
      json_line(f, j, "custom");
      break;
    case KFJOB_FORMAT_YAML:
      if (c->ndocs) fputs("---\n", f);
      fputs("name: ", f);
      put_json_string(f, j->name);
      fprintf(f, "\nkind: %s\ntype: %s\ntaskTypeVersion: %d\n", j->kind,
              j->task_type, j->version);
      if (j->size >= 2 && j->data[0] == '{') {
        fputs("custom: ", f);
        fwrite(j->data, 1, j->size, f);
      } else {
        fputs("custom:\n", f);
        put_indented(f, j->data, j->size);
      }
      break;
    case KFJOB_FORMAT_TEMPLATE_JSON:   /* the TaskTemplate has no name */
      json_line(f, j, "template");
      break;
    case KFJOB_FORMAT_MANIFEST:
      if (c->ndocs) fputs("---\n", f);
      fwrite(j->data, 1, j->size, f);
      if (j->size && j->data[j->size - 1] != '\n') fputc('\n', f);
      break;
    default:   /* the JSON formats: one line each */
      fwrite(j->data, 1, j->size, f);
      fputc('\n', f);
      break;
  }
  c->ndocs++;
}

/* A new file in dirfd named ".<file>.<16 random hex digits>", created
** exclusively and never through a link; its name in tmp.  -1 on error. */
static int create_temp(int dirfd, const char *file, char **tmp) {
  int tries;
  for (tries = 0; tries < 16; tries++) {
    unsigned long long r;
    int fd;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
      r = ((unsigned long long)time(NULL) << 32) ^ (unsigned long long)getpid() ^
          (unsigned long long)(size_t)&r ^ (unsigned long long)clock() * 0x9e3779b97f4a7c15ULL;
    *tmp = cli_xprintf(".%s.%016llx", file, r);
    fd = openat(dirfd, *tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return fd;
    free(*tmp);
    *tmp = NULL;
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* data and, when asked and missing, a final newline, in one write */
static int write_job(int fd, const char *data, size_t n, int nl) {
  struct iovec v[2];
  ssize_t w;
  v[0].iov_base = (void *)data;
  v[0].iov_len = n;
  v[1].iov_base = (void *)"\n";
  v[1].iov_len = (size_t)nl;
  do w = writev(fd, v, 1 + nl); while (w < 0 && errno == EINTR);
  if (w < 0) return -1;
  if ((size_t)w >= n) return write_all(fd, "\n", n + (size_t)nl - (size_t)w);
  return write_all(fd, data + w, n - (size_t)w) == 0 && write_all(fd, "\n", (size_t)nl) == 0
             ? 0 : -1;
}

/* 1 when `file` of dirfd is a regular file (opened without following a
** link, nor blocking on a FIFO) holding exactly data and, with nl, a final
** newline, its status in sb; -1 when there is no such name; else 0. */
static int same_at(int dirfd, const char *file, const char *data, size_t n,
                   int nl, struct stat *sb) {
  char buf[16384];
  size_t off = 0, want = n + (size_t)nl;
  int fd = openat(dirfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), same;
  if (fd < 0) return errno == ENOENT ? -1 : 0;
  same = fstat(fd, sb) == 0 && S_ISREG(sb->st_mode) &&
         (unsigned long long)sb->st_size == (unsigned long long)want;
  while (same && off < want) {
    size_t k = want - off < sizeof buf ? want - off : sizeof buf, body;
    ssize_t r = read(fd, buf, k);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    body = off < n ? ((size_t)r < n - off ? (size_t)r : n - off) : 0;
    same = memcmp(buf, data + off, body) == 0 && (body == (size_t)r || buf[body] == '\n');
    off += (size_t)r;
  }
  close(fd);
  return same && off == want;
}

/* What proves e's file is the one written: its size, inode and hash. */
static void prove(entry *e, const struct stat *sb, const char *data, size_t n, int nl) {
  e->size = (unsigned long long)sb->st_size;
  e->ino = (unsigned long long)sb->st_ino;
  e->hash = fnv1a(fnv1a(FNV_INIT, data, n), "\n", (size_t)nl);
  e->proof = 1;
}

/* how: WRITE_ATOMIC (temporary name and rename, always), WRITE_NEW (a job
** file whose name is probably free) or WRITE_LISTED (a job file the last
** render wrote: probably there, with the same content). */
enum { WRITE_ATOMIC, WRITE_NEW, WRITE_LISTED };

static int write_at(int dirfd, const char *file, const char *data, size_t n,
                    int newline, entry *e, int how) {
  char *tmp = NULL;
  struct stat sb;
  int nl = newline && (n == 0 || data[n - 1] != '\n');
  int fd = -1, ok, err, same = -1;
  /* A job file that already is a regular file with this content is left
  ** as it is (inode and mtime kept, as `install -C` does), which also
  ** makes a render repeated over its own output read instead of write.
  ** A listed name is looked at first: it saves the failed create. */
  if (how == WRITE_LISTED) same = same_at(dirfd, file, data, n, nl, &sb);
  /* A name that does not exist yet is created under itself, exclusively
  ** and never through a link: there is no old content for a reader to
  ** lose, and it saves the temporary name and the rename (a third of a
  ** render's time to a directory).  A name that exists otherwise is
  ** replaced by a rename, so a reader sees the old file or the new one,
  ** never a mix. */
  if (how != WRITE_ATOMIC && same == -1) {
    fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) return -1;
    if (fd < 0 && how == WRITE_NEW) same = same_at(dirfd, file, data, n, nl, &sb);
  }
  if (same == 1) {
    if (e != NULL) prove(e, &sb, data, n, nl);
    return 0;
  }
  if (fd < 0 && (fd = create_temp(dirfd, file, &tmp)) < 0) return -1;
  ok = write_job(fd, data, n, nl) == 0 && fstat(fd, &sb) == 0;
  ok = close(fd) == 0 && ok;
  ok = ok && (tmp == NULL || renameat(dirfd, tmp, dirfd, file) == 0);
  err = errno;
  if (!ok) unlinkat(dirfd, tmp ? tmp : file, 0);   /* ours: created with O_EXCL */
  free(tmp);
  if (ok && e != NULL) prove(e, &sb, data, n, nl);
  errno = err;
  return ok ? 0 : -1;
}

int cli_write_atomic(int dirfd, const char *file, const char *data, size_t n,
                     int newline, entry *e) {
  return write_at(dirfd, file, data, n, newline, e, WRITE_ATOMIC);
}

/* Each file's data under a temporary name (create_temp, write_job), then,
** only when every one was written, each renamed to its name; a failure
** removes the temporary files (created with O_EXCL: ours). */
int cli_write_all(int dirfd, const cli_file *f, size_t n, size_t *failed) {
  char **tmp = (char **)cli_xmalloc((n ? n : 1) * sizeof *tmp);
  size_t i;
  int err = 0, fd;
  struct stat sb;
  for (i = 0; i < n; i++) tmp[i] = NULL;
  for (i = 0; i < n; i++) {
    int nl = f[i].newline && (f[i].size == 0 || f[i].data[f[i].size - 1] != '\n');
    /* a name a directory holds (a rename cannot replace it with a file)
    ** fails now, before any file takes its name */
    if (fstatat(dirfd, f[i].name, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(sb.st_mode)) {
      err = EISDIR;
      break;
    }
    if ((fd = create_temp(dirfd, f[i].name, &tmp[i])) < 0) {
      err = errno;
      break;
    }
    if (write_job(fd, f[i].data, f[i].size, nl) != 0) {
      err = errno;
      close(fd);
      break;
    }
    if (close(fd) != 0) {
      err = errno;
      break;
    }
  }
  if (i == n)   /* every one written: now their names */
    for (i = 0; i < n; i++)
      if (renameat(dirfd, tmp[i], dirfd, f[i].name) != 0) {
        err = errno;
        break;
      }
  *failed = i;
  for (i = 0; i < n; i++) {
    if (err && tmp[i]) unlinkat(dirfd, tmp[i], 0);   /* (a renamed one: no such name) */
    free(tmp[i]);
  }
  free(tmp);
  errno = err;
  return err ? -1 : 0;
}

int cli_write_job(int dirfd, const char *file, const char *data, size_t n,
                  int newline, entry *e, int listed) {
  return write_at(dirfd, file, data, n, newline, e, listed ? WRITE_LISTED : WRITE_NEW);
}

void cli_entry_prove(entry *to, const entry *from) {
  to->proof = from->proof;
  to->size = from->size;
  to->ino = from->ino;
  to->hash = from->hash;
}

int cli_remove_written(int dirfd, const entry *e, int dry) {
  char *data;
  size_t len;
  struct stat sb;
  int ours;
  if (dirfd < 0 || !e->proof || read_at(dirfd, e->file, &data, &len, &sb) != 0) return 0;
  ours = (unsigned long long)sb.st_size == e->size && (unsigned long long)sb.st_ino == e->ino &&
         fnv1a(FNV_INIT, data, len) == e->hash;
  free(data);
  if (!ours || dry) return ours;
  return unlinkat(dirfd, e->file, 0) == 0 ? 1 : -1;
}

int cli_mkdir_p(const char *dir, char **made) {
  char *p = cli_xstrdup(dir), *s;
  struct stat st;
  int r = 0;
  *made = NULL;
  for (s = p + 1; r == 0; s++) {
    if (*s == '/' || *s == '\0') {
      char c = *s;
      *s = '\0';
      if (mkdir(p, 0777) == 0) {
        if (*made == NULL) *made = cli_xstrdup(p);
      } else if (errno != EEXIST) {
        r = -1;
      }
      *s = c;
      if (c == '\0') break;
    }
  }
  free(p);
  if (r == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))) {
    errno = ENOTDIR;
    r = -1;
  }
  return r;
}

void cli_rmdir_made(const char *dir, const char *made) {
  char *p = cli_xstrdup(dir), *s;
  size_t floor = strlen(made);
  while (strlen(p) >= floor && rmdir(p) == 0 && (s = strrchr(p, '/')) != NULL && s != p)
    *s = '\0';
  free(p);
}
