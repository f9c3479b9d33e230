#!/usr/bin/env bash
# Prepares everything a bare GPU machine needs to run undertow's test suite and benchmarks on its
# GPU, on a machine that has the Debian packages and nvcc but no GPU:
#
#   tests/tools/gpu_bundle.sh KOKKOS_SOURCE [BUNDLE_DIR]
#
# KOKKOS_SOURCE  a Kokkos 3.4 or 4.x source tree or tarball (Kokkos' public repository at tag
#                3.4.01, or packages/kokkos of Debian's Trilinos 13.2 source package); a 3.4
#                tree is patched for CUDA 13 by kokkos_cuda_patch.sh (on a copy)
# BUNDLE_DIR     where the bundle goes (default WORK/bundle; build-gpu*/ are ignored by git,
#                so hand it to the GPU machine as a carried path)
#
# Environment: CUDA_HOME (default /usr/local/cuda: nvcc 12 or 13), SM (default sm_90, an H100),
# JOBS (default all cores), WORK (default build-gpu: the Kokkos and undertow build trees),
# BACKEND (default cuda; serial builds the same bundle with Kokkos' Serial backend and g++, in
# build-gpu-serial, to prove it on a machine without a GPU: tests/tools/gpu_bundle_proof.sh),
# BUILD_DIR (an undertow build tree to bundle as it is: no Kokkos or undertow build; KOKKOS_SOURCE
# is then not read).
#
# Why the GPU code is compiled here and not there: a GPU machine is lent for 15 minutes of device
# time in all, and compiling undertow with nvcc takes 17 minutes on 2 cores here (most of the 15
# minutes there, with Kokkos). Compiled here, the machine only runs. The bundle holds
#   undertow.tar.xz       the build tree without objects: executables (Kokkos CUDA + Serial,
#                         linked statically), CTest files, generated files
#   runtime.tar.xz        a sysroot with every shared library the executables load that a bare
#                         Ubuntu-like machine may lack (PETSc, HDF5, Open MPI with mpirun, PMIx,
#                         Boost, BLAS/LAPACK, MUMPS, hypre, gfortran, ...), from this machine's
#                         Debian packages; glibc, libstdc++ and the CUDA driver are the target's
#   manifest.env          paths to rewrite on the target, versions, sizes
# tests/tools/gpu_run.sh unpacks it on the GPU machine and runs the suite and the benchmarks.
# Exit status 0 when the bundle is complete: every library resolves inside the sysroot (checked
# with ldd against the sysroot alone) and it fits in 60 MiB.
set -euo pipefail
[ $# -ge 1 ] || { sed -n 2,30p "$0"; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
kokkos_in=$(realpath -m "$1")
bundle_arg=${2:-}
backend=${BACKEND:-cuda}
case "$backend" in cuda) default_work=$root/build-gpu ;; serial) default_work=$root/build-gpu-serial ;;
*) echo "gpu_bundle: BACKEND must be cuda or serial, not '$backend'" >&2 && exit 2 ;; esac
work=$(realpath -m "${WORK:-$default_work}")
cuda=${CUDA_HOME:-/usr/local/cuda}
sm=${SM:-sm_90}
jobs=${JOBS:-$(nproc)}
limit_mib=60

bundle=$(realpath -m "${bundle_arg:-$work/bundle}")
[ "$backend" = serial ] || [ -x "$cuda/bin/nvcc" ] || {
  echo "gpu_bundle: no nvcc at $cuda/bin/nvcc. Set CUDA_HOME to a CUDA 12 or 13 toolkit (the" \
    "pip wheels nvidia-cuda-nvcc, nvidia-cuda-runtime and nvidia-cuda-cccl unpacked into one" \
    "prefix will do)." >&2
  exit 2
}
export PATH="$cuda/bin:$PATH"
mkdir -p "$work" "$bundle"

# 1. Kokkos with CUDA (and Serial), patched when it is a 3.4 tree.
if [ -z "${BUILD_DIR:-}" ] && [ ! -f "$work/kokkos/lib/cmake/Kokkos/KokkosConfig.cmake" ]; then
  rm -rf "$work/kokkos-src" "$work/kokkos-build"
  mkdir -p "$work/kokkos-src"
  if [ -d "$kokkos_in" ]; then
    cp -r "$kokkos_in/." "$work/kokkos-src"
  else
    tar -xf "$kokkos_in" -C "$work/kokkos-src" --strip-components=1
  fi
  if [ "$backend" = cuda ]; then
    "$root/tests/tools/kokkos_cuda_patch.sh" "$work/kokkos-src" "$sm"
    cp "$work/kokkos-src/bin/nvcc_wrapper" "$work/nvcc_wrapper"
    sed -i "s/^default_arch=.*/default_arch=\"$sm\"/" "$work/nvcc_wrapper"
    # Kokkos 4 knows the H100 (HOPPER90); a patched 3.4 compiles AMPERE80 for $sm.
    arch=AMPERE80
    grep -q "HOPPER90" "$work/kokkos-src/cmake/kokkos_arch.cmake" && [ "$sm" = sm_90 ] && arch=HOPPER90
    kokkos_options=(-DCMAKE_CXX_COMPILER="$work/nvcc_wrapper" -DKokkos_ENABLE_CUDA=ON
      -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_$arch=ON)
  else
    kokkos_options=(-DCMAKE_CXX_COMPILER=c++)
  fi
  echo "== building Kokkos ($backend)"
  cmake -S "$work/kokkos-src" -B "$work/kokkos-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_STANDARD=17 -DKokkos_ENABLE_SERIAL=ON "${kokkos_options[@]}" \
    -DCMAKE_INSTALL_PREFIX="$work/kokkos" >"$work/kokkos.log" 2>&1
  cmake --build "$work/kokkos-build" -j"$jobs" >>"$work/kokkos.log" 2>&1
  cmake --install "$work/kokkos-build" >>"$work/kokkos.log" 2>&1
fi

# 2. undertow with nvcc (through Kokkos' nvcc_wrapper). No Catalyst or Python: the GPU machine
# has neither ParaView nor the Python modules.
if [ -n "${BUILD_DIR:-}" ]; then
  build=$(realpath "$BUILD_DIR")
  echo "== bundling the build tree $build as it is"
else
  build="$work/$backend"
  compiler=c++
  # Debian's PETSc loads Trilinos' own Kokkos (Serial, through ML): our static Kokkos must stay
  # private to each executable, which CMake sees to (undertow_hide_static_kokkos).
  [ "$backend" = cuda ] && compiler="$work/nvcc_wrapper"
  echo "== building undertow ($backend) in $build (with nvcc 17 minutes on 2 cores)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$compiler" -DKokkos_ROOT="$work/kokkos" \
    -DUNDERTOW_ENABLE_CATALYST=OFF -DUNDERTOW_ENABLE_PYTHON=OFF -DUNDERTOW_WERROR=OFF \
    >"$work/configure.log" 2>&1
  grep -q "Kokkos is static: linking with -Wl,--exclude-libs" "$work/configure.log" || {
    echo "gpu_bundle: CMake did not keep the static Kokkos private (see $work/configure.log)" >&2
    exit 1
  }
  ninja -C "$build" -j"$jobs" >"$work/build.log" 2>&1 || {
    grep -m20 -B2 -A10 "error" "$work/build.log" >&2
    echo "gpu_bundle: the $backend build failed, see $work/build.log" >&2
    exit 1
  }
fi

# 3. The build tree without objects.
stage="$work/stage"
rm -rf "$stage" && mkdir -p "$stage/sysroot/lib" "$stage/build"
# Outside bin/ and lib/ only small files: CTest files and the inputs configure wrote (a tree
# that has run its tests also holds their outputs, which stay behind).
(cd "$build" && {
  find bin lib -type f ! -name '*.a' 2>/dev/null
  find . \( -name CMakeFiles -o -name Testing -o -name '.ninja*' -o -path ./bin -o -path ./lib \) \
    -prune -o -type f -size -256k ! -name '*.o' ! -name '*.a' -print
} | tar -cf - -T - | tar -xf - -C "$stage/build")
# Symbol tables are not needed to run (the GPU code, in its own sections, stays).
find "$stage/build/bin" -type f -exec sh -c '[ "$(dd if="$1" bs=1 skip=1 count=3 2>/dev/null)" != ELF ] || strip --strip-unneeded "$1"' _ {} \;

# 4. The runtime: every shared library the executables load, except the C library, the C++
# runtime (the target's newer ones serve) and the CUDA driver.
system_libs='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libutil|libstdc\+\+|libgcc_s|libcuda)\.so'
ldd_closure() { ldd "$@" 2>/dev/null | awk '$3 ~ /^\// {print $3}' | sort -u; }
mpi_lib=/usr/lib/x86_64-linux-gnu/openmpi
pmix_lib=/usr/lib/x86_64-linux-gnu/pmix2
# Open MPI's launcher and plugins, relocated with OPAL_PREFIX (the tree keeps Debian's layout),
# and PMIx's plugins, relocated with PMIX_INSTALL_PREFIX.
mkdir -p "$stage/sysroot/usr/bin" "$stage/sysroot/usr/share" "$stage/sysroot$mpi_lib" \
  "$stage/sysroot$pmix_lib"
cp -rL "$mpi_lib/lib" "$stage/sysroot$mpi_lib/"
cp -rL "$pmix_lib/lib" "$stage/sysroot$pmix_lib/"
cp -r /usr/share/openmpi "$stage/sysroot/usr/share/"
[ -d "$pmix_lib/share" ] && cp -r "$pmix_lib/share" "$stage/sysroot$pmix_lib/"
cp -L /usr/bin/orterun /usr/bin/orted "$stage/sysroot/usr/bin/"
ln -sf orterun "$stage/sysroot/usr/bin/mpiexec"
rm -rf "$stage/sysroot$mpi_lib/lib/"*java* "$stage/sysroot$mpi_lib/lib/"*.a \
  "$stage/sysroot$pmix_lib/lib/"*.a
# ldd lists a file's whole dependency closure, so one pass over the executables, the launcher
# and the plugins finds every library.
for lib in $(ldd_closure "$stage"/build/bin/* "$stage/sysroot/usr/bin/orterun" \
  "$stage/sysroot/usr/bin/orted" $(find "$stage/sysroot/usr" -name '*.so*' -type f)); do
  name=$(basename "$lib")
  [[ "$name" =~ $system_libs ]] && continue
  case "$lib" in "$stage"/*) continue ;; esac
  cp -L "$lib" "$stage/sysroot/lib/$name"
done
petsc_lib=$(pkg-config --variable=libdir PETSc)

# 5. Proof of completeness: with the sysroot first on the library path, nothing may resolve
# outside it but the system set (gpu_bundle_proof.sh then hides this machine's own copies).
missing=$(LD_LIBRARY_PATH="$stage/sysroot/lib:$stage/sysroot$mpi_lib/lib:$stage/sysroot$pmix_lib/lib" \
  ldd "$stage"/build/bin/* "$stage/sysroot/usr/bin/orterun" "$stage/sysroot/usr/bin/orted" \
  "$stage"/sysroot/lib/* 2>/dev/null | awk '$3 ~ /^\// || /not found/ {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ "$name" =~ $system_libs ]] && continue
    case "$path" in "$stage"/*) continue ;; esac
    echo "$name $path"
  done)
if [ -n "$missing" ]; then
  echo "gpu_bundle: libraries that would come from outside the bundle:" >&2
  echo "$missing" | sort -u >&2
  exit 1
fi

# 6. Pack.
cat >"$bundle/manifest.env" <<EOF
# written by tests/tools/gpu_bundle.sh on $(date -u +%Y-%m-%dT%H:%MZ)
BUILD_ROOT=$build
SOURCE_ROOT=$root
MPI_LIB=$mpi_lib
PMIX_LIB=$pmix_lib
PETSC_LIB=$petsc_lib
BACKEND=$backend
SM=$sm
NVCC="$(grep -m1 '^CMAKE_CXX_COMPILER:' "$build/CMakeCache.txt" | cut -d= -f2) ($( ([ "$backend" = cuda ] && nvcc --version | tail -1) || c++ --version | head -1))"
KOKKOS="Kokkos $(sed -n 's/.*PACKAGE_VERSION "\([0-9.]*\)".*/\1/p' "$(grep -m1 '^Kokkos_DIR:' "$build/CMakeCache.txt" | cut -d= -f2)/KokkosConfigVersion.cmake" | head -1)"
COMMIT=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
EOF
echo "== packing (xz)"
tar -C "$stage" -cf - build | xz -T"$jobs" -9 >"$bundle/undertow.tar.xz"
tar -C "$stage" -cf - sysroot | xz -T"$jobs" -9 >"$bundle/runtime.tar.xz"
size=$(du -sm "$bundle" | cut -f1)
echo "SIZE_MIB=$size" >>"$bundle/manifest.env"
ls -l "$bundle"
if [ "$size" -gt "$limit_mib" ]; then
  echo "gpu_bundle: the bundle is $size MiB, over the $limit_mib MiB a GPU machine is sent" >&2
  exit 1
fi
echo "== bundle ready in $bundle ($size MiB); on the GPU machine: tests/tools/gpu_run.sh $bundle OUT_DIR"
