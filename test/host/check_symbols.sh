#!/bin/sh
# Every global symbol a kfjob library defines must be public API:
# kfjob_* or luaopen_kfjob* (KFJOB_API).  Usage: check_symbols.sh LIB...
status=0
for lib in "$@"; do
  case $lib in
    *.so*) syms=$(nm -D --defined-only "$lib") ;;
    *) syms=$(nm -g --defined-only "$lib") ;;
  esac
  bad=$(printf '%s\n' "$syms" | awk 'NF == 3 { print $3 }' |
        grep -v -E '^(kfjob_|luaopen_kfjob)' |
        grep -v -E '^(_init|_fini|_edata|_end|__bss_start)$')
  n=$(printf '%s\n' "$syms" | awk 'NF == 3' | grep -c -E ' (kfjob_|luaopen_kfjob)')
  if [ -n "$bad" ]; then
    echo "$lib exports non-API symbols:"; printf '  %s\n' $bad; status=1
  elif [ "$n" -lt 10 ]; then
    echo "$lib: only $n API symbols found"; status=1
  else
    echo "ok - $lib: $n symbols, all public API"
  fi
done
exit $status
