"""J and dJ/dm of the Python runs at 1 and 2 ranks against the CLI's `undertow gradient
--report` of the same case: the same to 1e-10 relative.

usage: compare_results.py CLI_REPORT.json PYTHON_1.json PYTHON_2.json ...
"""

import json
import sys

TOLERANCE = 1e-10


def relative(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


cli = json.load(open(sys.argv[1]))
failed = False
for path in sys.argv[2:]:
    run = json.load(open(path))
    rows = [("J", cli["objective"], run["objective"])]
    for name, value in cli["gradient"].items():
        if name in run["gradient"]:
            rows.append((name, value, run["gradient"][name]))
        if name in run.get("jax_grad", {}):
            rows.append((name + " (jax.grad)", value, run["jax_grad"][name]))
    print(f"{path} ({run['ranks']} rank(s)) against the CLI ({cli['mpi_ranks']} rank(s)):")
    for name, a, b in rows:
        r = relative(a, b)
        bad = r > TOLERANCE
        failed = failed or bad
        print(f"  {name:40s} CLI {a: .15e}  Python {b: .15e}  rel {r:.1e}"
              + ("  FAILED" if bad else ""))
    missing = [n for n in cli["gradient"] if n not in run["gradient"] and n != "initial_velocity_l2"]
    if missing:
        print("  missing in the Python run:", ", ".join(missing))
        failed = True
sys.exit(1 if failed else 0)
