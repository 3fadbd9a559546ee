/*
** api.c - the public entry points of include/kfjob.h: handles, options,
** argument checks, reading a script file, and names of statuses and
** formats.  Each run goes to kfh_do_run (driver.c).
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kf_job.h"
#include "kf_options.h"
#include "kf_qty.h"
#include "host.h"
#include "kf_target.h"
#include "kf_version.h"

/* the public header's version is the project's (CMakeLists.txt project()) */
typedef char kfh_version_matches[KFJOB_VERSION_NUMBER == KF_VERSION_NUMBER ? 1 : -1];

static const char *const format_names[] = {
    "pb", "json", "yaml", "template", "template-json", "manifest",
    "manifest-json", "none", "taskspec", "taskspec-json", "environment"};

KFJOB_API unsigned kfjob_version_number(void) { return KFJOB_VERSION_NUMBER; }
KFJOB_API const char *kfjob_version_string(void) { return KFJOB_VERSION_STRING; }

static kfjob_status check_opts(kfjob_host *h, const kfjob_run_options *o) {
  size_t i;
  if ((unsigned)o->format > (unsigned)KFJOB_FORMAT_ENVIRONMENT) {
    kfh_msg(h, "unknown format %d", (int)o->format);
    return KFJOB_EARG;
  }
  if (o->version < -1 || o->version > 1) {
    kfh_msg(h, "unsupported task_type_version (expected 0 or 1)");
    return KFJOB_EARG;
  }
  if (o->replica_encoding && kf_replica_encoding(o->replica_encoding) < 0) {
    kfh_msg(h, "replica_encoding: expected \"flat\" or \"common\", got \"%s\"",
            o->replica_encoding);
    return KFJOB_EARG;
  }
  if (o->target) {
    kf_target t;
    kf_err e;
    if (kf_target_parse(o->target, &t, "options", "target", &e) != KF_OK) {
      kfh_msg(h, "%s", e.msg);
      return KFJOB_EARG;
    }
  }
  if (o->nparams && o->params == NULL) {
    kfh_msg(h, "params is NULL but nparams is not 0");
    return KFJOB_EARG;
  }
  if (o->nstring_params && o->string_params == NULL) {
    kfh_msg(h, "string_params is NULL but nstring_params is not 0");
    return KFJOB_EARG;
  }
  for (i = 0; i < o->nparams + o->nstring_params; i++) {
    const char *kv = i < o->nparams ? o->params[i] : o->string_params[i - o->nparams];
    if (kv == NULL || strchr(kv, '=') == NULL || kv[0] == '=') {
      kfh_msg(h, "parameter '%s' is not key=value", kv ? kv : "(null)");
      return KFJOB_EARG;
    }
  }
  if (o->nargs && o->args == NULL) {
    kfh_msg(h, "args is NULL but nargs is not 0");
    return KFJOB_EARG;
  }
  for (i = 0; i < o->nargs; i++)
    if (o->args[i] == NULL) {
      kfh_msg(h, "args[%zu] is NULL", i);
      return KFJOB_EARG;
    }
  if (o->indent < 0 || o->indent > 16) {   /* kf_json's pretty printer's range */
    kfh_msg(h, "indent: expected 0 (compact) to 16, got %d", o->indent);
    return KFJOB_EARG;
  }
  if (o->retries < -1) {
    kfh_msg(h, "retries: expected -1 (none) or 0..10, got %d", o->retries);
    return KFJOB_EARG;
  }
  if (o->name && o->name[0] == '\0') {
    kfh_msg(h, "the job name must not be empty");
    return KFJOB_EARG;
  }
  if (o->target) {
    char why[256];
    if (!kfjob_target_check(o->target, why, sizeof why)) {
      kfh_msg(h, "target: %s", why);
      return KFJOB_EARG;
    }
  }
  return KFJOB_OK;
}

kfjob_status kfh_check_options(kfjob_host *h, const kfjob_run_options *o) {
  return check_opts(h, o);
}

static kfjob_status begin(kfjob_host *h, run *R, const kfjob_run_options *o,
                          kfjob_job_fn cb, void *ud) {
  kfjob_status st;
  memset(R, 0, sizeof *R);
  if (h == NULL) return KFJOB_EARG;
  if (h->busy) {
    /* the message belongs to the running call: leave it alone */
    return KFJOB_EARG;
  }
  h->msg[0] = '\0';
  h->not_input = 0;
  if (o) R->o = *o;
  else kfjob_run_options_init(&R->o);
  if ((st = check_opts(h, &R->o)) != KFJOB_OK) return st;
  R->cb = cb;
  R->ud = ud;
  return KFJOB_OK;
}

KFJOB_API kfjob_status kfjob_host_run_string(kfjob_host *h, const char *src,
                                             size_t len, const char *chunkname,
                                             const kfjob_run_options *o,
                                             kfjob_job_fn cb, void *ud) {
  run R;
  char name[LUA_IDSIZE + 2];
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  if (src == NULL) {
    kfh_msg(h, "the script is NULL");
    return KFJOB_EARG;
  }
  snprintf(name, sizeof name, "=%s", chunkname ? chunkname : "config");
  R.mode = MODE_SCRIPT;
  R.src = src;
  R.len = len;
  R.chunkname = name;
  return kfh_do_run(h, &R);
}

static kfjob_status too_big(kfjob_host *h, const char *path, size_t lim) {
  kfh_msg(h, "%s: memory limit exceeded (%zu bytes): the script is larger "
             "than the limit", path, lim);
  return KFJOB_EMEMORY;
}

KFJOB_API kfjob_status kfjob_host_run_file(kfjob_host *h, const char *path,
                                           const kfjob_run_options *o,
                                           kfjob_job_fn cb, void *ud) {
  run R;
  FILE *f;
  char *buf = NULL, *chunk;
  size_t n = 0, cap = 0, plen, lim;
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  lim = h->opt.memory_limit;
  if (path == NULL) {
    kfh_msg(h, "the script path is NULL");
    return KFJOB_EARG;
  }
  if ((f = fopen(path, "rb")) == NULL) {
    kfh_msg(h, "cannot open %s: %s", path, strerror(errno));
    return KFJOB_EIO;
  }
  /* The text is loaded into the run's Lua state, so a script larger than
  ** the memory limit cannot run: refuse it before reading (a regular file
  ** by its size, anything else - a pipe, /dev/zero - once that much has
  ** been read). */
  {
    struct stat sb;
    if (lim && fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
        (unsigned long long)sb.st_size > lim) {
      fclose(f);
      return too_big(h, path, lim);
    }
  }
  for (;;) {
    size_t r;
    if (lim && n > lim) {
      free(buf);
      fclose(f);
      return too_big(h, path, lim);
    }
    if (n == cap) {
      char *p;
      cap = cap ? cap * 2 : 4096;
      if (lim && cap > lim + 1) cap = lim + 1;   /* one byte past: too big */
      if ((p = (char *)realloc(buf, cap)) == NULL) {
        free(buf);
        fclose(f);
        kfh_msg(h, "not enough memory to read %s", path);
        return KFJOB_EMEMORY;
      }
      buf = p;
    }
    r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    free(buf);
    kfh_msg(h, "cannot read %s: %s", path, strerror(e));
    return KFJOB_EIO;
  }
  fclose(f);
  plen = strlen(path);
  if ((chunk = (char *)malloc(plen + 2)) == NULL) {
    free(buf);
    kfh_msg(h, "not enough memory");
    return KFJOB_EMEMORY;
  }
  chunk[0] = '@';
  memcpy(chunk + 1, path, plen + 1);
  R.mode = MODE_SCRIPT;
  R.src = buf;
  R.len = n;
  R.chunkname = chunk;
  st = kfh_do_run(h, &R);
  free(chunk);
  free(buf);
  return st;
}

KFJOB_API kfjob_status kfjob_host_decode(kfjob_host *h, const char *task_type,
                                         int version, const void *data,
                                         size_t size,
                                         const kfjob_run_options *o,
                                         kfjob_job_fn cb, void *ud) {
  run R;
  kfjob_status st = begin(h, &R, o, cb, ud);
  if (st != KFJOB_OK) return st;
  if (data == NULL && size > 0) {
    kfh_msg(h, "the data is NULL");
    return KFJOB_EARG;
  }
  if (version != 0 && version != 1) {
    if (task_type != NULL) {   /* plugin bytes: their version is needed */
      kfh_msg(h, "unsupported task_type_version (expected 0 or 1)");
      return KFJOB_EARG;
    }
    version = 1;   /* a TaskTemplate carries its own (kfjob.h) */
  }
  R.mode = MODE_DECODE;
  R.src = data ? (const char *)data : "";
  R.len = size;
  R.task_type = task_type;
  R.in_version = version;
  return kfh_do_run(h, &R);
}

KFJOB_API void kfjob_host_options_init(kfjob_host_options *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->memory_limit = KFJOB_DEFAULT_MEMORY_LIMIT;
  o->instruction_limit = KFJOB_DEFAULT_INSTRUCTION_LIMIT;
}

KFJOB_API void kfjob_run_options_init(kfjob_run_options *o) {
  if (o == NULL) return;
  memset(o, 0, sizeof *o);
  o->format = KFJOB_FORMAT_JSON;
  o->version = -1;
  o->retries = -1;
}

KFJOB_API kfjob_status kfjob_host_new(const kfjob_host_options *opts,
                                      kfjob_host **out) {
  kfjob_host *h;
  if (out == NULL) return KFJOB_EARG;
  *out = NULL;
  if ((h = (kfjob_host *)calloc(1, sizeof *h)) == NULL) return KFJOB_EMEMORY;
  if (opts) h->opt = *opts;
  else kfjob_host_options_init(&h->opt);
  *out = h;
  return KFJOB_OK;
}

KFJOB_API void kfjob_host_free(kfjob_host *h) {
  if (h == NULL || h->busy) return;
  free(h);
}

KFJOB_API const char *kfjob_host_message(const kfjob_host *h) {
  if (h == NULL) return "no kfjob_host (NULL handle)";
  return h->msg;
}

KFJOB_API int kfjob_host_not_input(const kfjob_host *h) {
  return h != NULL && h->not_input;
}

KFJOB_API void kfjob_host_usage(const kfjob_host *h, kfjob_usage *u) {
  if (u == NULL) return;
  if (h == NULL) memset(u, 0, sizeof *u);
  else *u = h->usage;
}

KFJOB_API const char *kfjob_status_string(kfjob_status s) {
  switch (s) {
    case KFJOB_OK: return "ok";
    case KFJOB_ESCRIPT: return "script error";
    case KFJOB_EJOB: return "job error";
    case KFJOB_EMEMORY: return "memory limit exceeded";
    case KFJOB_ELIMIT: return "instruction budget exceeded";
    case KFJOB_EDATA: return "invalid input data";
    case KFJOB_EIO: return "I/O error";
    case KFJOB_EARG: return "invalid argument";
    case KFJOB_EUNSUPPORTED: return "unsupported by this build";
    case KFJOB_ESTOPPED: return "stopped by the callback";
  }
  return "unknown status";
}

KFJOB_API const char *kfjob_format_name(kfjob_format f) {
  if ((unsigned)f > (unsigned)KFJOB_FORMAT_ENVIRONMENT) return NULL;
  return format_names[f];
}

KFJOB_API int kfjob_format_parse(const char *name, kfjob_format *out) {
  int i;
  if (name == NULL) return 0;
  for (i = 0; i <= (int)KFJOB_FORMAT_ENVIRONMENT; i++)
    if (strcmp(name, format_names[i]) == 0) {
      if (out) *out = (kfjob_format)i;
      return 1;
    }
  return 0;
}

KFJOB_API int kfjob_target_check(const char *name, char *msg, size_t cap) {
  static const char pre[] = "kfjob: target: ";
  kf_target t;
  kf_err e;
  if (name != NULL && kf_target_parse(name, &t, "kfjob", "target", &e) == KF_OK)
    return 1;
  if (msg != NULL && cap > 0)
    snprintf(msg, cap, "%s", name == NULL ? "NULL is not a target" : e.msg + sizeof pre - 1);
  return 0;
}

KFJOB_API const char *kfjob_suggest(const char *word,
                                    const char *const *candidates) {
  if (word == NULL || candidates == NULL) return NULL;
  return kf_suggest(word, candidates);
}

KFJOB_API kfjob_status kfjob_quantity_add(const char *a, const char *b,
                                          char *out, size_t cap) {
  char tmp[KF_QTY_TEXT];
  if (a == NULL || b == NULL || out == NULL || kf_qty_sum(a, b, tmp, sizeof tmp) != 0 ||
      strlen(tmp) >= cap)
    return KFJOB_EARG;
  memcpy(out, tmp, strlen(tmp) + 1);
  return KFJOB_OK;
}
