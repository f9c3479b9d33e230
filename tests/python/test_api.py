"""The Python API (run at 1 and 2 ranks): cases from files and dicts with the CLI's errors,
Simulation fields as zero-copy views, sensors and their vjp, clear errors for bad parameters
and for float32 tensors, and resident memory flat over 100 forward/backward calls."""

import numpy as np
import torch

import undertow
import undertow.torch
from support import CASE, COMM, check, relative, say, small_case

# --- cases: a file, the same keys as a dict, and the CLI's errors -------------------------------
from_file = undertow.load(CASE)
as_dict = {}
section = None
for line in open(CASE):
    line = line.split("#")[0].strip()
    if line.startswith("["):
        section = line.strip("[]")
    elif "=" in line:
        key, value = (s.strip() for s in line.split("=", 1))
        as_dict.setdefault(section, {})[key] = value
from_dict = undertow.load(as_dict)
check(from_file.to_ini() == from_dict.to_ini(), "a dict of the case's keys gives the same case")
flat = undertow.load({f"{s}.{k}": v for s, kv in as_dict.items() for k, v in kv.items()})
check(flat.to_ini() == from_file.to_ini(), "flat 'section.key' dicts too")
try:
    undertow.load(CASE, set={"fluid.nuu": 0.1})
    check(False, "an unknown key is refused")
except undertow.ConfigError as e:
    check("unknown key 'fluid.nuu'" in str(e) and "did you mean 'fluid.nu'" in str(e),
          f"an unknown key is a ConfigError naming the fix: {e}")
try:
    undertow.load(CASE, set={"time.dt": -1})
    check(False, "a bad value is refused")
except ValueError as e:  # ConfigError is a ValueError
    check("time.dt" in str(e), f"a bad value is a ConfigError naming the key: {e}")
try:
    undertow.load("no/such/case.ini")
    check(False, "a missing file is refused")
except undertow.ConfigError as e:
    check("no/such/case.ini" in str(e), f"a missing case file names the file: {e}")

# --- Simulation: zero-copy fields, gather, run(until) -------------------------------------------
sim = undertow.Simulation(small_case())
u = sim.field("u")
check(np.shares_memory(u, sim.field("u")) and u.base is not None,
      "field('u') views the solver's memory")
sim.run(steps=3)
whole = sim.gather("u", where="global")
check(np.array_equal(whole[sim.owned_slices("u")], u),
      "the view follows the state, and sits at owned_slices in the gathered field")
check(whole.shape == (33, 16) and sim.gather("p", "global").shape == (32, 16),
      "staggered shapes: u on 33 x 16 faces, p on 32 x 16 cells")
x_faces, _ = sim.axes("u")
check(abs(x_faces[0]) < 1e-15 and abs(x_faces[-1] - 4.0) < 1e-12, "u's x axis runs over the faces")
sim.run(until=0.33)
check(abs(sim.time - 0.33) < 1e-12 and sim.step_count == 7,
      f"run(until=0.33) lands on t = {sim.time} after {sim.step_count} steps")
before = sim.probe((3.0, 1.0))
u[...] *= 2.0  # writing into the view changes the state
check(relative(sim.probe((3.0, 1.0)), 2 * before) < 1e-12 or before == 0,
      "writing into field('u') changes the solver's velocity")
check(len(sim.forces()) == 1 and sim.max_divergence() >= 0, "forces and diagnostics")

# --- sensors: y is linear in the cotangent -------------------------------------------------------
sensors = [("u", (2.0, 1.0)), ("v", (2.0, 1.3))]
p = undertow.Problem(small_case(), sensors=sensors)
y = p.forward({"fluid.nu": 0.05})
g1 = p.vjp(np.array([1.0, 0.0]))
g2 = p.vjp(np.array([0.0, 1.0]))
g = p.vjp(np.array([2.0, -3.0]))
check(relative(g["fluid.nu"], 2 * g1["fluid.nu"] - 3 * g2["fluid.nu"]) < 1e-10,
      "the sensors' vjp is linear in the cotangent")
h = 1e-5
dy = (p.forward({"fluid.nu": 0.05 + h}) - p.forward({"fluid.nu": 0.05 - h})) / (2 * h)
check(relative(g1["fluid.nu"], dy[0]) < 1e-6 and relative(g2["fluid.nu"], dy[1]) < 1e-6,
      f"each sensor's derivative matches central differences ({g1['fluid.nu']:.8e} vs {dy[0]:.8e})")

# --- layouts of field parameters and gradients: global, local, root -----------------------------
layouts = {}
for fields in ("global", "local", "root"):
    p = undertow.Problem(small_case(), fields=fields)
    layouts[fields] = (p.values()["initial"], p.value_and_grad({"initial": p.values()["initial"]}))
(u_global, _), (J_global, g_global) = layouts["global"][0], layouts["global"][1]
slices = [sim.owned_slices(name) for name in ("u", "v")]
local_values, (J_local, g_local) = layouts["local"]
check(all(np.array_equal(local_values[c], layouts["global"][0][c][slices[c]]) for c in range(2))
      and all(np.array_equal(g_local["initial"][c], g_global["initial"][c][slices[c]])
              for c in range(2)) and J_local == J_global,
      "fields='local': this rank's owned block of the global values and gradients")
root_values, (J_root, g_root) = layouts["root"]
if COMM.rank == 0:
    ok = all(np.array_equal(g_root["initial"][c], g_global["initial"][c]) for c in range(2))
else:
    ok = all(v is None for v in root_values) and all(g is None for g in g_root["initial"])
check(ok and J_root == J_global, "fields='root': the whole grid on rank 0, None on the others")

# --- clear errors ---------------------------------------------------------------------------------
problem = undertow.Problem(small_case())
for params, expected in [({"fluid.mu": 0.1}, "unknown parameter 'fluid.mu'"),
                         ({"fluid.nu": "a lot"}, "is a number"),
                         ({"fluid.nu": float("nan")}, "not finite"),
                         ({"initial": [np.zeros((3, 3)), np.zeros((3, 3))]}, "expected an array of shape (33, 16)"),
                         ({"design": np.zeros((32, 16))}, "no design field")]:
    try:
        problem.forward(params)
        check(False, f"{params} is refused")
    except undertow.ConfigError as e:
        check(expected in str(e), f"bad parameters: {e}")
try:
    undertow.Problem(small_case(), fields="everywhere")
    check(False, "fields='everywhere' is refused")
except undertow.ConfigError as e:
    check("local" in str(e) and "global" in str(e), f"bad layout: {e}")
f = undertow.torch.function(problem, ["fluid.nu"])
try:
    f(torch.tensor(0.05, dtype=torch.float32))
    check(False, "float32 is refused")
except TypeError as e:
    check("float64" in str(e), f"float32 tensors: {e}")

# --- memory: 100 forward/backward calls ----------------------------------------------------------


def rss_kib():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


nu = torch.tensor(0.05, dtype=torch.float64, requires_grad=True)
tiny = undertow.Problem(small_case(**{"domain.cells": "16 8", "time.t_end": 0.1}))
step = undertow.torch.function(tiny, ["fluid.nu"])
for _ in range(20):  # warm-up: allocator pools, first-call caches
    step(nu).backward()
start = rss_kib()
for _ in range(100):
    step(nu).backward()
growth = COMM.allreduce(rss_kib() - start, op=__import__("mpi4py").MPI.MAX)
say(f"resident memory after 100 more forward/backward calls: {growth:+d} KiB")
check(growth < 1024, f"resident memory does not grow over 100 calls ({growth:+d} KiB)")
