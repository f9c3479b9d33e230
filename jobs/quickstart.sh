#!/usr/bin/env bash
# undertow quick start: installs what is missing, configures, builds with all cores, then runs
# the main job (`run`, the default), the test suite (`test`: every test except those labelled
# slow; what CI runs) or the slow tests (`test-slow`: finer-grid studies, the Re 400 and 1000
# cavities, finite differences of every control parameter and the second rank counts of the
# costliest tests; an estimated 40 to 60 minutes on 2 cores) or the test suite on a threaded
# Kokkos (`test-openmp`: Kokkos 3.4.1 built with its OpenMP backend from Debian's Trilinos source
# package into build-openmp/, and the same suite as `test`, one test at a time, each rank with
# its share of the cores as threads; a separate job, not CI's). Idempotent: on
# a machine where everything is installed and built it only re-checks and re-runs.
#
#   bash jobs/quickstart.sh run          # set up, build, run the main job
#   bash jobs/quickstart.sh test         # set up, build, run the test suite
#   bash jobs/quickstart.sh test-slow    # set up, build, run the slow tests
#   bash jobs/quickstart.sh test-openmp  # set up, build an OpenMP Kokkos, run the test suite on it
#
# Environment: BUILD_DIR (default build, or build-openmp for test-openmp), JOBS (default: all
# cores), RANKS (main job, default min(cores, 4)), UNDERTOW_CMAKE_ARGS (extra configure
# arguments), KOKKOS_SOURCE (test-openmp: a Kokkos 3.4 or 4.x source tree to build instead of
# Debian's), DEBIAN_MIRROR (test-openmp: where Debian's source package is fetched from, default
# http://deb.debian.org/debian).
set -euo pipefail

mode="${1:-run}"
case "$mode" in
  run | test | test-slow | test-openmp) ;;
  *) echo "usage: bash jobs/quickstart.sh [run|test|test-slow|test-openmp]" >&2; exit 2 ;;
esac

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
default_build="$root/build"
[ "$mode" = test-openmp ] && default_build="$root/build-openmp"
build="${BUILD_DIR:-$default_build}"
jobs="${JOBS:-$(nproc 2>/dev/null || echo 2)}"

# --- 1. System packages (Debian 12 / Ubuntu names) -------------------------------------------
packages=(g++ make cmake pkg-config openmpi-bin libopenmpi-dev petsc-dev libhdf5-openmpi-dev
          libtrilinos-kokkos-dev libboost-program-options-dev libgtest-dev procps python3-matplotlib
          python3-dev python3-pybind11 python3-numpy python3-mpi4py python3-h5py)
# The tests also run batch jobs on a real single-node Slurm, and a PBS script through its qsub,
# and in-situ pipelines with ParaView Catalyst under a virtual X server (docs/insitu.md): the
# ParaView packages are installed with their recommendations (Mesa's software OpenGL among
# them), which is the set-up checked to render; about 70 s more on a fresh machine. qemu-user
# runs an AVX2 build as on a CPU without AVX2 (the tests of its refusal, tests/cli and
# tests/python).
catalyst_packages=()
if [ "$mode" != run ]; then
  packages+=(slurmctld slurmd slurm-client munge slurm-wlm-torque python3-torch python3-venv
             qemu-user)
  catalyst_packages=(paraview paraview-dev python3-paraview libnetcdf-dev libfreetype-dev
                     libglew-dev libxml2-dev libx11-dev libboost-dev xvfb xauth)
fi
if command -v dpkg-query >/dev/null 2>&1; then
  not_installed() {
    for p in "$@"; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
    done
  }
  mapfile -t missing < <(not_installed "${packages[@]}")
  mapfile -t missing_catalyst < <(not_installed "${catalyst_packages[@]}")
  if ((${#missing[@]} + ${#missing_catalyst[@]})); then
    echo "undertow: installing missing packages: ${missing[*]} ${missing_catalyst[*]}"
    if [ "$(id -u)" -eq 0 ]; then
      sudo=()
    else
      echo "undertow: this needs administrator rights; sudo will ask for your password."
      sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -q
    if ((${#missing[@]})); then
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
    fi
    if ((${#missing_catalyst[@]})); then
      DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q "${missing_catalyst[@]}"
    fi
  else
    echo "undertow: all required packages are installed"
  fi
else
  echo "undertow: not a Debian-like system; make sure these (or your modules) are available:"
  echo "  MPI, PETSc >= 3.18, parallel HDF5 >= 1.10, Kokkos >= 3.4, Boost.Program_options, GoogleTest"
  echo "  (see docs/building.md for clusters, Spack and modules)"
fi

# --- 2. Configure and build ---------------------------------------------------------------------
mkdir -p "$build"
kokkos_args=()
if [ "$mode" = test-openmp ]; then
  bash "$root/jobs/build_openmp_kokkos.sh" "$build/kokkos" "$jobs"
  kokkos_args=(-DKokkos_ROOT="$build/kokkos")
fi
# The Python package is built for Debian's python3, whose numpy, mpi4py and torch it uses (not one
# that a PATH may put first). Its tests run in a virtual environment over it that adds JAX from
# PyPI (Debian's pip installs nothing into the system Python), pinned to Debian's numpy.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
python_args=(-DPython3_EXECUTABLE="$py")
if [ "$mode" != run ]; then
  venv="$build/venv"
  if ! "$venv/bin/python" -c "import jax" > /dev/null 2>&1; then
    echo "undertow: a virtual environment for the Python tests in $venv (JAX from PyPI)"
    "$py" -m venv --system-site-packages "$venv"
    numpy_version="$("$py" -c 'import numpy; print(numpy.__version__)')"
    "$venv/bin/pip" install -q "jax==0.4.35" "jaxlib==0.4.35" "numpy==$numpy_version"
  fi
  python_args+=(-DUNDERTOW_ENABLE_PYTHON=ON -DUNDERTOW_PYTHON_TEST_INTERPRETER="$venv/bin/python")
fi
# Twice SSE2's vector width where the CPU has AVX2, with the same results bitwise (no FMA;
# CMakeLists.txt). UNDERTOW_AVX2=OFF builds for any x86-64 CPU (a binary for other machines).
avx2=()
if [ "${UNDERTOW_AVX2:-auto}" = auto ] && grep -qw avx2 /proc/cpuinfo 2> /dev/null; then
  avx2=(-DUNDERTOW_AVX2=ON)
elif [ "${UNDERTOW_AVX2:-auto}" != auto ]; then
  avx2=(-DUNDERTOW_AVX2="$UNDERTOW_AVX2")
fi
# The test suite runs the Catalyst tests: a build that failed to find ParaView must say so.
catalyst=()
[ "$mode" != run ] && catalyst=(-DUNDERTOW_ENABLE_CATALYST=ON)
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DUNDERTOW_WERROR=ON "${kokkos_args[@]}" "${avx2[@]}" "${catalyst[@]}" "${python_args[@]}" ${UNDERTOW_CMAKE_ARGS:-} \
  > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
grep -A20 "configuration summary" "$build/configure.log" | sed -n '1,19p' | sed 's/^-- //'
cmake --build "$build" -j "$jobs"

# OpenMPI refuses to run as root, or with more ranks than cores, unless told that it is wanted.
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# With more ranks than cores, waiting ranks must yield the CPU rather than spin.
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1

# --- 3. Run ---------------------------------------------------------------------------------------
if [ "$mode" != run ]; then
  cd "$build"
  labels=(-LE slow)
  [ "$mode" = test-slow ] && labels=(-L slow)
  parallel="$jobs"
  if [ "$mode" = test-openmp ]; then
    # A test's ranks share the machine's cores as threads (core/include/undertow/core/threads.hpp):
    # one test at a time.
    parallel=1
    echo "undertow: the test suite on an OpenMP Kokkos, one test at a time, its ranks sharing the $(nproc) cores as threads"
  fi
  # shellcheck disable=SC2086
  exec ctest --output-on-failure -j "$parallel" "${labels[@]}" ${UNDERTOW_CTEST_ARGS:-}
fi

ranks="${RANKS:-$((jobs < 4 ? jobs : 4))}"
case_file="$root/cases/shape_drag/min_drag_re20_stretched.ini"
out="$root/runs/quickstart"
echo "undertow: main job: minimum-drag shape optimisation, $case_file on $ranks MPI rank(s)"
mpiexec -n "$ranks" "$build/bin/undertow" optimize "$case_file" --output "$out"
echo
echo "undertow: main job finished:"
grep -E "^objective: |^final design: " "$out/optimize.log" | tail -n 2
"$py" "$root/cases/shape_drag/plot_optimisation.py" "$out" && echo "plots: $out/convergence.png, $out/shapes.png"
