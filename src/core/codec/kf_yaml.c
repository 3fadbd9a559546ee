/*
** kf_yaml.c - kf_node trees -> YAML text through libyaml's emitter.
**
** libyaml decides whether a string can be written plain; it does not know
** what a reader will make of a plain scalar, so strings that YAML 1.1
** (PyYAML, go-yaml v2 behind kubectl) or 1.2 would resolve to a number,
** boolean, null or timestamp are forced into double quotes here.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <yaml.h>

#include "kf_yaml.h"
#include "kf_json.h"

/* Plain words some YAML reader resolves to a non-string (any case). */
static const char *const special_words[] = {
    "null", "~", "true", "false", "yes", "no", "y", "n", "on", "off",
    ".inf", "-.inf", "+.inf", ".nan", "=", "<<", NULL};

/* Characters of numbers in every YAML flavour: decimal, hex, octal,
** binary, base 60, digit separators, exponents, and timestamps. */
static const char numberish[] = "0123456789abcdefABCDEFxXoO_.:+-tTzZ ";

/* ASCII case-insensitive s[0..n) == w (no locale, no strings.h). */
static int word_is(const char *s, size_t n, const char *w) {
  size_t i;
  for (i = 0; i < n; i++) {
    char a = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] | 0x20) : s[i];
    if (w[i] == '\0' || a != w[i]) return 0;
  }
  return w[n] == '\0';
}

static int needs_quotes(const char *s, size_t n) {
  size_t i;
  for (i = 0; special_words[i]; i++)
    if (word_is(s, n, special_words[i])) return 1;
  if (n == 0) return 1;
  /* only something that starts like a number can read as one: "4", "1e3",
  ** "08", "0x1F", "1:30", "2024-01-02"; "1Gi", "500m" and "-np" stay plain */
  i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i < n && s[i] == '.') i++;
  if (i >= n || s[i] < '0' || s[i] > '9') return 0;
  for (i = 0; i < n; i++)
    if (s[i] == '\0' || strchr(numberish, s[i]) == NULL) return 0;
  return 1;
}

typedef struct yw {
  yaml_emitter_t em;
  yaml_event_t ev;
  const char *why;     /* an input problem, not the emitter's */
} yw;

/* libyaml owns the event from here on, also when emitting fails. */
#define EMIT(init) \
  do { if (!(init) || !yaml_emitter_emit(&w->em, &w->ev)) return KF_EINVAL; } while (0)

static kf_status scalar(yw *w, const char *s, size_t n, int is_string) {
  int quote = is_string && needs_quotes(s, n);
  /* libyaml refuses invalid UTF-8 as if memory had run out; tell them apart */
  if (!kf_utf8_ok(s, n)) {
    w->why = "a string is not valid UTF-8";
    return KF_EINVAL;
  }
  EMIT(yaml_scalar_event_initialize(
      &w->ev, NULL, NULL, (yaml_char_t *)s, (int)n, !quote, 1,
      quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE));
  return KF_OK;
}

static kf_status node(yw *w, const kf_node *x, int depth) {
  char num[40];
  size_t i;
  kf_status st;
  if (depth > KF_MAX_DEPTH) return KF_ELIMIT;
  switch (x->t) {
    case KF_NOBJ:
      EMIT(yaml_mapping_start_event_initialize(&w->ev, NULL, NULL, 1,
                                               YAML_BLOCK_MAPPING_STYLE));
      for (i = 0; i < x->u.c.n; i++) {
        const char *k = x->u.c.k[i];
        if ((st = scalar(w, k, strlen(k), 1)) != KF_OK ||
            (st = node(w, x->u.c.v[i], depth + 1)) != KF_OK)
          return st;
      }
      EMIT(yaml_mapping_end_event_initialize(&w->ev));
      return KF_OK;
    case KF_NARR:
      EMIT(yaml_sequence_start_event_initialize(&w->ev, NULL, NULL, 1,
                                                YAML_BLOCK_SEQUENCE_STYLE));
      for (i = 0; i < x->u.c.n; i++)
        if ((st = node(w, x->u.c.v[i], depth + 1)) != KF_OK) return st;
      EMIT(yaml_sequence_end_event_initialize(&w->ev));
      return KF_OK;
    case KF_NSTR: return scalar(w, x->u.s.p, x->u.s.n, 1);
    case KF_NINT: snprintf(num, sizeof num, "%lld", (long long)x->u.i); break;
    case KF_NNUM:
      if (isnan(x->u.d)) strcpy(num, ".nan");
      else if (isinf(x->u.d)) strcpy(num, x->u.d > 0 ? ".inf" : "-.inf");
      else kf_json_number(x->u.d, num);
      break;
    case KF_NBOOL: strcpy(num, x->u.b ? "true" : "false"); break;
    default: strcpy(num, "null"); break;
  }
  return scalar(w, num, strlen(num), 0);
}

static int write_out(void *data, unsigned char *p, size_t n) {
  return kf_buf_add((kf_buf *)data, (const char *)p, n);
}

kf_status kf_yaml(const kf_node *const *docs, size_t n, int indent,
                  kf_buf *out, kf_err *e) {
  yw w0, *w = &w0;
  size_t i, start = out->n;
  kf_status st = KF_OK;
  w->why = NULL;
  if (!yaml_emitter_initialize(&w->em)) return kf_nomem(e);
  yaml_emitter_set_output(&w->em, write_out, out);
  yaml_emitter_set_unicode(&w->em, 1);
  yaml_emitter_set_indent(&w->em, indent);
  yaml_emitter_set_width(&w->em, -1);     /* never fold long args */
  yaml_emitter_set_break(&w->em, YAML_LN_BREAK);
  if (!yaml_stream_start_event_initialize(&w->ev, YAML_UTF8_ENCODING) ||
      !yaml_emitter_emit(&w->em, &w->ev))
    st = KF_EINVAL;
  for (i = 0; st == KF_OK && i < n; i++) {
    /* implicit "---": libyaml writes it from the second document on */
    if (!yaml_document_start_event_initialize(&w->ev, NULL, NULL, NULL, 1) ||
        !yaml_emitter_emit(&w->em, &w->ev))
      st = KF_EINVAL;
    else if ((st = node(w, docs[i], 0)) == KF_OK &&
             (!yaml_document_end_event_initialize(&w->ev, 1) ||
              !yaml_emitter_emit(&w->em, &w->ev)))
      st = KF_EINVAL;
  }
  if (st == KF_OK && (!yaml_stream_end_event_initialize(&w->ev) ||
                      !yaml_emitter_emit(&w->em, &w->ev) ||
                      !yaml_emitter_flush(&w->em)))
    st = KF_EINVAL;
  if (st == KF_EINVAL && !w->why && w->em.error != YAML_EMITTER_ERROR)
    st = KF_ENOMEM;   /* event initializers and the writer fail only so */
  if (st == KF_EINVAL)
    kf_fail(e, KF_EINVAL, "YAML: %s", w->why ? w->why : w->em.problem);
  else if (st == KF_ELIMIT)
    kf_fail(e, KF_ELIMIT, "YAML nested deeper than %d levels", KF_MAX_DEPTH);
  else if (st == KF_ENOMEM)
    kf_nomem(e);
  yaml_emitter_delete(&w->em);
  if (st != KF_OK && !out->oom) out->n = start;   /* no half document */
  return st;
}
