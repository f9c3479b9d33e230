"""A gradient from a restart file follows the trajectory of `undertow run --restart` from it.

The restart file holds the velocity, the pressure and psi (the last projection's potential).
RK3-CN (time.scheme = imex) carries the pressure from step to step; a gradient that started from
the file's velocity with p = 0 saw a transient of several steps in the forces (C_D 3.556 at the
first step against 3.678, max |du/dt| 29 against 3.9), so its objective was of another flow than
the run's. Here both start from one file, write a diagnostics row per step, and every figure of
the gradient's forward sweep must match the run's row of the same step to 1e-9 (relative; the
gradient projects the file's velocity again, a change at round-off).

  gradient_from_restart.py "<mpiexec ... undertow>" CASE WORK
"""
import csv
import os
import shutil
import subprocess
import sys

undertow = sys.argv[1].split("|")
case, work = sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)


def undertow_run(what, *args):
    done = subprocess.run(undertow + list(args), capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        sys.exit(f"{what} failed ({done.returncode}):\n{done.stdout}{done.stderr}")
    print(f"{what}: ok")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


COLUMNS = ["courant", "kinetic_energy", "enstrophy", "max_dudt", "Cx_1", "Cy_1"]
failures = []
for projection in ["every_substep", "last_substep"]:
    scheme = ["--set", "time.scheme=imex", "--set", f"time.imex_projection={projection}"]
    out = os.path.join(work, projection)
    undertow_run(f"{projection}: the start-up to step 20", "run", case, *scheme,
                 "--set", "time.t_end=0.1", "--set", "restart.at_step=20",
                 "--output", os.path.join(out, "start"))
    restart = os.path.join(out, "start", "restart", "restart_000000020.h5")
    undertow_run(f"{projection}: run --restart", "run", case, *scheme, "--restart", restart,
                 "--set", "time.t_end=0.15", "--set", "diagnostics.every=1",
                 "--output", os.path.join(out, "run"))
    undertow_run(f"{projection}: gradient --restart", "gradient", case, *scheme,
                 "--restart", restart, "--set", "time.t_end=0.05",
                 "--set", "diagnostics.every=1", "--output", os.path.join(out, "gradient"))
    run_rows = {int(r["step"]): r for r in rows(os.path.join(out, "run", "diagnostics.csv"))}
    gradient_rows = rows(os.path.join(out, "gradient", "diagnostics.csv"))
    if len(gradient_rows) != 10:
        failures.append(f"{projection}: {len(gradient_rows)} gradient rows, not 10")
    worst = 0.0
    for g in gradient_rows:
        r = run_rows[20 + int(g["step"])]
        for c in COLUMNS:
            a, b = float(g[c]), float(r[c])
            difference = abs(a - b) / max(abs(b), 1e-300)
            worst = max(worst, difference)
            if difference > 1e-9:
                failures.append(f"{projection}, step {g['step']} of the gradient (step "
                                f"{20 + int(g['step'])} of the run): {c} = {a} against {b}")
    print(f"{projection}: {len(gradient_rows)} steps, largest relative difference {worst:.2e}")

if failures:
    sys.exit("the gradient's forward sweep is not the run's flow:\n" + "\n".join(failures))
print("the gradient from a restart file follows run --restart's flow")
