#!/usr/bin/env bash
# Proves a bundle made by tests/tools/gpu_bundle.sh on the machine that made it, which has every
# dependency installed: it runs tests/tools/gpu_run.sh on the bundle in a private mount namespace
# in which this machine's own copies of what the bundle carries are hidden (Open MPI and its
# launcher, PMIx, PETSc's tree, parallel HDF5, and each library file the sysroot holds, bound
# over by /dev/null). What the bundle lacks then fails to load, as it would on a bare machine.
#
#   tests/tools/gpu_bundle_proof.sh BUNDLE_DIR OUT_DIR [SECONDS] [STAGES]
#
# A CUDA bundle's executables need a GPU; prove the packaging with a Serial bundle of the same
# tree (BACKEND=serial tests/tools/gpu_bundle.sh, or BUILD_DIR=build to bundle a finished Serial
# build). Needs root (unshare -m). Exit status: gpu_run.sh's.
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,13p "$0"; exit 2; }
bundle=$(realpath "$1")
out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "gpu_bundle_proof: needs root for unshare -m" >&2; exit 2; }
# shellcheck disable=SC1091
. "$bundle/manifest.env"

hide=$(mktemp)
empty=$(mktemp -d)
{
  for d in "$MPI_LIB" "$PMIX_LIB" /usr/share/openmpi /etc/openmpi "$(dirname "$(dirname "$PETSC_LIB")")" \
    /usr/lib/x86_64-linux-gnu/hdf5/openmpi; do
    [ -d "$d" ] && echo "dir $d"
  done
  for f in /usr/bin/orterun /usr/bin/orted /usr/bin/mpiexec /usr/bin/mpirun; do
    [ -e "$f" ] && echo "file $(realpath "$f")"
  done
  for name in $(xz -dc "$bundle/runtime.tar.xz" | tar -tf - | sed -n 's#^sysroot/lib/\([^/]\+\)$#\1#p'); do
    for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu; do
      [ -e "$d/$name" ] && echo "file $(realpath "$d/$name")"
    done
  done
} | sort -u >"$hide.all"
# A file inside a hidden folder is hidden with it.
dirs=$(awk '$1 == "dir" {print $2}' "$hide.all")
while read -r kind path; do
  if [ "$kind" = file ]; then
    inside=0
    for d in $dirs; do case "$path" in "$d"/*) inside=1 ;; esac; done
    [ "$inside" = 1 ] && continue
  fi
  echo "$kind $path"
done <"$hide.all" >"$hide"
echo "== hiding $(grep -c ^dir "$hide") folders and $(grep -c ^file "$hide") files of this machine's own copies"

# This machine's tools (xz, ctest) lose the hidden libraries too: they load the bundle's copies,
# unpacked once more outside gpu_run.sh's own folder.
tools=$(mktemp -d)
xz -dc "$bundle/runtime.tar.xz" | tar -xf - -C "$tools"
# shellcheck disable=SC2016
LD_LIBRARY_PATH="$tools/sysroot/lib" GPU_RUN_KEEP_ALL_LIBS=1 unshare -m bash -c '
  while read -r kind path; do
    if [ "$kind" = dir ]; then mount --bind "$1" "$path"; else mount --bind /dev/null "$path"; fi
  done <"$2"
  shift 2
  exec "$@"' proof "$empty" "$hide" "$root/tests/tools/gpu_run.sh" "$bundle" "$out" "${@:3}"
