# Benchmark smoke run (tiny iteration counts): keeps bench/ from rotting.
# No timing is asserted; it fails only if the benchmark itself breaks.
stage "benchmark smoke (bench/smoke.sh)"
check "bench/smoke.sh" sh bench/smoke.sh
