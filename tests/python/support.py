"""What the Python package's tests share: the test case, checks that fail on every rank with a
message, and the results file each run writes for the cross-rank comparison."""

import json
import os
import sys

import undertow
from mpi4py import MPI

HERE = os.path.dirname(os.path.abspath(__file__))
CASE = os.path.join(HERE, "data", "channel_cylinder.ini")
COMM = MPI.COMM_WORLD


def say(*args):
    if COMM.rank == 0:
        print(*args, flush=True)


def check(condition, message):
    """Fails the test on every rank (exit 1) unless `condition` holds on every rank."""
    ok = COMM.allreduce(bool(condition), op=MPI.LAND)
    if not ok:
        if not condition:
            print(f"FAILED on rank {COMM.rank}: {message}", file=sys.stderr, flush=True)
        COMM.Barrier()
        sys.exit(1)
    say("ok:", message)


def relative(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def write_results(path, results):
    if COMM.rank == 0:
        tmp = path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    COMM.Barrier()


def small_case(**overrides):
    settings = {"time.t_end": 0.25}
    settings.update(overrides)
    return undertow.load(CASE, set=settings, output=os.environ.get("UNDERTOW_TEST_OUTPUT"))
