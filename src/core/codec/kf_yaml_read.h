/*
** kf_yaml_read.h - a strict reader of YAML (and JSON, which YAML 1.2
** reads) text into kf_node trees, one per document of a stream, on
** libyaml's parser.
**
** Strict where a config or manifest must not mean two things:
**   - duplicate keys, keys that are not strings (`1:`, `true:`, `null:`,
**     a mapping or list as a key) and merge keys (`<<`) are errors;
**   - aliases are expanded by sharing the anchored node, and every node an
**     alias stands for counts against max_nodes (an alias bomb stops there,
**     in time linear in the text); an alias also counts for the depth;
**   - tabs where YAML forbids them, invalid UTF-8, control characters:
**     libyaml's error, with its line;
**   - text over max_bytes, more than max_docs documents, nesting deeper
**     than max_depth: KF_ELIMIT;
**   - tags other than !!str, !!int, !!float, !!bool, !!null, !!map, !!seq
**     and the non-specific `!` are errors.
** Plain scalars resolve as the YAML 1.2 core schema says: null, ~ or
** nothing; true/false (three spellings each); decimal, 0o octal and 0x hex
** integers (within int64, else an error); decimal floats, .inf, .nan;
** everything else is a string, and so is every quoted scalar.  YAML 1.1
** words (yes, no, on, off) are strings.  This matches kf_yaml.c, which
** quotes every string a reader could take for something else.
** With limits.yaml11 (manifests: kubectl reads them with go-yaml v2), or
** in a document that starts with `%YAML 1.1`, plain scalars resolve as
** go-yaml v2's resolve.go does: y/yes/on and n/no/off (three spellings
** each) are booleans; '_' is dropped from a scalar that starts with a
** digit or sign, which is then an integer as Go's ParseInt(s, 0, 64)
** reads it (0x hex, 0o and a leading 0 octal, 0b binary), else a float
** of the decimal syntax (09 is 9.0; one out of range is a string).
** A text may start with a UTF-8 byte order mark; a NUL byte is an error
** naming its offset.
**
** Each document keeps the line of each of its nodes (for a value under a
** key: the key's line), looked up by node or by path for error messages.
*/
#ifndef KF_YAML_READ_H
#define KF_YAML_READ_H

#include "kf_job.h"

/* Defaults of kf_yaml_limits (a 0 member takes them). */
#define KF_YAML_MAX_BYTES (16u << 20)   /* the whole text */
#define KF_YAML_MAX_DOCS 4096
#define KF_YAML_MAX_NODES 200000        /* all documents, aliases expanded */

typedef struct kf_yaml_limits {
  size_t max_bytes, max_docs, max_nodes;
  int max_depth;          /* 0: KF_MAX_DEPTH */
  int index_base;         /* first list index in paths: 0 ("a[0]") or 1 */
  int yaml11;             /* plain scalars as YAML 1.1 (kubectl's go-yaml v2) */
} kf_yaml_limits;

typedef struct kf_yaml_line kf_yaml_line;   /* node -> line table */

typedef struct kf_yaml_doc {
  kf_node *root;          /* an empty document: KF_NNIL */
  size_t line;            /* where the document's content starts, 1-based */
  const kf_yaml_line *lines;
  size_t nlines;
  int index_base;
} kf_yaml_doc;

/* Where a read failed: the document (1-based; 0: the whole stream), line
** and column (1-based; 0: unknown), the path inside the document ("" at
** its root), and the problem alone.  kf_err's message holds them all:
** "document D, line L, column C: PATH: problem" (parts that are unknown
** left out; "document D" only in a stream of several).  not_text: the
** text holds a NUL byte, so it is no YAML or JSON text at all (a class of
** its own, which callers tell from a malformed text without its words). */
typedef struct kf_yaml_where {
  size_t doc, line, column;
  char path[256];
  char what[KF_ERRMAX];
  int not_text;
} kf_yaml_where;

/* Reads text[0..n) into *docs (an array of *ndocs in the arena; an empty
** stream has none).  lim may be NULL (every default); where may be NULL.
** KF_EINVAL for bad input, KF_ELIMIT past a limit, KF_ENOMEM. */
kf_status kf_yaml_read(kf_arena *A, const char *text, size_t n,
                       const kf_yaml_limits *lim, kf_yaml_doc **docs,
                       size_t *ndocs, kf_yaml_where *where, kf_err *e);

/* The line of a node of the document (for a value under a key, the key's
** line), or 0 when it is not one of the document's own nodes. */
size_t kf_yaml_node_line(const kf_yaml_doc *d, const kf_node *n);

/* The line of the node at `path` ("a.b[2].c", ["key"] for other keys, the
** document's index base), or of the deepest node on the way that exists
** (the document's line at worst).  *matched (may be NULL) gets how many
** bytes of the path were found. */
size_t kf_yaml_path_line(const kf_yaml_doc *d, const char *path,
                         size_t *matched);

#endif
