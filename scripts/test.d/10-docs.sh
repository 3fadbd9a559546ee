# shellcheck shell=bash
# Every function the binding registers (luaL_Reg tables of src/lua/lkfjob*.c src/host/*.c)
# is documented in the README or a page of docs/, and every public C declaration (KFJOB_API in
# include/kfjob.h) has a Doxygen block right above it.
stage "docs cover the API"
docs_check() {
  local missing="" n
  for n in $(grep -ho '{"[a-z_0-9]*", [a-z_0-9]*}' src/lua/lkfjob*.c src/host/*.c | sed -E 's/\{"([a-z_0-9]*)".*/\1/' | sort -u); do
    grep -q "[.:]$n\b\|\`$n\b" README.md docs/*.md || missing="$missing $n"
  done
  [ -z "$missing" ] || { echo "not in README.md or docs/*.md:$missing"; return 1; }
}
doxygen_check() {
  local bare
  bare=$(awk '/KFJOB_API/ && !/define/ { if (prev !~ /\*\/[ \t]*$/) print NR": "$0 }
              { if ($0 !~ /^[ \t]*$/) prev = $0 }' include/kfjob.h)
  [ -z "$bare" ] || { echo "no Doxygen block above:"; echo "$bare"; return 1; }
}
check "README.md and docs/*.md document every Lua function" docs_check
check "include/kfjob.h: a Doxygen block on every declaration" doxygen_check
# Every relative link of README.md and docs/*.md names a file that exists and,
# after '#', a heading of that file (GitHub's anchors: lowercase, punctuation
# dropped, spaces as '-', '-1' on a repeated heading; fenced code is not a
# heading). The reference moved from the README to docs/ pages: a link to a
# section that moved, or to a heading renamed, fails here.
links_check() {
  python3 - README.md docs/*.md <<'PY'
import os, re, sys
def anchors(path):
    seen, out, fence = {}, set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = None if fence else re.match(r"#{1,6} (.*)", line)
        if m:
            s = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(s, -1) + 1
            seen[s] = n
            out.add(s if n == 0 else "%s-%d" % (s, n))
    return out
bad = 0
for f in sys.argv[1:]:
    fence = False
    for no, line in enumerate(open(f, encoding="utf-8"), 1):
        if line.startswith("```"):
            fence = not fence
        if fence:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anc = target.partition("#")
            tf = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
            if not os.path.exists(tf):
                print("%s:%d: %s: no such file" % (f, no, target)); bad += 1
            elif anc and tf.endswith(".md") and anc not in anchors(tf):
                print("%s:%d: %s: no heading '#%s' in %s" % (f, no, target, anc, tf)); bad += 1
sys.exit(1 if bad else 0)
PY
}
# The README stays an overview; the reference is in docs/.
readme_size_check() {
  local n
  n=$(wc -l <README.md)
  [ "$n" -le 1300 ] || { echo "README.md has $n lines (at most 1300: move reference text to docs/)"; return 1; }
}
check "README.md and docs/*.md: every relative link reaches its file and heading" links_check
check "README.md is at most 1300 lines" readme_size_check
