#!/usr/bin/env bash
# The lid-driven cavity at Re 100 to t = 1 with the explicit scheme (SSP-RK3, dt limited by
# diffusion) and with RK3-CN (time.scheme = imex, viscous terms implicit, dt limited by advection),
# side by side in one run: wall time, steps, solver iterations and the ratio of the wall times.
#   bash bench/cavity_time_schemes.sh [build dir] [cells per side] [time.cfl]
set -euo pipefail
build=${1:-build}
cells=${2:-256}
cfl=${3:-0.6}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
declare -A wall steps ke
for scheme in explicit imex; do
  start=$(date +%s.%N)
  "$build/bin/undertow" run cases/lid_driven_cavity/re100.ini --set "domain.cells=$cells $cells" \
    --set time.t_end=1 --set time.steady_tolerance=0 --set "time.cfl=$cfl" \
    --set "time.scheme=$scheme" --set output.progress_every=0 --output "$out/$scheme" \
    > "$out/$scheme.log" 2>&1
  end=$(date +%s.%N)
  wall[$scheme]=$(python3 -c "print(f'{$end - $start:.1f}')")
  steps[$scheme]=$(python3 -c "import json; print(json.load(open('$out/$scheme/report.json'))['figures']['steps'])")
  ke[$scheme]=$(python3 -c "import json; print(json.load(open('$out/$scheme/report.json'))['figures']['kinetic_energy'])")
  printf '%-8s %4d^2 to t = 1: %6s s, %5s steps, KE %s\n' "$scheme" "$cells" "${wall[$scheme]}" \
    "${steps[$scheme]}" "${ke[$scheme]}"
  grep -E '^  (poisson|viscous|momentum) ' "$out/$scheme.log" | sed 's/^/    /'
done
python3 -c "print(f'wall-time ratio explicit / imex: {${wall[explicit]} / ${wall[imex]}:.2f} (goal >= 5); kinetic energies differ by {abs(${ke[explicit]} - ${ke[imex]}) / ${ke[explicit]}:.1e} relative')"
