"""The Python package's overhead per gradient: J and dJ/dm of tests/python/data/channel_cylinder.ini
(32 x 16 cells, 20 steps) by Problem.value_and_grad in a loop, by undertow.torch (forward and
backward), and by the CLI (`undertow gradient`, its own forward + reverse seconds and its wall
time with process start), measured in one run. docs/performance.md records the figures.

    PYTHONPATH=build/python build/venv/bin/python bench/python/call_overhead.py [build/bin/undertow]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import torch

import undertow
import undertow.torch

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
exe = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build", "bin", "undertow")
case_file = os.path.join(root, "tests", "python", "data", "channel_cylinder.ini")
calls = 20

with tempfile.TemporaryDirectory() as work:
    problem = undertow.Problem(undertow.load(case_file, output=work))
    problem.value_and_grad({})  # warm-up
    t0 = time.perf_counter()
    for _ in range(calls):
        problem.value_and_grad({"fluid.nu": 0.05})
    python_s = (time.perf_counter() - t0) / calls

    f = undertow.torch.function(problem, ["fluid.nu", "obstacle1.radius"])
    nu = torch.tensor(0.05, dtype=torch.float64, requires_grad=True)
    r = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    t0 = time.perf_counter()
    for _ in range(calls):
        f(nu, r).backward()
    torch_s = (time.perf_counter() - t0) / calls

    cli = []
    for i in range(5):
        report = os.path.join(work, f"cli_{i}.json")
        t0 = time.perf_counter()
        subprocess.run([exe, "gradient", case_file, "--output", os.path.join(work, f"cli_{i}"),
                        "--report", report], check=True, capture_output=True)
        wall = time.perf_counter() - t0
        timing = json.load(open(report))["timing"]
        cli.append((wall, timing["forward_seconds"] + timing["reverse_seconds"] +
                    timing["recompute_seconds"]))
    cli_wall = min(c[0] for c in cli)
    cli_sweeps = min(c[1] for c in cli)

print(f"case: {case_file} (20 steps, 32 x 16 cells), 1 rank, Kokkos {undertow.execution_space}")
print(f"Problem.value_and_grad per call      {1e3 * python_s:8.2f} ms")
print(f"undertow.torch forward+backward      {1e3 * torch_s:8.2f} ms")
print(f"CLI: forward + reverse sweeps        {1e3 * cli_sweeps:8.2f} ms")
print(f"CLI: whole process (start to exit)   {1e3 * cli_wall:8.2f} ms")
print(f"Python call / CLI sweeps = {python_s / cli_sweeps:.2f}, "
      f"torch call / CLI sweeps = {torch_s / cli_sweeps:.2f}, "
      f"CLI process / Python call = {cli_wall / python_s:.1f}")
