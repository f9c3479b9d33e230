"""A torch network trained through the Navier-Stokes solver: it maps a condition (a few inputs)
to the inflow speed and a transverse body force of the channel flow past a cylinder, so that
the wake, a profile of u and v at sensors behind the body, hits a target profile.

Targets: for each of three conditions c, the wake the solver gives at known parameters
p*(c) (inflow 1 + 0.3 c, body force 0.2 c). The network (2 -> 16 -> 2, tanh) starts knowing
nothing of p*; the loss is the mean squared misfit of the wake profiles, and its gradient comes
through undertow.torch: the discrete adjoint of the solver for each condition. Adam on the
network's weights; the loss curve goes to wake_control_loss.png.

    mpiexec -n 2 python3 cases/python/wake_control_torch.py [--quick] [--output DIR]

--quick (what CI runs): a coarser grid, fewer steps and iterations; it still checks that the
loss falls by two orders of magnitude.
"""

import argparse
import os
import sys

import numpy as np
import torch

import undertow
import undertow.torch

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--quick", action="store_true", help="the reduced run of CI")
parser.add_argument("--output", default="runs/wake_control_torch")
args = parser.parse_args()
torch.manual_seed(0)
torch.set_default_dtype(torch.float64)

case = undertow.load(os.path.join(here, "channel_cylinder.ini"), output=args.output,
                     set={"domain.cells": "24 12", "time.t_end": 0.5} if args.quick else None)
rank0 = case.ranks == 1 or __import__("mpi4py").MPI.COMM_WORLD.rank == 0
# The wake profile: u and v at five points across the channel, 1.5 diameters behind the body.
sensors = [(c, (2.2, y)) for y in (0.6, 0.8, 1.0, 1.2, 1.4) for c in ("u", "v")]
problem = undertow.Problem(case, sensors=sensors)
wake = undertow.torch.function(problem, ["boundary.x_lo.velocity_x", "fluid.body_force_y"])

conditions = torch.tensor([[-1.0, 1.0], [0.0, 1.0], [1.0, 1.0]])  # (c, a constant input)


def truth(c):
    return 1.0 + 0.3 * c, 0.2 * c


with torch.no_grad():
    targets = [wake(*(torch.tensor(v) for v in truth(float(c[0])))) for c in conditions]

network = torch.nn.Sequential(torch.nn.Linear(2, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
with torch.no_grad():  # start at the case's parameters: inflow 1, no force
    network[2].weight.mul_(0.1)
    network[2].bias.copy_(torch.tensor([1.0, 0.0]))
optimiser = torch.optim.Adam(network.parameters(), lr=0.03)
iterations = 40 if args.quick else 150
losses = []
for it in range(iterations):
    optimiser.zero_grad()
    loss = 0.0
    for c, target in zip(conditions, targets):
        inflow, force = network(c)
        loss = loss + torch.mean((wake(inflow, force) - target) ** 2) / len(conditions)
    loss.backward()
    optimiser.step()
    losses.append(float(loss))
    if rank0 and (it % 10 == 0 or it == iterations - 1):
        print(f"iteration {it:4d}  loss {float(loss):.6e}", flush=True)

with torch.no_grad():
    learnt = [tuple(float(v) for v in network(c)) for c in conditions]
if rank0:
    for c, p in zip(conditions, learnt):
        t = truth(float(c[0]))
        print(f"c = {float(c[0]):+.0f}: learnt inflow {p[0]:.4f}, force {p[1]:+.4f}; "
              f"true {t[0]:.4f}, {t[1]:+.4f}")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(args.output, exist_ok=True)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(losses)
    ax.set_xlabel("Adam iteration")
    ax.set_ylabel("wake-profile misfit")
    ax.set_title("torch network trained through the NS adjoint")
    fig.tight_layout()
    fig.savefig(os.path.join(args.output, "wake_control_loss.png"), dpi=100)
    print("loss curve:", os.path.join(args.output, "wake_control_loss.png"))
drop = losses[-1] / losses[0]
if rank0:
    print(f"loss fell by a factor {1 / drop:.3g}")
sys.exit(0 if drop < 1e-2 else 1)
