#!/usr/bin/env bash
# Builds a CUDA-enabled Kokkos and compiles every undertow translation unit that holds Kokkos
# kernels with it (nvcc through Kokkos' nvcc_wrapper), then builds and runs the point-function
# check (tests/tools/cuda_point_functions.cpp) on the GPU. It needs no MPI, PETSc or HDF5
# libraries, only their headers, so it runs on a bare GPU machine:
#
#   tests/tools/cuda_kernel_check.sh KOKKOS_SOURCE HEADERS_DIR OUT_DIR [ARCH]
#
# KOKKOS_SOURCE  a Kokkos source tree (3.4 or 4.x)
# HEADERS_DIR    a folder with include/ holding mpi.h, PETSc's and HDF5's headers and gtest/
# OUT_DIR        where the logs go: kokkos_build.log, compile_<file>.log, summary.txt
# ARCH           Kokkos architecture option (default AMPERE80; Kokkos 3.4 has no HOPPER90, and
#                sm_80 code runs on an H100 through the PTX it carries)
#
# Environment: FILES, a space-separated list of translation units to compile instead of all of
# them (a quick check of what a change touched); COMPILE_ONLY=1 skips the run on the GPU (step
# 3), for a machine with nvcc and no GPU.
#
# Exit status: 0 if every file compiled and the point-function check passed.
set -u
kokkos_src=$(realpath "$1")
headers=$(realpath "$2")
out=$(realpath -m "$3")
arch=${4:-AMPERE80}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=/tmp/undertow_cuda_check
mkdir -p "$out" "$work/obj" "$work/logs"
jobs=$(nproc)

echo "== nvcc: $(nvcc --version | tail -1)" | tee "$out/summary.txt"
echo "== host compiler: $(g++ --version | head -1)" | tee -a "$out/summary.txt"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/== GPU: /' |
    tee -a "$out/summary.txt"
else
  echo "== GPU: none (no nvidia-smi)" | tee -a "$out/summary.txt"
fi

case "$arch" in AMPERE80) sm=sm_80 ;; AMPERE86) sm=sm_86 ;; VOLTA70) sm=sm_70 ;; HOPPER90) sm=sm_90 ;;
*) echo "unknown ARCH $arch (AMPERE80, AMPERE86, VOLTA70, HOPPER90)" && exit 2 ;; esac
# A Kokkos 3.4 tree is patched for CUDA 13 (a copy, not the source); see kokkos_cuda_patch.sh.
rm -rf "$work/kokkos-src" && cp -r "$kokkos_src" "$work/kokkos-src" && kokkos_src="$work/kokkos-src"
"$root/tests/tools/kokkos_cuda_patch.sh" "$kokkos_src" "$sm" | tee -a "$out/summary.txt"
cp "$kokkos_src/bin/nvcc_wrapper" "$work/nvcc_wrapper"
sed -i "s/^default_arch=.*/default_arch=\"$sm\"/" "$work/nvcc_wrapper"

# 1. Kokkos with CUDA.
if [ ! -f "$work/kokkos/lib/cmake/Kokkos/KokkosConfig.cmake" ] &&
  [ ! -f "$work/kokkos/lib64/cmake/Kokkos/KokkosConfig.cmake" ]; then
  cmake -S "$kokkos_src" -B "$work/kokkos-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$work/nvcc_wrapper" -DCMAKE_CXX_STANDARD=17 \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON \
    -DKokkos_ARCH_${arch}=ON -DCMAKE_INSTALL_PREFIX="$work/kokkos" >"$out/kokkos_build.log" 2>&1 &&
    cmake --build "$work/kokkos-build" -j"$jobs" >>"$out/kokkos_build.log" 2>&1 &&
    cmake --install "$work/kokkos-build" >>"$out/kokkos_build.log" 2>&1
  if [ $? -ne 0 ]; then
    echo "FAILED: building Kokkos with CUDA (see kokkos_build.log)" | tee -a "$out/summary.txt"
    tail -40 "$out/kokkos_build.log"
    exit 1
  fi
fi
echo "== Kokkos with CUDA ($arch) built" | tee -a "$out/summary.txt"
kk="$work/kokkos"
wrapper="$work/nvcc_wrapper"
flags=(-std=c++17 -O2 -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX -arch="$sm" --expt-extended-lambda --expt-relaxed-constexpr
  -Wext-lambda-captures-this -I"$kk/include" -I"$work/generated" -I"$headers/include")
for lib in core io solvers adjoint adjoint/optimisation; do flags+=(-I"$root/$lib/include"); done

# configure_file's job for version.hpp
mkdir -p "$work/generated/undertow/core"
sed -e 's/@PROJECT_VERSION_MAJOR@/0/;s/@PROJECT_VERSION_MINOR@/0/;s/@PROJECT_VERSION_PATCH@/0/' \
  -e 's/@PROJECT_VERSION@/cuda-check/' "$root/core/include/undertow/core/version.hpp.in" \
  >"$work/generated/undertow/core/version.hpp"

# 2. Every translation unit that includes Kokkos, compiled for the GPU. config.cpp and the job
# front end need Boost.Program_options only, whose headers are not carried; they hold no kernel.
cd "$root"
failed=0
count=0
# find, not git ls-files: a copied tree may carry a stale index.
all_files=$(find core/src io/src solvers/src adjoint/src tests/unit tests/mpi bench -name '*.cpp' |
  sort)
for f in ${FILES:-$all_files}; do
  case "$f" in core/src/config.cpp) continue ;; esac
  if grep -q "boost/" "$f"; then continue; fi
  log="$work/logs/compile_$(echo "$f" | tr '/' '_').log"
  count=$((count + 1))
  (
    "$wrapper" "${flags[@]}" -I"$root/$(dirname "$f")" -I"$root/tests" -I"$root/bench" \
      -I"$root/adjoint/src" -I"$root/solvers/src" -I"$root/io/src" -I"$root/jobs/src" -c "$f" \
      -o "$work/obj/$(basename "$log" .log).o" >"$log" 2>&1
    echo $? >"$log.rc"
  ) &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 0.2; done
done
wait
for rc in "$work"/logs/compile_*.log.rc; do
  if [ "$(cat "$rc")" != 0 ]; then
    failed=$((failed + 1))
    echo "FAILED: $(basename "${rc%.log.rc}")" | tee -a "$out/summary.txt"
    grep -m5 -E "error" "${rc%.rc}"
    cat "${rc%.rc}" >>"$out/compile_failures.log"
  fi
  rm -f "$rc"
done
echo "== compiled $count files for $sm, $failed failed" | tee -a "$out/summary.txt"

# 3. The point functions on the GPU against the host.
check="$root/tests/tools/cuda_point_functions.cpp"
if [ "${COMPILE_ONLY:-0}" = 1 ]; then
  echo "== point-function check skipped (COMPILE_ONLY=1)" | tee -a "$out/summary.txt"
elif [ -f "$check" ]; then
  if "$wrapper" "${flags[@]}" "$check" -o "$work/cuda_point_functions" -L"$kk/lib" -L"$kk/lib64" \
    -lkokkoscontainers -lkokkoscore -ldl >"$out/point_functions_build.log" 2>&1; then
    "$work/cuda_point_functions" 2>&1 | tee "$out/point_functions.log"
    status=${PIPESTATUS[0]}
    echo "== point-function check exit $status" | tee -a "$out/summary.txt"
    [ "$status" = 0 ] || failed=$((failed + 1))
  else
    echo "FAILED: building the point-function check" | tee -a "$out/summary.txt"
    tail -30 "$out/point_functions_build.log"
    failed=$((failed + 1))
  fi
fi
[ "$failed" = 0 ]
