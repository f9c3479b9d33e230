#!/usr/bin/env python3
"""Lid-driven cavity (Re = 100, unit square): undertow against OpenFOAM's icoFoam in one run.

Three parts, all on one MPI rank:

1. Throughput. Same grid, same fixed dt, same number of steps. The pressure is converged to the
   same relative tolerance: icoFoam GAMG with relTol 0 and tolerance = tol * initial residual is
   not expressible, so both use an absolute-free relative target (undertow pressure.rtol; icoFoam
   p and pFinal with tolerance 0 and relTol tol). undertow runs once per scheme of
   --throughput-schemes (SSP-RK3; RK3-CN projecting its last substep, its viscous solves to the
   same relative tolerance). Prints cell updates per second of each and their ratios.
2. Accuracy. Both march the same cavity to t = T on an n x n grid, and their centreline profiles
   are compared with Ghia et al. (1982). Both should agree with Ghia to the same order.
3. Time to solution. Each code at its own largest stable step: icoFoam at Courant number 1 (the
   tutorial's), undertow with the viscous terms implicit (time.scheme = imex) at time.cfl = 1,
   the largest fraction of its advective stability limit, once per set of solver tolerances
   (--solution-tolerances: rtol, or rtol:atol with atol the pressure solve's absolute tolerance,
   pressure.atol, or rtol:atol:last to project only the last substep, time.imex_projection =
   last_substep). (a) The n x n cavity from rest to
   t = 1, the kinetic energy at t = 1 of each against a reference; (b) to steady state on an
   m x m grid: undertow stops when max |du/dt| < 1e-5, icoFoam runs to the same time, and both
   are compared with Ghia. Prints the wall times and their ratios.

Usage: python3 bench/cavity_vs_icofoam.py [--cells 256] [--steps 100] [--accuracy-cells 64]
           [--solution-cells 256] [--steady-cells 128] [--undertow build/bin/undertow]
Needs: build/bin/undertow, and Debian's openfoam + openfoam-examples (v1912).
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNDERTOW = os.path.join(ROOT, "build", "bin", "undertow")
CASE = os.path.join(ROOT, "cases", "lid_driven_cavity", "re100.ini")
TUTORIAL = "/usr/share/doc/openfoam-examples/examples/incompressible/icoFoam/cavity/cavity"
ENV = dict(os.environ, WM_PROJECT_DIR="/usr/share/openfoam", FOAM_ETC="/usr/share/openfoam/etc",
           OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def run(cmd, cwd=None):
    result = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result.stdout


def openfoam_case(n, dt, t_end, rtol, absolute=None):
    """An icoFoam cavity: unit square, lid speed 1, nu = 0.01, n x n cells, GAMG for p, solved
    to relTol rtol, or, if `absolute` is given, to that (normalised) residual with relTol 0."""
    work = tempfile.mkdtemp(prefix="icofoam_cavity_")
    for sub in ("0", "constant", "system"):
        shutil.copytree(os.path.join(TUTORIAL, sub), os.path.join(work, sub))
    mesh = open(os.path.join(work, "system", "blockMeshDict")).read()
    # The tutorial scales its vertices: `scale 0.1` in v1912 (`convertToMeters 0.1` in older
    # versions). Either makes a 0.1 m cavity, Re = 10 and a 10 times larger Courant number:
    # both are set to 1, and check_setup() verifies the mesh and Re that icoFoam runs.
    mesh = re.sub(r"\b(convertToMeters|scale)\s+[0-9.eE+-]+;", r"\1 1;", mesh)
    mesh = re.sub(r"\(20 20 1\)", f"({n} {n} 1)", mesh)
    mesh = re.sub(r"\(0 0 0\.1\)", "(0 0 0.01)", mesh)
    mesh = re.sub(r"\(1 0 0\.1\)", "(1 0 0.01)", mesh)
    mesh = re.sub(r"\(1 1 0\.1\)", "(1 1 0.01)", mesh)
    mesh = re.sub(r"\(0 1 0\.1\)", "(0 1 0.01)", mesh)
    open(os.path.join(work, "system", "blockMeshDict"), "w").write(mesh)
    control = open(os.path.join(work, "system", "controlDict")).read()
    control = re.sub(r"endTime\s+[^;]+;", f"endTime {t_end!r};", control)
    control = re.sub(r"deltaT\s+[^;]+;", f"deltaT {dt!r};", control)
    # Write once, at the end (the throughput run then pays for one write, like undertow's report).
    control = re.sub(r"writeInterval\s+[^;]+;", f"writeInterval {t_end!r};", control)
    control = re.sub(r"writeControl\s+[^;]+;", "writeControl runTime;", control)
    control = re.sub(r"timePrecision\s+[^;]+;", "timePrecision 12;", control)
    open(os.path.join(work, "system", "controlDict"), "w").write(control)
    solution = open(os.path.join(work, "system", "fvSolution")).read()
    tolerance, rel = (0, rtol) if absolute is None else (absolute, 0)
    pressure = (f"p {{ solver GAMG; smoother GaussSeidel; tolerance {tolerance!r}; relTol {rel!r}; }}\n"
                "    pFinal { $p; relTol %r; }" % rel)
    solution = re.sub(r"p\s*\{[^}]*\}\s*pFinal\s*\{[^}]*\}", pressure, solution, flags=re.S)
    open(os.path.join(work, "system", "fvSolution"), "w").write(solution)
    transport = open(os.path.join(work, "constant", "transportProperties")).read()
    transport = re.sub(r"nu\s+[^;]+;", "nu 0.01;", transport)
    open(os.path.join(work, "constant", "transportProperties"), "w").write(transport)
    run(["blockMesh"], cwd=work)
    check_setup(work, n)
    return work


def check_setup(work, n):
    """Exits unless icoFoam's case is the unit cavity at Re = 100 on n x n cells: the mesh's
    bounding box, the lid speed of 0/U and nu of constant/transportProperties."""
    text = open(os.path.join(work, "constant", "polyMesh", "points")).read()
    body = text[text.index("\n(") + 2:]
    points = re.findall(r"\(([-0-9.eE+]+) ([-0-9.eE+]+) ([-0-9.eE+]+)\)", body)
    xs = [float(p[0]) for p in points]
    ys = [float(p[1]) for p in points]
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    lid = re.search(r"movingWall\s*\{[^}]*uniform\s*\(([-0-9.eE+]+)", open(
        os.path.join(work, "0", "U")).read(), re.S)
    nu = re.search(r"\bnu\s+(?:\[[^\]]*\]\s*)?([-0-9.eE+]+);", open(
        os.path.join(work, "constant", "transportProperties")).read())
    if not lid or not nu:
        sys.exit(f"icoFoam set-up: cannot read the lid speed or nu in {work}")
    re_number = float(lid.group(1)) * width / float(nu.group(1))
    print(f"  icoFoam set-up: cavity {width:g} x {height:g} m, lid {float(lid.group(1)):g} m/s, "
          f"nu {float(nu.group(1)):g} m^2/s: Re = {re_number:g}; {len(points)} points "
          f"({n}x{n} cells)")
    if abs(width - 1) > 1e-12 or abs(height - 1) > 1e-12 or abs(re_number - 100) > 1e-9 or \
            len(points) != 2 * (n + 1) ** 2:
        sys.exit("icoFoam's case is not the unit cavity at Re = 100 on this grid: the comparison "
                 "would be meaningless (check the tutorial's blockMeshDict scaling)")


def run_icofoam(n, dt, steps, rtol, absolute=None):
    work = openfoam_case(n, dt, dt * steps, rtol, absolute)
    start = time.perf_counter()
    log = run(["icoFoam"], cwd=work)
    seconds = time.perf_counter() - start
    return work, seconds, log


# The schemes of the throughput part: the settings each adds to the case, and its description.
SCHEMES = {
    "explicit": ([], "SSP-RK3, 3 projections"),
    "imex_last": (["time.scheme=imex", "time.imex_projection=last_substep"],
                  "RK3-CN, 1 projection"),
}


def undertow_command(n, out, settings):
    """The command that runs undertow on the n x n cavity into `out`, without progress lines,
    with each of `settings` ("section.key=value") as a --set."""
    args = [UNDERTOW, "run", CASE, "--set", f"domain.cells={n} {n}"]
    for setting in list(settings) + ["output.progress_every=0"]:
        args += ["--set", setting]
    return args + ["--output", out]


def run_undertow(n, dt, steps, rtol, out, settings=()):
    """undertow on the n x n cavity at the fixed dt for `steps` steps, its pressure (and, with
    the viscous terms implicit, its viscous) solves to the relative tolerance rtol."""
    args = undertow_command(n, out, [f"time.dt={dt!r}", f"time.t_end={dt * steps!r}",
                                     "time.steady_tolerance=0", f"pressure.rtol={rtol!r}",
                                     f"viscous.rtol={rtol!r}", *settings])
    start = time.perf_counter()
    log = run(args)
    seconds = time.perf_counter() - start
    return seconds, log


def run_undertow_imex(n, t_end, steady_tolerance, tolerance, out):
    """undertow with the viscous terms implicit at its largest stable step (time.cfl = 1), the
    pressure and viscous solves to the relative tolerance rtol of tolerance = (rtol, atol), the
    pressure solve also to the absolute one atol where it is not 0 (pressure.atol), projecting
    every substep or only the last (time.imex_projection); returns the wall time and report.json's
    figures."""
    rtol, atol, projection = tolerance
    args = undertow_command(n, out, ["time.scheme=imex", "time.cfl=1", f"time.t_end={t_end!r}",
                                     f"time.steady_tolerance={steady_tolerance!r}",
                                     f"pressure.rtol={rtol!r}", f"pressure.atol={atol!r}",
                                     f"viscous.rtol={rtol!r}",
                                     f"time.imex_projection={projection}_substep"])
    start = time.perf_counter()
    run(args)
    seconds = time.perf_counter() - start
    return seconds, json.load(open(os.path.join(out, "report.json")))["figures"]


def time_to_solution(n, m, reference_ke, tolerances):
    """Part 3: each code at its own largest stable step, to t = 1 on n x n and to steady state on
    m x m. icoFoam solves the pressure to a normalised residual of 1e-8 (relTol 0), which lets
    GAMG stop early once the flow settles; undertow runs once per (rtol, atol) in tolerances (its
    pressure and viscous solves' relative tolerance, the pressure's absolute one), so that the
    accuracy each buys is printed beside its time."""
    if n > 0:
        dt = 1.0 / n  # Courant number 1 at the lid speed
        print(f"\ntime to solution (a): {n}x{n} cavity from rest to t = 1, one rank")
        work, foam_s, _ = run_icofoam(n, dt, n, 0, absolute=1e-8)
        foam_ke = icofoam_kinetic_energy(work, n)
        print(f"  icoFoam  (Courant 1, dt {dt:.3e}, {n} steps): {foam_s:8.2f} s, "
              f"KE(t = 1) {foam_ke:.7e}{ke_error(foam_ke, reference_ke, n)}")
        for tolerance in tolerances:
            ours_s, ours = run_undertow_imex(n, 1.0, 0, tolerance,
                                             tempfile.mkdtemp(prefix="undertow_"))
            ke = ours["kinetic_energy"]
            print(f"  undertow (imex, time.cfl 1, {describe(tolerance)}, {int(ours['steps'])} steps): "
                  f"{ours_s:8.2f} s, KE(t = 1) {ke:.7e}{ke_error(ke, reference_ke, n)}; "
                  f"ratio icoFoam / undertow {foam_s / ours_s:.2f} (target >= 5, issue 25)")
    if m > 0:
        print(f"\ntime to solution (b): {m}x{m} cavity from rest to steady state, one rank")
        runs = [(tolerance, *run_undertow_imex(m, 60.0, 1e-5, tolerance,
                                               tempfile.mkdtemp(prefix="undertow_")))
                for tolerance in tolerances]
        t_steady = max(ours["time"] for _, _, ours in runs)
        dt = 1.0 / m
        steps = int(math.ceil(t_steady / dt))
        work, foam_s, _ = run_icofoam(m, dt, steps, 0, absolute=1e-8)
        foam_rms, foam_max = errors_against_ghia(*icofoam_centrelines(work, m))
        print(f"  icoFoam  (Courant 1, {steps} steps to t = {t_steady:.2f}): {foam_s:8.2f} s, "
              f"Ghia RMS {foam_rms:.4e}, max {foam_max:.4e}")
        for tolerance, ours_s, ours in runs:
            print(f"  undertow (imex, time.cfl 1, {describe(tolerance)}): steady (max |du/dt| < 1e-5) at "
                  f"t = {ours['time']:.2f} after {int(ours['steps'])} steps: {ours_s:8.2f} s, "
                  f"Ghia RMS {ours['error_l2']:.4e}, max {ours['error_linf']:.4e}; "
                  f"ratio icoFoam / undertow {foam_s / ours_s:.2f} (target >= 5, issue 25)")


def describe(tolerance):
    rtol, atol, projection = tolerance
    return (f"rtol {rtol:g}" + (f", pressure.atol {atol:g}" if atol > 0 else "") +
            (", last substep projected" if projection == "last" else ""))


def ke_error(ke, reference_ke, n):
    """The relative error against the 256^2 reference, where the grid is 256^2."""
    if n != 256:
        return ""
    return f" ({(ke - reference_ke) / reference_ke:+.2e} against the reference)"


def ghia(path, column):
    rows = list(csv.reader(open(path)))
    header, data = rows[0], rows[1:]
    j = header.index(column)
    return [(float(r[0]), float(r[j])) for r in data]


def interpolate(xs, fs, x):
    for i in range(1, len(xs)):
        if x <= xs[i]:
            return fs[i - 1] + (fs[i] - fs[i - 1]) * (x - xs[i - 1]) / (xs[i] - xs[i - 1])
    return fs[-1]


def errors_against_ghia(u_line, v_line):
    """u_line: (y, u) along x = 0.5; v_line: (x, v) along y = 0.5, walls included."""
    data = os.path.join(ROOT, "cases", "lid_driven_cavity")
    diffs = []
    ys, us = zip(*u_line)
    for y, u in ghia(os.path.join(data, "ghia_u_vertical_centreline.csv"), "u_Re100"):
        if 0 < y < 1:
            diffs.append(interpolate(ys, us, y) - u)
    xs, vs = zip(*v_line)
    for x, v in ghia(os.path.join(data, "ghia_v_horizontal_centreline.csv"), "v_Re100"):
        if 0 < x < 1:
            diffs.append(interpolate(xs, vs, x) - v)
    return math.sqrt(sum(d * d for d in diffs) / len(diffs)), max(abs(d) for d in diffs)


def icofoam_velocity(work, n):
    """The cell-centred velocity of icoFoam's last written time, as u[i][j], v[i][j]."""
    times = [d for d in os.listdir(work) if re.fullmatch(r"[0-9.eE+-]+", d) and float(d) > 0]
    last = max(times, key=float)
    text = open(os.path.join(work, last, "U")).read()
    body = text[text.index("internalField"):]
    count = int(re.search(r"\n(\d+)\n\(", body).group(1))
    vectors = re.findall(r"\(([-0-9.eE+]+) ([-0-9.eE+]+) [-0-9.eE+]+\)", body)[:count]
    u = [[0.0] * n for _ in range(n)]
    v = [[0.0] * n for _ in range(n)]
    for index, (a, b) in enumerate(vectors):
        i, j = index % n, index // n
        u[i][j], v[i][j] = float(a), float(b)
    return u, v


def icofoam_kinetic_energy(work, n):
    """(1/2) mean of |u|^2 over the cells: the kinetic energy per unit area of the unit cavity."""
    u, v = icofoam_velocity(work, n)
    return 0.5 * sum(u[i][j] ** 2 + v[i][j] ** 2 for i in range(n) for j in range(n)) / (n * n)


def icofoam_centrelines(work, n):
    u, v = icofoam_velocity(work, n)
    h = 1.0 / n
    # Cell centres; the centreline x = 0.5 lies between columns n/2 - 1 and n/2.
    u_line = [(0.0, 0.0)] + [((j + 0.5) * h, 0.5 * (u[n // 2 - 1][j] + u[n // 2][j]))
                             for j in range(n)] + [(1.0, 1.0)]
    v_line = [(0.0, 0.0)] + [((i + 0.5) * h, 0.5 * (v[i][n // 2 - 1] + v[i][n // 2]))
                             for i in range(n)] + [(1.0, 0.0)]
    return u_line, v_line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cells", type=int, default=256)
    parser.add_argument("--steps", type=int, default=100, help="0 skips the throughput part")
    parser.add_argument("--rtol", type=float, default=1e-6)
    parser.add_argument("--undertow", default=None,
                        help="the undertow executable to run (default build/bin/undertow): "
                             "another build's, for a comparison of two in one run")
    parser.add_argument("--throughput-schemes", default="explicit,imex_last",
                        help="undertow's time schemes in the throughput part, one run each: "
                             "explicit (SSP-RK3) and imex_last (RK3-CN projecting its last "
                             "substep)")
    parser.add_argument("--accuracy-cells", type=int, default=64, help="0 skips the accuracy part")
    parser.add_argument("--accuracy-time", type=float, default=20.0)
    parser.add_argument("--solution-cells", type=int, default=256,
                        help="grid of the run to t = 1 at each code's own step; 0 skips it")
    parser.add_argument("--steady-cells", type=int, default=128,
                        help="grid of the run to steady state at each code's own step; 0 skips it")
    parser.add_argument("--reference-ke", type=float, default=2.3252806e-2,
                        help="kinetic energy at t = 1 on 256^2: the explicit scheme at dt 2.1e-4 "
                             "(docs/performance.md)")
    parser.add_argument("--solution-tolerances", default="1e-10,1e-6,1e-6:1e-8,1e-6:1e-8:last",
                        help="undertow's tolerances in part 3, one run each: rtol (its pressure and "
                             "viscous solves), rtol:atol (atol: pressure.atol) or rtol:atol:last "
                             "(the last substep projected only)")
    args = parser.parse_args()
    global UNDERTOW
    if args.undertow:
        UNDERTOW = os.path.abspath(args.undertow)
    if not os.access(UNDERTOW, os.X_OK):
        sys.exit(f"--undertow: {UNDERTOW} is not an executable (build it: cmake --build build)")
    if not shutil.which("icoFoam"):
        sys.exit("icoFoam not found: apt-get install openfoam openfoam-examples")

    schemes = args.throughput_schemes.split(",")
    if any(scheme not in SCHEMES for scheme in schemes):
        sys.exit(f"--throughput-schemes: '{args.throughput_schemes}' is not a list of "
                 f"{', '.join(SCHEMES)}")
    if args.steps > 0:
        throughput(args.cells, args.steps, args.rtol, schemes)
    if args.accuracy_cells > 0:
        accuracy(args.accuracy_cells, args.accuracy_time, args.rtol)
    time_to_solution(args.solution_cells, args.steady_cells, args.reference_ke,
                     [solution_run(t) for t in args.solution_tolerances.split(",")])


def solution_run(spec):
    """(rtol, atol, projection) of one --solution-tolerances entry: rtol[:atol[:last]]."""
    parts = spec.split(":")
    if len(parts) > 3 or (len(parts) == 3 and parts[2] not in ("last", "every")):
        sys.exit(f"--solution-tolerances: '{spec}' is not rtol, rtol:atol or rtol:atol:last")
    return (float(parts[0]), float(parts[1]) if len(parts) > 1 else 0.0,
            parts[2] if len(parts) == 3 else "every")


def throughput(n, steps, rtol, schemes):
    """Part 1: both at the same fixed dt for the same number of steps on n x n, undertow once
    per scheme."""
    # A dt inside the explicit limits of undertow's SSP-RK3 (diffusion dominates at Re = 100):
    # 0.5 * 2.5 / (nu * 2 * 16/3 / h^2).
    dt = 0.5 * 2.5 / (0.01 * 2 * 16.0 / 3.0 * n * n)
    print(f"throughput: {n}x{n} cavity, Re = 100, dt = {dt:.4e}, {steps} steps, one rank, "
          f"pressure (and undertow's implicit viscous) relative tolerance {rtol:g}")
    _, foam_s, _ = run_icofoam(n, dt, steps, rtol)
    cells = n * n * steps
    print(f"  icoFoam (PISO, 2 correctors, GAMG):  {foam_s:8.2f} s  {cells / foam_s / 1e6:8.3f} Mcell-updates/s")
    for scheme in schemes:
        settings, description = SCHEMES[scheme]
        ours_s, _ = run_undertow(n, dt, steps, rtol, tempfile.mkdtemp(prefix="undertow_"),
                                 settings)
        print(f"  undertow ({description + '):':24s} {ours_s:8.2f} s  "
              f"{cells / ours_s / 1e6:8.3f} Mcell-updates/s  ratio {foam_s / ours_s:.2f}")
    print("  throughput ratio undertow / icoFoam: the ratios above (target >= 15, issue 25)")


def accuracy(m, t_end, rtol):
    """Part 2: both at the same small dt to t_end on m x m, against Ghia."""
    dt_a = 0.5 * 2.5 / (0.01 * 2 * 16.0 / 3.0 * m * m)
    steps_a = int(math.ceil(t_end / dt_a))
    print(f"\naccuracy: {m}x{m} cavity to t = {t_end} ({steps_a} steps of {dt_a:.4e}), against Ghia")
    # A relative tolerance makes GAMG iterate at every step even once the flow is steady (more
    # than 17 minutes at 64^2); an absolute one lets the solves stop early as the residual of
    # the steady state is reached. Accuracy at steady state does not depend on this choice.
    work, _, _ = run_icofoam(m, dt_a, steps_a, rtol, absolute=1e-8)
    foam_rms, foam_max = errors_against_ghia(*icofoam_centrelines(work, m))
    out = tempfile.mkdtemp(prefix="undertow_")
    _, log = run_undertow(m, dt_a, steps_a, 1e-8, out)
    found = re.search(r"Ghia et al\. \(1982\), Re = 100, \d+ points: RMS ([0-9.e+-]+), max ([0-9.e+-]+)", log)
    print(f"  icoFoam : RMS {foam_rms:.4e}, max {foam_max:.4e}")
    print(f"  undertow: RMS {float(found.group(1)):.4e}, max {float(found.group(2)):.4e}")


if __name__ == "__main__":
    main()
