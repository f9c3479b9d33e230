#!/usr/bin/env bash
# Builds Kokkos with its OpenMP backend (and Serial) into PREFIX, for the threaded test job
# (`bash jobs/quickstart.sh test-openmp`). Debian's libtrilinos-kokkos-dev is Serial only, and
# Debian 12 has no other Kokkos package; so the source is the Kokkos of the installed package's
# own Trilinos source package (packages/kokkos: Kokkos 3.4.1 in Trilinos 13.2.0-4, the version the
# Serial build uses), fetched from the Debian mirror and checked against the SHA-256 sum its .dsc
# file gives. Nothing is done when PREFIX already holds a Kokkos.
#
#   bash jobs/build_openmp_kokkos.sh PREFIX [JOBS]
#
# Environment: KOKKOS_SOURCE (a Kokkos 3.4 or 4.x source tree to build instead), DEBIAN_MIRROR
# (default http://deb.debian.org/debian).
set -euo pipefail

prefix="$(realpath -m "${1:?usage: build_openmp_kokkos.sh PREFIX [JOBS]}")"
jobs="${2:-$(nproc 2>/dev/null || echo 2)}"
if compgen -G "$prefix/lib*/cmake/Kokkos/KokkosConfig.cmake" > /dev/null; then
  echo "undertow: OpenMP Kokkos already built in $prefix"
  exit 0
fi
work="$prefix-work"
rm -rf "$work"
mkdir -p "$work"

source_dir="${KOKKOS_SOURCE:-}"
if [ -z "$source_dir" ]; then
  mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
  pool="$mirror/pool/main/t/trilinos"
  # The source of the Serial Kokkos package installed here (13.2.0-4 on Debian 12).
  version="$(dpkg-query -W -f='${source:Version}' libtrilinos-kokkos-dev 2>/dev/null || echo 13.2.0-4)"
  dsc="trilinos_${version#*:}.dsc"
  echo "undertow: fetching Kokkos (Debian's Trilinos ${version} source, 166 MB) from $pool"
  # python3 is installed with the build's packages; curl and wget may not be.
  python3 - "$pool" "$dsc" "$work" << 'EOF'
import hashlib, re, sys, urllib.request
pool, dsc, work = sys.argv[1:]
def fetch(name):
    try:
        with urllib.request.urlopen(f"{pool}/{name}", timeout=120) as r, open(f"{work}/{name}", "wb") as f:
            while chunk := r.read(1 << 20):
                f.write(chunk)
    except OSError as e:
        sys.exit(f"undertow: could not fetch {pool}/{name}: {e}. Set DEBIAN_MIRROR to a reachable "
                 "Debian mirror, or KOKKOS_SOURCE to a Kokkos source tree.")
fetch(dsc)
text = open(f"{work}/{dsc}").read()
# The upstream tarball and its SHA-256 sum, from the .dsc's Checksums-Sha256 field.
m = re.search(r"^ ([0-9a-f]{64}) \d+ (\S+\.orig\.tar\.\w+)$", text, re.M)
if not m:
    sys.exit(f"undertow: {dsc} gives no SHA-256 sum of an .orig tarball; the mirror's files are not the expected ones.")
orig = m.group(2)
fetch(orig)
h = hashlib.sha256()
with open(f"{work}/{orig}", "rb") as f:
    while chunk := f.read(1 << 20):
        h.update(chunk)
if h.hexdigest() != m.group(1):
    sys.exit(f"undertow: {orig} does not match the SHA-256 sum of {dsc} (a damaged download?); "
             "delete it and run again.")
EOF
  orig="$(echo "$work"/trilinos_*.orig.tar.*)"
  tar -xf "$orig" -C "$work" --wildcards '*/packages/kokkos/*'
  rm -f "$orig"
  source_dir="$(echo "$work"/Trilinos-*/packages/kokkos)"
fi
[ -f "$source_dir/CMakeLists.txt" ] || { echo "undertow: no Kokkos source tree at $source_dir" >&2; exit 1; }

echo "undertow: building Kokkos (OpenMP and Serial) from $source_dir into $prefix"
# Static and position-independent, as the GPU bundle builds it: undertow keeps a static Kokkos's
# symbols private to its own libraries (Debian's PETSc loads Trilinos' Serial Kokkos too).
cmake -S "$source_dir" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DKokkos_ENABLE_OPENMP=ON \
  -DKokkos_ENABLE_SERIAL=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_INSTALL_PREFIX="$prefix" \
  > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j "$jobs" > "$work/build.log" 2>&1 || { tail -50 "$work/build.log"; exit 1; }
cmake --install "$work/build" > /dev/null
rm -rf "$work"
echo "undertow: OpenMP Kokkos installed in $prefix"
