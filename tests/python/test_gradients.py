"""Gradients through the adapters (tests/python/CMakeLists.txt runs this at 1 and 2 ranks):

* torch.autograd.gradcheck (float64) through undertow.torch for the scalar parameters and for
  the field-valued ones (the initial velocity's u and a design field on a 12 x 6 grid);
* the case's checkpointing (revolve; multistage with disk slots) gives store-all's gradient;
* jax.grad (also under jax.jit) against Richardson-extrapolated central differences;
* J and dJ/dm written to RESULTS.json, which python_compare checks against the CLI's
  `undertow gradient --report` and against the other rank count.

usage: test_gradients.py RESULTS.json
"""

import sys

import jax
import numpy as np
import torch

import undertow
import undertow.jax
import undertow.torch
from support import COMM, check, relative, say, small_case, write_results

jax.config.update("jax_enable_x64", True)

SCALARS = ["fluid.nu", "boundary.x_lo.velocity_x", "fluid.body_force_y", "obstacle1.radius",
           "obstacle1.centre_y"]

# --- torch.autograd.gradcheck: scalar parameters -------------------------------------------------
problem = undertow.Problem(small_case())
values = problem.values()
f = undertow.torch.function(problem, SCALARS)
inputs = tuple(torch.tensor(values[n], dtype=torch.float64, requires_grad=True) for n in SCALARS)
passed = torch.autograd.gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-4)
check(passed, "torch.autograd.gradcheck through undertow.torch, 5 scalar parameters")

# --- gradcheck: a field-valued parameter ---------------------------------------------------------
tiny = undertow.Problem(small_case(**{"domain.cells": "12 6", "time.t_end": 0.15}))
u0 = tiny.values()["initial"][0]
g = undertow.torch.function(tiny, ["initial.u"])
field = torch.tensor(u0, dtype=torch.float64, requires_grad=True)
passed = torch.autograd.gradcheck(g, (field,), eps=1e-6, atol=1e-6, rtol=1e-4)
check(passed, f"gradcheck for the initial velocity u, a field of shape {tuple(u0.shape)}")

# --- gradcheck: the design field (a Brinkman field per cell, fluid topology) ---------------------
porous = undertow.Problem(small_case(**{"domain.cells": "12 6", "time.t_end": 0.15,
                                        "obstacles.design": 0.2}))
rho = torch.tensor(porous.values()["design"], dtype=torch.float64, requires_grad=True)
d = undertow.torch.function(porous, ["design"])
passed = torch.autograd.gradcheck(d, (rho,), eps=1e-6, atol=1e-6, rtol=1e-4)
check(passed, f"gradcheck for the design field, a field of shape {tuple(rho.shape)}")

# --- checkpointing as the case says: revolve and disk slots give store-all's gradient -----------
J_all, g_all = problem.value_and_grad({"fluid.nu": 0.04})
for settings in ({"checkpoint.schedule": "revolve", "checkpoint.ram_slots": 2},
                 {"checkpoint.schedule": "multistage", "checkpoint.ram_slots": 1,
                  "checkpoint.disk_slots": 2}):
    J_c, g_c = undertow.Problem(small_case(**settings)).value_and_grad({"fluid.nu": 0.04})
    check(J_c == J_all and g_c["fluid.nu"] == g_all["fluid.nu"],
          f"checkpointing {settings} gives store-all's J and gradient bitwise")

# --- JAX: grad and jit(grad) against central differences ----------------------------------------
J = undertow.jax.function(problem, SCALARS)
x0 = [float(values[n]) for n in SCALARS]
grad = jax.grad(J, argnums=tuple(range(len(SCALARS))))(*x0)
grad_jit = jax.jit(jax.grad(J, argnums=tuple(range(len(SCALARS)))))(*x0)
check(all(float(a) == float(b) for a, b in zip(grad, grad_jit)), "jax.jit(jax.grad) == jax.grad")


def central(i, h):
    xp, xm = list(x0), list(x0)
    xp[i] += h
    xm[i] -= h
    return (float(J(*xp)) - float(J(*xm))) / (2 * h)


worst = 0.0
for i, name in enumerate(SCALARS):
    # Shapes: J varies on a fraction of a cell (the mask's smoothed band is C^1 in the shape),
    # so their step is smaller, as adjoint.fd_shape_step says for the CLI.
    h = (1e-6 if name.startswith("obstacle") else 1e-3) * max(abs(x0[i]), 0.05)
    fd = (4 * central(i, h / 2) - central(i, h)) / 3  # Richardson: O(h^4)
    worst = max(worst, relative(float(grad[i]), fd))
    say(f"  {name:28s} jax.grad {float(grad[i]): .12e}  fd {fd: .12e}  "
        f"rel {relative(float(grad[i]), fd):.1e}")
check(worst < 1e-6, f"jax.grad agrees with extrapolated central differences (worst {worst:.1e})")

# --- results for the cross-rank and CLI comparison -----------------------------------------------
J0, full = problem.value_and_grad({})
write_results(sys.argv[1], {"ranks": COMM.size, "objective": J0,
                            "gradient": {k: float(v) for k, v in full.items()},
                            "jax_grad": {n: float(v) for n, v in zip(SCALARS, grad)}})
say("J =", J0)
