"""What in-situ visualisation with ParaView Catalyst costs (docs/insitu.md, docs/performance.md).

Runs two Navier-Stokes cases twice each, the same steps with and without a pipeline, and prints
the cost of a Catalyst call (undertow's InSitu::execute: building the frame, handing it over,
the pipeline's filters, rendering and writing; the first call, which also sets the pipelines
up, apart) and its share of the run at the cadence used:
  - 2D: Taylor-Green 256 x 256, a 1024 x 1024 vorticity image (bench/insitu/vorticity_image.py);
  - 3D: Taylor-Green 64^3, the Q-criterion contour rendered and written as .pvtp
    (cases/taylor_green/insitu_q_criterion.py).
The undertow wall time without Catalyst gives the step time. Needs a Catalyst build, and an X
server for Debian's ParaView (the script starts Xvfb through xvfb-run itself).

Usage: /usr/bin/python3 bench/insitu_cost.py [BUILD_DIR] [RANKS] [EVERY]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
ranks = sys.argv[2] if len(sys.argv) > 2 else "2"
every = int(sys.argv[3]) if len(sys.argv) > 3 else 10
exe = os.path.join(build, "bin", "undertow")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_rmaps_base_oversubscribe="1")
cases = [
    ("2D Taylor-Green 256^2, vorticity image 1024^2", "taylor_green/tg2d.ini",
     ["domain.cells=256 256", "time.dt=0", "time.cfl=0.5", "time.t_end=0.5"],
     os.path.join(root, "bench", "insitu", "vorticity_image.py")),
    ("3D Taylor-Green 64^3, Q-criterion contour image 800^2 + .pvtp", "taylor_green/tg3d.ini",
     ["domain.cells=64 64 64", "time.t_end=2"],
     os.path.join(root, "cases", "taylor_green", "insitu_q_criterion.py")),
]


def run(case, settings, script, out):
    command = ["xvfb-run", "-a", "mpiexec", "-n", ranks, exe, "run",
               os.path.join(root, "cases", case), "--output", out,
               "--set", "output.progress_every=0"]
    for s in settings:
        command += ["--set", s]
    if script:
        command += ["--set", "catalyst.scripts=" + script, "--set", f"catalyst.every={every}"]
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "report.json")) as f:
        return json.load(f)


work = tempfile.mkdtemp(prefix="undertow_insitu_bench_")
print(f"undertow in-situ cost, {ranks} MPI rank(s), a Catalyst call every {every} steps")
print(f"{'case':62s} {'steps':>6s} {'step [s]':>9s} {'calls':>6s} {'first [s]':>9s} "
      f"{'call [s]':>9s} {'call/step':>9s} {'share':>7s}")
for name, case, settings, script in cases:
    plain = run(case, settings, None, os.path.join(work, "plain"))
    insitu = run(case, settings, script, os.path.join(work, "insitu"))
    steps = insitu["figures"]["steps"]
    step = plain["wall_seconds"] / steps
    calls = insitu["figures"]["insitu_calls"]
    # The first call also sets the pipelines up: the cost per call is that of the others.
    first = insitu["figures"]["insitu_first_seconds"]
    call = (insitu["figures"]["insitu_seconds"] - first) / (calls - 1)
    share = insitu["figures"]["insitu_seconds"] / insitu["wall_seconds"]
    print(f"{name:62s} {steps:6.0f} {step:9.4f} {calls:6.0f} {first:9.3f} {call:9.3f} "
          f"{call / step:9.1f} {100 * share:6.1f}%")
shutil.rmtree(work)
print("first: the first call, which also sets the pipelines up; call: each later one; "
      "call/step: a later call in time steps; share: of the run's wall time with Catalyst, "
      f"at a call every {every} steps")
