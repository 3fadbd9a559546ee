/*
** kf_core.h - the Lua-free core of kfjob.
**
** Everything here works on plain C data: an allocator, an arena for the
** temporary memory of one operation, a neutral value tree (kf_node), the
** resolved job (kf_job) and the job-kind tables.  Functions return a
** kf_status and fill a kf_err; none of them knows about lua_State, so the
** same code serves the Lua binding, the host API, the fuzzers and C tests.
*/
#ifndef KF_CORE_H
#define KF_CORE_H

#include <locale.h>
#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

/* ---- status and errors ------------------------------------------------ */

typedef enum kf_status {
  KF_OK = 0,
  KF_EINVAL,   /* bad input: message in kf_err */
  KF_ENOMEM,   /* allocation failed */
  KF_ELIMIT    /* a documented limit was exceeded */
} kf_status;

#define KF_ERRMAX 512
typedef struct kf_err {
  kf_status code;
  char msg[KF_ERRMAX];
} kf_err;

kf_status kf_fail(kf_err *e, kf_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
kf_status kf_nomem(kf_err *e);
/* In a routine returning kf_status whose context `c` has the error `e`:
** return kf_nomem when the allocation `x` yields NULL (or 0). */
#define KF_OOM(c, x) do { if (!(x)) return kf_nomem((c)->e); } while (0)

/* Limits (documented in docs/LIMITS.md). */
#define KF_MAX_DEPTH 64            /* nesting of tables / JSON */
#define KF_MAX_STRING (1u << 20)   /* one string value, bytes */
#define KF_MAX_ITEMS 4096          /* entries of one array (command) */
/* Messages nested in protobuf bytes (the top-level message is level 1):
** protobuf's own default recursion limit.  Checked on the wire before
** protobuf-c's unpack, which recurses without a limit. */
#define KF_MAX_WIRE_DEPTH 100

/* ---- allocator and arena ---------------------------------------------- */

/* Same contract as lua_Alloc so the binding can pass lua_getallocf. */
typedef void *(*kf_allocf)(void *ud, void *ptr, size_t osize, size_t nsize);
typedef struct kf_alloc {
  kf_allocf f;
  void *ud;
} kf_alloc;

typedef struct kf_chunk kf_chunk;
struct kf_chunk {
  kf_chunk *next;
  size_t size, used;      /* usable bytes after the header */
  max_align_t data[];
};
/* Bump allocator: one operation's temporary memory, freed (or reset) at
** once.  Keeps its first chunk across resets so steady-state calls do not
** allocate. */
typedef struct kf_arena {
  kf_alloc a;
  kf_chunk *head;
  size_t total;     /* bytes held in chunks, for accounting */
  int failed;       /* an allocation failed since the last reset: lets
                       callers tell protobuf-c's NULL (bad bytes or no
                       memory) apart */
} kf_arena;

void kf_arena_init(kf_arena *A, kf_alloc a);
void *kf_arena_alloc(kf_arena *A, size_t n);   /* NULL on failure, zeroed */
void *kf_arena_alloc_slow(kf_arena *A, size_t n);  /* n rounded: a new chunk */
/* Not zeroed.  Inline: the readers allocate a node or a string at a time,
** and a call cost twice the bump itself. */
static inline void *kf_arena_alloc_raw(kf_arena *A, size_t n) {
  kf_chunk *c = A->head;
  n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
  if (n == 0) n = sizeof(max_align_t);
  if (c != NULL && c->size - c->used >= n) {
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
  }
  return kf_arena_alloc_slow(A, n);
}
char *kf_arena_strndup(kf_arena *A, const char *s, size_t n);
void kf_arena_reset(kf_arena *A);              /* keep one chunk */
void kf_arena_trim(kf_arena *A, size_t keep);  /* free chunks > keep bytes */
size_t kf_arena_used(const kf_arena *A);       /* bytes handed out since reset */
/* A point to come back to: kf_arena_rewind frees what was allocated
** since kf_arena_mark (chunks and bytes) and leaves the arena as it was, so
** a reader that gives up (kf_json_fast.c, kf_wire_read.c) leaves no trace for the one that
** runs instead: the same chunk sizes, the same memory limit. */
typedef struct kf_arena_pos {
  kf_chunk *head;
  size_t used;
  int failed;
} kf_arena_pos;
kf_arena_pos kf_arena_mark(const kf_arena *A);
void kf_arena_rewind(kf_arena *A, kf_arena_pos pos);

/* A work meter, set by the host sandbox in the Lua registry under
** KF_METER_KEY (a light userdata): the binding adds the work of its own C
** functions - the bytes it allocated, wrote or hashed, one unit per
** KF_METER_BYTES - to the instruction count, and checks the budget at the
** start of each call (and, where Lua has to-be-closed slots, at its end).  `L` is the calling lua_State. */
typedef struct kf_meter {
  void (*add)(void *L, unsigned long long units);   /* never raises */
  void (*check)(void *L);      /* raises (a Lua error) past the budget */
  /* bytes the state's allocator has handed out so far (never decreases):
  ** a function that builds Lua values charges the difference */
  unsigned long long (*allocated)(void *L);
} kf_meter;
#define KF_METER_KEY "kfjob.meter"
#define KF_METER_BYTES 1
void kf_arena_free(kf_arena *A);               /* release everything */
/* protobuf-c allocator that takes from the arena (free is a no-op). */
void kf_arena_pballoc(kf_arena *A, ProtobufCAllocator *pa);

/* Growable byte buffer over the allocator. */
typedef struct kf_buf {
  kf_alloc a;
  char *p;
  size_t n, cap;
  int oom;          /* sticky: set once an append failed */
} kf_buf;

void kf_buf_init(kf_buf *b, kf_alloc a);
void kf_buf_free(kf_buf *b);
void kf_buf_trim(kf_buf *b, size_t keep);      /* free it if cap > keep */
int kf_buf_add(kf_buf *b, const char *s, size_t n);  /* 0 on failure */
int kf_buf_addc_slow(kf_buf *b, char c);
/* inline: JSON writers append one character at a time */
static inline int kf_buf_addc(kf_buf *b, char c) {
  if (b->n < b->cap) {
    b->p[b->n++] = c;
    return 1;
  }
  return kf_buf_addc_slow(b, c);
}
int kf_buf_adds(kf_buf *b, const char *s);
int kf_buf_reserve(kf_buf *b, size_t extra);          /* room for extra bytes */

/* ---- neutral value tree ----------------------------------------------- */

typedef enum kf_ntype {
  KF_NNIL, KF_NBOOL, KF_NINT, KF_NNUM, KF_NSTR, KF_NARR, KF_NOBJ
} kf_ntype;

typedef struct kf_node kf_node;
struct kf_node {
  kf_ntype t;
  const char *tag;       /* constructor name of an object ("Worker", ...) */
  union {
    int b;
    int64_t i;
    double d;
    struct { const char *p; size_t n; } s;
    struct { kf_node **v; const char **k; size_t n, cap; } c; /* k: OBJ only */
  } u;
};

kf_node *kf_node_new(kf_arena *A, kf_ntype t);
kf_node *kf_node_str(kf_arena *A, const char *s, size_t n);
kf_node *kf_node_int(kf_arena *A, int64_t i);
/* Append to an ARR (key NULL) or OBJ; returns 0 on allocation failure. */
int kf_node_push(kf_arena *A, kf_node *c, const char *key, kf_node *v);
kf_node *kf_node_copy_shallow(kf_arena *A, const kf_node *n, kf_ntype t);
kf_node *kf_node_get(const kf_node *obj, const char *key);
/* Replaces key `k` of object `o`, or adds it; 0 when v is NULL or on
** allocation failure. */
int kf_node_put(kf_arena *A, kf_node *o, const char *k, kf_node *v);
/* A copy of object `o` (NULL: an empty one) with key `k` set to `v`, keys
** kept sorted when `o`'s are; NULL when v is NULL or on allocation
** failure. */
kf_node *kf_node_put_sorted(kf_arena *A, const kf_node *o, const char *k, kf_node *v);
/* Objects built by the core (manifests) use these shorthands. */
kf_node *kf_obj_add(kf_arena *A, kf_node *obj, const char *key, kf_ntype t);
int kf_obj_str(kf_arena *A, kf_node *obj, const char *key, const char *s);
/* Without copying: `s` must outlive the tree (static, or the job's own). */
int kf_obj_strref(kf_arena *A, kf_node *obj, const char *key, const char *s);
int kf_obj_int(kf_arena *A, kf_node *obj, const char *key, int64_t i);
/* Trees a job holds (kf_tree.c): deep copy into the arena, equality of
** canonical trees (kf_tree_same: doubles bit for bit, strings ending in a
** NUL), and layout into a block (mem NULL: measure only). */
kf_node *kf_tree_dup(kf_arena *A, const kf_node *n);
/* A held table is canonical (keys sorted, as kf_tree_equal wants): a copy
** of object `in` in key order; NULL when out of memory. */
kf_node *kf_tree_sorted(const kf_node *in, kf_arena *A);
int kf_tree_equal(const kf_node *a, const kf_node *b);
int kf_tree_same(const kf_node *a, const kf_node *b);
const kf_node *kf_tree_lay(const kf_node *n, char *mem, size_t *off);

/* kf_uniq.c: the first item i < n equal to an earlier one (*first), or n
** when all differ; by hash set.  *nomem is set when the set cannot be
** made (then n).  kf_node_hash folds a scalar node (NULL too) into h. */
typedef uint64_t (*kf_uniq_hash)(const void *ud, size_t i);
typedef int (*kf_uniq_eq)(const void *ud, size_t a, size_t b);
size_t kf_first_repeat(kf_arena *A, size_t n, kf_uniq_hash hash,
                       kf_uniq_eq eq, const void *ud, size_t *first,
                       int *nomem);
uint64_t kf_node_hash(const kf_node *n, uint64_t h);
/* A set of strings (pointer and length, not copied: they must outlive
** it) in the arena, made on the first key for `hint` keys and growing
** past them; a rule that asks "seen before?" of every item of a list
** stays linear in it.  kf_strset_add: 1 added, 0 present, -1 out of
** memory.  kf_strset_get: the value stored with the key (kf_strset_put),
** or -1 when absent. */
typedef struct kf_strset {
  kf_arena *A;
  struct kf_strset_slot *slot;
  size_t mask, n, hint;
} kf_strset;
void kf_strset_init(kf_strset *s, kf_arena *A, size_t hint);
int kf_strset_add(kf_strset *s, const char *k, size_t len);
int kf_strset_put(kf_strset *s, const char *k, size_t len, long value);
long kf_strset_get(const kf_strset *s, const char *k, size_t len);
#define KF_HASH_SEED 0xcbf29ce484222325u

/* ---- strings lists and maps ---------------------------------------- */

typedef struct kf_strs {      /* a list of strings */
  const char *const *v;
  size_t n;
} kf_strs;

typedef struct kf_kv {        /* one entry of a string map */
  const char *k, *v;
} kf_kv;

typedef struct kf_kvs {       /* a string map, any order (sorted on output) */
  const kf_kv *v;
  size_t n;
} kf_kvs;

/* ---- lexical helpers (kf_text.c) ------------------------------------- */
/* Kubernetes names (apimachinery pkg/util/validation): a DNS-1123 label
** [a-z0-9]([-a-z0-9]*[a-z0-9])? (dns1035: starting with a letter; length
** unchecked), a DNS-1123 subdomain (dot-separated labels, at most 253),
** a label value or key name ([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?, at
** most 63; a value may also be empty), a qualified name ([subdomain/]name:
** label and annotation keys). */
int kf_dns_label(const char *s, size_t n, int dns1035);
int kf_dns_subdomain(const char *s, size_t n);
/* Why `s` is not a DNS-1123 subdomain (Kubernetes IsDNS1123Subdomain), or
** NULL (the empty string too: callers that refuse it test it first). */
const char *kf_dns1123_subdomain_problem(const char *s);
int kf_label_name(const char *s, size_t n);
/* Why `s` is not a label value (Kubernetes IsValidLabelValue: empty, or a
** label name), in the API server's words joined with "; ", or NULL. */
const char *kf_label_value_problem(const char *s);
/* Whether `s` is one of the NULL-ended list `v` (NULL: an empty list). */
int kf_str_listed(const char *const *v, const char *s);
int kf_qualified_name(const char *k);
/* A container env name Kubernetes takes (validateEnv: letters, digits,
** '_', '-', '.', not starting with a digit). */
int kf_env_name(const char *s);
/* "<prefix>.key", or <prefix>["key"] when key is not an identifier: the
** path of a map entry in messages. */
void kf_key_path(char *out, size_t cap, const char *prefix, const char *k);
/* At most `n` bytes of `s` (to its NUL) appended at out[len], as snprintf
** would (cut at cap - 1, out kept NUL-terminated; cap > 0): the new length. */
size_t kf_put(char *out, size_t len, size_t cap, const char *s, size_t n);

/* Closest of `cands` (NULL-terminated) to `s`, or NULL if none is close. */
const char *kf_suggest(const char *s, const char *const *cands);
/* Levenshtein distance of a and b (ASCII case ignored when nocase);
** (size_t)-1 for strings of 63 bytes or more (names and kinds are short). */
size_t kf_edit_distance(const char *a, const char *b, int nocase);

/* lowerCamelCase JSON name of a proto field name; returns its length and
** writes at most cap - 1 characters plus a NUL. */
size_t kf_json_name(const char *name, char *out, size_t cap);
/* Well-formed UTF-8 (no overlongs, surrogates); returns 1 if valid. */
int kf_utf8_ok(const char *s, size_t n);
/* Why `s` (n bytes) cannot name a job - empty, NUL, invalid UTF-8, a C0,
** DEL or C1 control character - or NULL.  Such names would collide ("a\0b"
** read as "a") or break the JSON/YAML streams and file names. */
const char *kf_name_problem(const char *s, size_t n);
/* Why `s` (n bytes of valid UTF-8) cannot be a token (an image, a path, a
** name the cluster reads) - ASCII whitespace ("must not contain
** whitespace"), a C0/DEL/C1 control, Unicode whitespace (NBSP, U+2028, ...)
** or an invisible format character (zero-width, bidi, BOM), the last
** three named by code point - or NULL.  The message may be written to
** buf (cap >= 64). */
const char *kf_token_problem(const char *s, size_t n, char *buf, size_t cap);
/* `s` for an error message: printable ASCII as is, other bytes as \xNN. */
void kf_name_show(const char *s, size_t n, char *out, size_t cap);
/* Kubernetes quantity grammar; returns 1 if valid. */
int kf_quantity_ok(const char *s, size_t n);
/* "-1", "-500m": a quantity ParseQuantity reads as negative (pod
** validation refuses it in requests and limits: kfjob does everywhere). */
int kf_quantity_negative(const char *s, size_t n);
/* Decimal form of an integer. */
const char *kf_small_int(int64_t i);   /* "0".."99", static; else NULL */
void kf_format_int(int64_t v, char out[32]);
/* Shortest decimal form of a non-negative number ("8", "0.5"). */
void kf_format_number(double d, char out[32]);
/* Formatting and parsing numbers in the "C" LC_NUMERIC locale, whatever
** the process locale: kf_c_numeric_begin() switches the calling thread to
** it and returns what kf_c_numeric_end() restores; kf_strtod is strtod
** between the two. */
locale_t kf_c_numeric_begin(void);
void kf_c_numeric_end(locale_t old);
double kf_strtod(const char *s, char **end);

#endif
