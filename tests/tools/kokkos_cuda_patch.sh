#!/usr/bin/env bash
# Makes a Kokkos 3.4 source tree build with CUDA 12/13 and run on GPUs newer than Kokkos 3.4 knows
# (Hopper). It edits the tree in place, so give it a copy:
#
#   tests/tools/kokkos_cuda_patch.sh KOKKOS_TREE [SM]
#
# SM (default sm_80) is the code the AMPERE80 architecture option compiles for: sm_90 gives an
# H100 native code instead of PTX that the driver compiles at start-up. A Kokkos 4.x tree, or one
# already patched, is left as it is. Prints one line saying what was done.
set -eu
tree=$1
sm=${2:-sm_80}
half="$tree/core/src/Cuda/Kokkos_Cuda_Half.hpp"
if ! grep -q "KOKKOS_ARCH_MAXWELL52))" "$half" 2>/dev/null; then
  echo "Kokkos tree $tree needs no CUDA 13 patch (not an unpatched 3.4 tree)"
  exit 0
fi
# CUDA 13's cuda_fp16.h breaks Kokkos 3.4's half_t; undertow uses no half precision, so take
# Kokkos' own float fallback.
sed -i 's/defined(KOKKOS_ARCH_MAXWELL52))/defined(KOKKOS_ARCH_MAXWELL52) || CUDA_VERSION >= 12000)/' "$half"
sed -i 's/#include <Kokkos_Macros.hpp>/#include <Kokkos_Macros.hpp>\n#include <cuda.h>/' "$half"
# CUDA 13 takes a cudaMemLocation and flags in cudaMemPrefetchAsync (UVM prefetch only).
sed -i 's/cudaMemPrefetchAsync(ptr, bytes, space.cuda_device(),/cudaMemPrefetchAsync(ptr, bytes, cudaMemLocation{cudaMemLocationTypeDevice, space.cuda_device()}, 0,/' \
  "$tree/core/src/Cuda/Kokkos_CudaSpace.cpp"
# Kokkos 3.4 refuses kernels compiled for an older major than the device's, though CUDA runs
# sm_80 PTX on a 9.0 device (JIT): let a newer major through.
sed -i 's/if (compiled_major != cudaProp.major || compiled_minor > cudaProp.minor)/if (compiled_major > cudaProp.major || (compiled_major == cudaProp.major \&\& compiled_minor > cudaProp.minor))/' \
  "$tree/core/src/Cuda/Kokkos_Cuda_Instance.cpp"
# Kokkos 3.4 has no HOPPER90 option: AMPERE80 compiles for the SM asked for.
sed -i "s/CHECK_CUDA_ARCH(AMPERE80  sm_80)/CHECK_CUDA_ARCH(AMPERE80  $sm)/" "$tree/cmake/kokkos_arch.cmake"
# Its nvcc_wrapper defaults to sm_35, which CUDA 12+ no longer knows (the CMake compiler check runs
# it without -arch).
sed -i "s/^default_arch=.*/default_arch=\"$sm\"/" "$tree/bin/nvcc_wrapper"
echo "Kokkos 3.4 tree patched for CUDA 13: half_t is the float fallback, UVM prefetch call, newer GPUs allowed, AMPERE80 = $sm"
