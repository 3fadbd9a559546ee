# shellcheck shell=bash
# 40-fuzz.sh - sourced by scripts/test.sh.
#
# Builds the libFuzzer targets (clang, ASan + UBSan, build-fuzz/), replays
# every saved crash reproducer (fuzz/regressions/<target>/) and seed
# (fuzz/corpus/<target>/) once, then fuzzes each target for
# KFJOB_FUZZ_SECONDS (default 15; 7 targets = 105 s) from its seeds into
# a throw-away corpus.  One check per replay and per run.  Long runs:
# fuzz/run.sh -t 3600 (see its header).  KFJOB_QUICK=1 skips the stage.
if [ "${KFJOB_QUICK:-0}" = 1 ]; then
  echo; echo "(fuzz stage skipped: KFJOB_QUICK=1)"
else
  stage "fuzzing (libFuzzer, ${KFJOB_FUZZ_SECONDS:-15}s per target)"
  if check "fuzz: build (clang -fsanitize=fuzzer,address,undefined)" fuzz/run.sh --build; then
    for fuzz_t in decode from_json decode_task_template decode_task_spec spec qty yaml_read from_manifest; do
      check "fuzz: replay $fuzz_t regressions + seeds" fuzz/run.sh --replay "$fuzz_t"
    done
    for fuzz_t in decode from_json decode_task_template decode_task_spec spec qty yaml_read from_manifest; do
      check "fuzz: $fuzz_t for ${KFJOB_FUZZ_SECONDS:-15}s" \
        env KFJOB_FUZZ_OUT="$LOG/fuzz" fuzz/run.sh -t "${KFJOB_FUZZ_SECONDS:-15}" "$fuzz_t"
    done
  fi
fi
