#!/usr/bin/env bash
# Runs undertow's test suite and benchmarks on a bare GPU machine from a bundle made by
# tests/tools/gpu_bundle.sh, in one command that fits the machine's 10-minute limit:
#
#   tests/tools/gpu_run.sh BUNDLE_DIR OUT_DIR [SECONDS] [STAGES]
#
# SECONDS  wall-clock budget (default 540); each stage gets what is left, minus a reserve
# STAGES   which stages, in order (default "smoke bench unit mpi rest"):
#   smoke  one Navier-Stokes test binary at 1 rank (does the CUDA build run at all?)
#   bench  bench_navier_stokes, bench_pressure_poisson, bench_gradient at 1 rank; the GPU's
#          figures against the CPU's in docs/performance.md
#   ns     bench_navier_stokes alone
#   solve  bench_pressure_poisson (multigrid only: PETSc's CG against the Kokkos CG) and
#          bench_gradient
#   unit   ctest -L unit (one-rank tests), several at a time on the one GPU
#   mpi    ctest -L mpi: the solvers' and adjoints' test binaries at 1, 2 and 4 ranks
#   rest   every other test (command line, files, jobs) until the budget runs out; ParaView,
#          Python, Slurm, installation and slow tests are left out (the bundle has none of them)
#   scale  weak scaling: bench_navier_stokes's `weak` mode at 2, 4, 8, 16 ranks (512^2 and 64^3
#          cells a rank, each run against rank 0 alone). With a CUDA bundle the ranks share
#          the one GPU; with a Serial bundle (BACKEND=serial gpu_bundle.sh) it is the machine's
#          16 CPU cores
#   large  bench_navier_stokes on grids that fill a GPU (2D 1024^2-4096^2, 3D 128^3, 256^3):
#          the momentum kernel's bandwidth against the triad
#   glarge bench_gradient (one projection a step, 20 steps) at 64 and 128 cells per diameter,
#          369k and 1.48M cells: the gradient's time per cell away from launch-bound sizes
#   gather the gather forms of the transposes against their scatter forms with atomics
#          (adjoint_pieces), and the count of host transfers in the steps (device_residency)
#   bitwise  checkpointed = store-all and resumed = uninterrupted gradients (checkpointing, a
#          GoogleTest filter): what promises bitwise equality, on a GPU
#
# GPU_RUN_CTEST_ARGS adds ctest arguments to the test stages (e.g. -R 'navier_stokes|adjoint').
# GPU_RUN_GRADIENT_ARGS replaces bench_gradient's arguments in `solve` (default "100 3": steps,
# repeats).
# Writes OUT_DIR/summary.txt (machine, passed/failed counts, the failing tests, benchmark
# tables) and one log per stage. Runs from the repository root (tests read cases/ and docs/).
# Exit status 0 when every stage that ran passed.
set -uo pipefail
[ $# -ge 2 ] || { sed -n 2,37p "$0"; exit 2; }
bundle=$(realpath "$1")
out=$(realpath -m "$2")
budget=${3:-540}
stages=${4:-smoke bench unit mpi rest}
root=$(cd "$(dirname "$0")/../.." && pwd)
start=$(date +%s)
mkdir -p "$out"
summary="$out/summary.txt"
left() { echo $((budget - ($(date +%s) - start))); }
say() { echo "$*" | tee -a "$summary"; }

# 1. Unpack and relocate.
dest=${GPU_RUN_DIR:-/tmp/undertow-gpu}
rm -rf "$dest" && mkdir -p "$dest"
# shellcheck disable=SC1091
. "$bundle/manifest.env"
xz -dc "$bundle/runtime.tar.xz" | tar -xf - -C "$dest"
xz -dc "$bundle/undertow.tar.xz" | tar -xf - -C "$dest"
sys="$dest/sysroot"
build="$dest/build"
# The CTest files name the build tree, the source tree and mpiexec by absolute path.
grep -rlI -e "$BUILD_ROOT" -e "$SOURCE_ROOT" -e /usr/bin/mpiexec "$build" 2>/dev/null |
  xargs -r sed -i -e "s#$BUILD_ROOT#$build#g" -e "s#$SOURCE_ROOT#$root#g" \
    -e "s#/usr/bin/mpiexec#$sys/usr/bin/mpiexec#g"
# A general library the target has itself (same soname, e.g. libz, libcurl, libgfortran) is
# taken from the target: its tools (cmake, ctest) then never load the bundle's older Debian copy.
# The MPI stack and the numerical libraries always come from the bundle, as one consistent set
# with the Open MPI launcher and plugins it carries (the H200 machine had an Open MPI 4.1 of its
# own). GPU_RUN_KEEP_ALL_LIBS=1 keeps every bundled one (the proof on the machine that made it).
bundled_always='^lib(mpi|open-pal|open-rte|mca_common|oshmem|pmix|petsc|hdf5|HYPRE|trilinos|[cdsz]?mumps|pord|scalapack|superlu|ptscotch|scotch|CombBLAS|boost_)'
if [ "${GPU_RUN_KEEP_ALL_LIBS:-0}" != 1 ] && command -v ldconfig >/dev/null; then
  mkdir -p "$sys/lib-target-has"
  known=$(ldconfig -p | awk '{print $1}' | sort -u)
  for lib in "$sys"/lib/*; do
    name=$(basename "$lib")
    [[ "$name" =~ $bundled_always ]] && continue
    if grep -qxF "$name" <<<"$known"; then mv "$lib" "$sys/lib-target-has/"; fi
  done
fi
export LD_LIBRARY_PATH="$sys/lib:$sys$MPI_LIB/lib:$sys$PMIX_LIB/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$sys/usr" PMIX_INSTALL_PREFIX="$sys$PMIX_LIB"
export PATH="$sys/usr/bin:$PATH"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export OMPI_MCA_osc=^ucx OMPI_MCA_mca_base_component_show_load_errors=0
# One-rank runs without mpiexec start no daemon.
export OMPI_MCA_ess_singleton_isolated=1
export KOKKOS_DISABLE_WARNINGS=1
# Every kernel loaded when a program starts, not at its first launch (CUDA's lazy loading): a
# benchmark that times one solve would otherwise time the loading of the kernels it is the first
# to launch (the 190 x 69 stretched grid of 2026-11-30).
export CUDA_MODULE_LOADING=EAGER

{
  echo "== undertow $COMMIT on $(hostname), $(date -u +%Y-%m-%dT%H:%MZ)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | sed 's/^/== GPU: /'
  else
    echo "== no nvidia-smi: no GPU (a $BACKEND bundle)"
  fi
  echo "== CPU: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
  echo "== built with $NVCC for $SM, $KOKKOS"
  echo "== the target's own copies used for: $(ls "$sys/lib-target-has" 2>/dev/null | tr '\n' ' ')"
} | tee "$summary"

status=0
stage_limit() { # seconds a stage may take: what is left, keeping 20 s for the summary
  local l=$(($(left) - 20))
  [ "$l" -gt "$1" ] && l=$1
  echo "$l"
}
run_ctest() { # name, ctest arguments...
  local name=$1; shift
  local limit
  limit=$(stage_limit 100000)
  if [ "$limit" -lt 30 ]; then say "== $name: skipped, no time left"; return; fi
  # shellcheck disable=SC2086
  timeout "$limit" ctest --test-dir "$build" --timeout 300 --output-on-failure "$@" ${GPU_RUN_CTEST_ARGS:-} \
    >"$out/$name.log" 2>&1
  local rc=$?
  grep -E "tests passed|Total Test time" "$out/$name.log" | sed "s/^/== $name: /" | tee -a "$summary"
  grep -E "^\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Subprocess aborted|Exception|Not Run)" \
    "$out/$name.log" | sed "s/^/   /" | tee -a "$summary"
  [ "$rc" = 124 ] && say "== $name: stopped at the time budget"
  [ "$rc" = 0 ] || status=1
  cp "$build/Testing/Temporary/LastTest.log" "$out/$name.LastTest.log" 2>/dev/null
}
run_bench() { # name, seconds, command...
  local name=$1 want=$2; shift 2
  local limit
  limit=$(stage_limit "$want")
  if [ "$limit" -lt 10 ]; then say "== $name: skipped, no time left"; return; fi
  # Line-buffered: a benchmark stopped at its limit keeps what it printed.
  timeout "$limit" stdbuf -oL "$@" >"$out/$name.log" 2>&1
  local rc=$?
  say "== $name (exit $rc):"
  if [ "$name" = smoke ] || [[ "$name" == gtest_* ]]; then
    grep -E "^\[  (PASSED|FAILED) |^\[ +(OK|FAILED) +\]|tests ran|Failure|Expected|Which is|largest" \
      "$out/$name.log" | tee -a "$summary"
  else
    cat "$out/$name.log" >>"$summary"
  fi
  [ "$rc" = 0 ] || status=1
}

for stage in $stages; do
  case "$stage" in
  smoke) run_bench smoke 120 "$build/bin/test_navier_stokes" ;;
  ns) run_bench bench_navier_stokes 120 "$build/bin/bench_navier_stokes" 10 ;;
  bench)
    run_bench bench_navier_stokes 120 "$build/bin/bench_navier_stokes" 10
    run_bench bench_pressure_poisson 60 "$build/bin/bench_pressure_poisson" 1
    run_bench bench_gradient 90 "$build/bin/bench_gradient" 100 3
    ;;
  solve)
    run_bench bench_pressure_poisson 90 "$build/bin/bench_pressure_poisson" 1 mg
    # shellcheck disable=SC2086
    run_bench bench_gradient 90 "$build/bin/bench_gradient" ${GPU_RUN_GRADIENT_ARGS:-100 3}
    ;;
  unit) run_ctest unit -L unit -j 8 ;;
  mpi) run_ctest mpi -L mpi -LE "slow" -j 12 ;;
  rest) run_ctest rest -LE "unit|mpi|slow|slurm|catalyst|python|install" -j 12 ;;
  large) run_bench bench_navier_stokes_large 150 "$build/bin/bench_navier_stokes" 5 large ;;
  glarge) run_bench bench_gradient_large 240 "$build/bin/bench_gradient" 20 1 imex_last 8192 64,128 ;;
  gather)
    run_bench gtest_gather_scatter 60 "$build/bin/test_adjoint_pieces" \
      --gtest_filter='*GatherEqualsScatter*'
    run_bench gtest_device_residency 60 "$build/bin/test_device_residency"
    ;;
  bitwise)
    run_bench gtest_checkpointing 240 "$build/bin/test_checkpointing" \
      --gtest_filter="${GPU_RUN_BITWISE_FILTER:-CheckpointedGradient.EverySchedule*:CheckpointedGradientImex.*:CheckpointedGradient.StoppedRunsResume*}"
    ;;
  scale)
    for r in 2 4 8 16; do
      run_bench "bench_weak_np$r" 120 mpiexec -n "$r" "$build/bin/bench_navier_stokes" 3 weak
    done
    ;;
  *) say "== unknown stage $stage" && status=1 ;;
  esac
done
say "== finished in $(($(date +%s) - start)) s, exit $status"
exit $status
