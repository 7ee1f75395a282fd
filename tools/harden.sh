#!/usr/bin/env bash
# Hardening run: the native test suite under AddressSanitizer + UndefinedBehaviorSanitizer,
# then a bounded libFuzzer run of the calculator entry point and the exercise checker
# (tools/fuzz), all from one clang build (MLSYS_SANITIZE=address,undefined, MLSYS_FUZZ=ON).
#   ./tools/harden.sh                          ~60 s of fuzzing per target after the build
#   MLSYS_FUZZ_SECONDS=3600 ./tools/harden.sh  a longer run (seconds per target)
#   MLSYS_FUZZ_SECONDS=0 ./tools/harden.sh     sanitizer tests only
# Environment: MLSYS_HARDEN_DIR (build folder, default build/harden), JOBS (build jobs,
# default nproc), MLSYS_FUZZ_TIMEOUT (seconds one input may take before it counts as a hang,
# default 25). New corpus entries accumulate in $MLSYS_HARDEN_DIR/corpus/<target>; a crash,
# leak, hang or failed check leaves its input in $MLSYS_HARDEN_DIR/artifacts/ and fails.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DIR=${MLSYS_HARDEN_DIR:-$ROOT/build/harden}
SECONDS_PER_TARGET=${MLSYS_FUZZ_SECONDS:-60}
TIMEOUT=${MLSYS_FUZZ_TIMEOUT:-25}
JOBS=${JOBS:-$(nproc)}

say() { printf '\n== %s\n' "$*"; }

command -v clang++ >/dev/null || { echo "harden.sh needs clang++ (Debian: apt-get install clang)" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)

say "sanitizer + fuzz build (clang++, address,undefined) in $DIR"
cmake -S "$ROOT" -B "$DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" -DMLSYS_SANITIZE=address,undefined -DMLSYS_FUZZ=ON >/dev/null
cmake --build "$DIR" -j "$JOBS" --target mlsys_tests fuzz_calc fuzz_exercise

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

say "engine tests under ASan + UBSan"
"$DIR/tests/core/mlsys_tests" --gtest_brief=1

if [ "$SECONDS_PER_TARGET" -gt 0 ]; then
  mkdir -p "$DIR/artifacts"
  for target in fuzz_calc fuzz_exercise; do
    say "$target: ${SECONDS_PER_TARGET} s from the schema seeds"
    rm -rf "$DIR/seeds/$target"
    MLSYS_FUZZ_SEEDS="$DIR/seeds/$target" "$DIR/bin/$target"
    mkdir -p "$DIR/corpus/$target"
    "$DIR/bin/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout="$TIMEOUT" -rss_limit_mb=4096 \
      -max_len=4096 -print_final_stats=1 -artifact_prefix="$DIR/artifacts/$target-" \
      "$DIR/corpus/$target" "$DIR/seeds/$target"
  done
fi
say "hardening passed"
