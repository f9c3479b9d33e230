"""System identification with JAX: the viscosity and the inflow speed of the channel flow past a
cylinder, fitted to velocity probes (measurements made by a run at nu = 0.03, U = 1.25).

The loss is the mean squared misfit of eight probes in the wake. jax.jacrev takes the
Jacobian of the probes through undertow.jax (one adjoint sweep of the solver per probe), under
jax.jit, and Gauss-Newton steps with Levenberg damping fit the parameters in log space from the
case's nu = 0.05, U = 1. The loss curve and the parameter path go to system_identification.png.

    mpiexec -n 2 python3 cases/python/system_identification_jax.py [--quick] [--output DIR]

--quick (what CI runs): a coarser grid and fewer steps and iterations; it checks that nu and U
come within 1e-6 (relative) of the truth.
"""

import argparse
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

import undertow
import undertow.jax

jax.config.update("jax_enable_x64", True)
here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--quick", action="store_true", help="the reduced run of CI")
parser.add_argument("--output", default="runs/system_identification_jax")
args = parser.parse_args()

case = undertow.load(os.path.join(here, "channel_cylinder.ini"), output=args.output,
                     set={"domain.cells": "24 12", "time.t_end": 0.5} if args.quick else None)
rank0 = __import__("mpi4py").MPI.COMM_WORLD.rank == 0
sensors = [(c, (x, y)) for x in (2.0, 2.8) for y in (0.7, 1.3) for c in ("u", "v")]
problem = undertow.Problem(case, sensors=sensors)
probes = undertow.jax.function(problem, ["fluid.nu", "boundary.x_lo.velocity_x"])
truth = (0.03, 1.25)
data = probes(*truth)  # the measurements


def residual(theta):  # theta = (log nu, log U): the probes' misfit, relative
    return (probes(jnp.exp(theta[0]), jnp.exp(theta[1])) - data) / jnp.sqrt(jnp.mean(data ** 2))


# Gauss-Newton with Levenberg damping: the Jacobian of the residual by jax.jacrev (one adjoint
# sweep per probe), under jax.jit.
step = jax.jit(lambda theta: (residual(theta), jax.jacrev(residual)(theta)))
theta = jnp.log(jnp.array([0.05, 1.0]))
damping = 1e-3
iterations = 8 if args.quick else 15
losses, path = [], []
for it in range(iterations):
    r, J = step(theta)
    losses.append(float(jnp.mean(r ** 2)))
    path.append(np.exp(np.asarray(theta)))
    if rank0:
        print(f"iteration {it:3d}  loss {losses[-1]:.6e}  nu {path[-1][0]:.6f}  "
              f"U {path[-1][1]:.6f}", flush=True)
    A = J.T @ J
    theta = theta - jnp.linalg.solve(A + damping * jnp.diag(jnp.diag(A)), J.T @ r)

nu, U = (float(x) for x in np.exp(np.asarray(theta)))
errors = (abs(nu - truth[0]) / truth[0], abs(U - truth[1]) / truth[1])
if rank0:
    print(f"fitted nu = {nu:.6f} (true {truth[0]}), U = {U:.6f} (true {truth[1]}); "
          f"errors {100 * errors[0]:.3f}%, {100 * errors[1]:.3f}%")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(args.output, exist_ok=True)
    path = np.array(path)
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.semilogy(losses)
    a.set_xlabel("Gauss-Newton iteration")
    a.set_ylabel("relative probe misfit")
    a.set_title("loss")
    b.plot(path[:, 0], path[:, 1], ".-", ms=3)
    b.plot(*truth, "r*", ms=12, label="truth")
    b.set_xlabel("nu [m^2/s]")
    b.set_ylabel("U [m/s]")
    b.legend()
    b.set_title("parameter path")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "system_identification.png"), dpi=100)
    print("plots:", os.path.join(args.output, "system_identification.png"))
sys.exit(0 if max(errors) < 1e-6 else 1)
