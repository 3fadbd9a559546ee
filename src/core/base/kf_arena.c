/*
** kf_arena.c - allocator plumbing: errors, arena, byte buffer, value tree.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kf_core.h"

kf_status kf_fail(kf_err *e, kf_status code, const char *fmt, ...) {
  va_list ap;
  e->code = code;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  return code;
}

kf_status kf_nomem(kf_err *e) {
  return kf_fail(e, KF_ENOMEM, "not enough memory");
}

/* ---- arena ------------------------------------------------------------ */

#define CHUNK_MIN 4096

void kf_arena_init(kf_arena *A, kf_alloc a) {
  A->a = a;
  A->head = NULL;
  A->total = 0;
  A->failed = 0;
}

void *kf_arena_alloc(kf_arena *A, size_t n) {
  void *p = kf_arena_alloc_raw(A, n);
  if (p != NULL) memset(p, 0, n);
  return p;
}

void *kf_arena_alloc_slow(kf_arena *A, size_t n) {
  kf_chunk *c = A->head;
  void *p;
  {
    size_t sz = n > CHUNK_MIN ? n : CHUNK_MIN;
    if (c != NULL && sz < c->size * 2 && c->size < (1u << 20)) sz = c->size * 2;
    if (sz > (size_t)-1 / 2) return (A->failed = 1, NULL);
    c = (kf_chunk *)A->a.f(A->a.ud, NULL, 0, sizeof(kf_chunk) + sz);
    if (c == NULL) return (A->failed = 1, NULL);
    c->size = sz;
    c->used = 0;
    c->next = A->head;
    A->head = c;
    A->total += sizeof(kf_chunk) + sz;
  }
  p = (char *)c->data + c->used;
  c->used += n;
  return p;
}

char *kf_arena_strndup(kf_arena *A, const char *s, size_t n) {
  char *p = (char *)kf_arena_alloc_raw(A, n + 1);
  if (p == NULL) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static void free_chunks(kf_arena *A, kf_chunk *c) {
  while (c != NULL) {
    kf_chunk *next = c->next;
    A->total -= sizeof(kf_chunk) + c->size;
    A->a.f(A->a.ud, c, sizeof(kf_chunk) + c->size, 0);
    c = next;
  }
}

void kf_arena_reset(kf_arena *A) {
  kf_chunk *c = A->head, *keep = NULL;
  A->failed = 0;
  /* keep the largest chunk: later calls of the same size then never
  ** allocate */
  for (; c != NULL; c = c->next)
    if (keep == NULL || c->size > keep->size) keep = c;
  if (keep == NULL) return;
  for (c = A->head; c != NULL;) {
    kf_chunk *next = c->next;
    if (c != keep) {
      A->total -= sizeof(kf_chunk) + c->size;
      A->a.f(A->a.ud, c, sizeof(kf_chunk) + c->size, 0);
    }
    c = next;
  }
  keep->next = NULL;
  keep->used = 0;
  A->head = keep;
}

/* Frees every chunk larger than `keep` bytes (contents and all: only
** between uses), so a long-lived arena does not hold one big call's
** memory. */
void kf_arena_trim(kf_arena *A, size_t keep) {
  kf_chunk **pc = &A->head;
  while (*pc != NULL) {
    kf_chunk *c = *pc;
    if (c->size > keep) {
      *pc = c->next;
      A->total -= sizeof(kf_chunk) + c->size;
      A->a.f(A->a.ud, c, sizeof(kf_chunk) + c->size, 0);
    } else {
      pc = &c->next;
    }
  }
}

size_t kf_arena_used(const kf_arena *A) {
  const kf_chunk *c;
  size_t n = 0;
  for (c = A->head; c != NULL; c = c->next) n += c->used;
  return n;
}

void kf_arena_rewind(kf_arena *A, const kf_arena_mark *m) {
  while (A->head != m->head && A->head != NULL) {   /* newer chunks: at the head */
    kf_chunk *c = A->head;
    A->head = c->next;
    A->total -= sizeof(kf_chunk) + c->size;
    A->a.f(A->a.ud, c, sizeof(kf_chunk) + c->size, 0);
  }
  if (A->head != NULL) A->head->used = m->used;
  A->failed = m->failed;
}

void kf_arena_free(kf_arena *A) {
  free_chunks(A, A->head);
  A->head = NULL;
}

/* Not zeroed: protobuf-c initializes what it allocates, as it must with
** its default allocator, malloc. */
static void *pb_alloc(void *ud, size_t n) {
  return kf_arena_alloc_raw((kf_arena *)ud, n);
}
static void pb_free(void *ud, void *p) {
  (void)ud;
  (void)p;  /* the arena owns it */
}

void kf_arena_pballoc(kf_arena *A, ProtobufCAllocator *pa) {
  pa->alloc = pb_alloc;
  pa->free = pb_free;
  pa->allocator_data = A;
}

/* ---- buffer ----------------------------------------------------------- */

void kf_buf_init(kf_buf *b, kf_alloc a) {
  b->a = a;
  b->p = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
}

void kf_buf_free(kf_buf *b) {
  if (b->p != NULL) b->a.f(b->a.ud, b->p, b->cap, 0);
  b->p = NULL;
  b->n = b->cap = 0;
}

void kf_buf_trim(kf_buf *b, size_t keep) {
  if (b->cap > keep) kf_buf_free(b);
  b->n = 0;
}

static int buf_grow(kf_buf *b, size_t need) {
  size_t cap = b->cap ? b->cap : 256;
  char *p;
  if (b->oom) return 0;
  if (need > ((size_t)-1) / 2) return (b->oom = 1, 0);
  while (cap < need) cap *= 2;
  p = (char *)b->a.f(b->a.ud, b->p, b->cap, cap);
  if (p == NULL) return (b->oom = 1, 0);
  b->p = p;
  b->cap = cap;
  return 1;
}

int kf_buf_add(kf_buf *b, const char *s, size_t n) {
  if (b->n + n > b->cap && !buf_grow(b, b->n + n)) return 0;
  if (n) memcpy(b->p + b->n, s, n);
  b->n += n;
  return 1;
}

int kf_buf_reserve(kf_buf *b, size_t extra) {
  return b->n + extra <= b->cap || buf_grow(b, b->n + extra);
}

int kf_buf_addc_slow(kf_buf *b, char c) {
  if (b->n + 1 > b->cap && !buf_grow(b, b->n + 1)) return 0;
  b->p[b->n++] = c;
  return 1;
}

int kf_buf_adds(kf_buf *b, const char *s) { return kf_buf_add(b, s, strlen(s)); }


/* ---- value tree ------------------------------------------------------- */

kf_node *kf_node_new(kf_arena *A, kf_ntype t) {
  kf_node *n = (kf_node *)kf_arena_alloc(A, sizeof *n);
  if (n != NULL) n->t = t;
  return n;
}

kf_node *kf_node_str(kf_arena *A, const char *s, size_t len) {
  kf_node *n = kf_node_new(A, KF_NSTR);
  char *p;
  if (n == NULL || (p = kf_arena_strndup(A, s, len)) == NULL) return NULL;
  n->u.s.p = p;
  n->u.s.n = len;
  return n;
}

kf_node *kf_node_int(kf_arena *A, int64_t i) {
  kf_node *n = kf_node_new(A, KF_NINT);
  if (n != NULL) n->u.i = i;
  return n;
}

int kf_node_push(kf_arena *A, kf_node *c, const char *key, kf_node *v) {
  if (v == NULL) return 0;
  if (c->u.c.n == c->u.c.cap) {
    size_t cap = c->u.c.cap ? c->u.c.cap * 2 : 4;
    kf_node **nv = (kf_node **)kf_arena_alloc_raw(A, cap * sizeof *nv);
    const char **nk = NULL;
    if (nv == NULL) return 0;
    if (c->t == KF_NOBJ &&
        (nk = (const char **)kf_arena_alloc_raw(A, cap * sizeof *nk)) == NULL)
      return 0;
    if (c->u.c.n) {
      memcpy(nv, c->u.c.v, c->u.c.n * sizeof *nv);
      if (nk) memcpy(nk, c->u.c.k, c->u.c.n * sizeof *nk);
    }
    c->u.c.v = nv;
    c->u.c.k = nk;
    c->u.c.cap = cap;
  }
  if (c->t == KF_NOBJ) c->u.c.k[c->u.c.n] = key;
  c->u.c.v[c->u.c.n++] = v;
  return 1;
}

kf_node *kf_node_get(const kf_node *obj, const char *key) {
  size_t i;
  if (obj == NULL || obj->t != KF_NOBJ) return NULL;
  for (i = 0; i < obj->u.c.n; i++)   /* the first byte before the call */
    if (obj->u.c.k[i][0] == key[0] && strcmp(obj->u.c.k[i], key) == 0)
      return obj->u.c.v[i];
  return NULL;
}

/* Replaces key `k` of `o`, or adds it. */
int kf_node_put(kf_arena *A, kf_node *o, const char *k, kf_node *v) {
  size_t i;
  if (v == NULL) return 0;
  for (i = 0; i < o->u.c.n; i++)
    if (strcmp(o->u.c.k[i], k) == 0) {
      o->u.c.v[i] = v;
      return 1;
    }
  return kf_node_push(A, o, k, v);
}

kf_node *kf_obj_add(kf_arena *A, kf_node *obj, const char *key, kf_ntype t) {
  kf_node *n = kf_node_new(A, t);
  if (n == NULL || !kf_node_push(A, obj, key, n)) return NULL;
  return n;
}

int kf_obj_str(kf_arena *A, kf_node *obj, const char *key, const char *s) {
  return kf_node_push(A, obj, key, kf_node_str(A, s, strlen(s)));
}

int kf_obj_strref(kf_arena *A, kf_node *obj, const char *key, const char *s) {
  kf_node *n = kf_node_new(A, KF_NSTR);
  if (n == NULL) return 0;
  n->u.s.p = s;
  n->u.s.n = strlen(s);
  return kf_node_push(A, obj, key, n);
}

int kf_obj_int(kf_arena *A, kf_node *obj, const char *key, int64_t i) {
  return kf_node_push(A, obj, key, kf_node_int(A, i));
}

/* A shallow copy of an object or list (NULL or another type: an empty one
** of type t), to append to without touching the original. */
kf_node *kf_node_copy_shallow(kf_arena *A, const kf_node *n, kf_ntype t) {
  kf_node *d = kf_node_new(A, t);
  size_t i;
  if (d == NULL || n == NULL || n->t != t) return d;
  for (i = 0; i < n->u.c.n; i++)
    if (!kf_node_push(A, d, t == KF_NOBJ ? n->u.c.k[i] : NULL, n->u.c.v[i]))
      return NULL;
  return d;
}
