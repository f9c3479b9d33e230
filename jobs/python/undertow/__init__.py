"""undertow: differentiable fluid and solid mechanics on MPI + Kokkos, from Python.

The solvers and their discrete adjoints of the C++ framework (docs/python.md):

* ``undertow.load(case)`` reads a case file, or a dict of the same keys, as ``undertow run``
  does (same defaults, same errors: ``undertow.ConfigError``, a ``ValueError``).
* ``undertow.Simulation(case)`` steps a Navier-Stokes case; fields are NumPy arrays (zero-copy
  views of the solver's memory on host builds).
* ``undertow.Problem(case)`` is the case as a differentiable function: ``forward(params)``
  gives J (or sensor values) and ``vjp(cotangent)`` the gradient by the discrete adjoint.
* ``undertow.torch`` and ``undertow.jax`` wrap a Problem as a PyTorch autograd Function and a
  JAX ``custom_vjp`` function.

MPI: run with ``mpiexec -n 4 python3 script.py``; every call is collective over the case's
communicator (``comm=``, an mpi4py communicator; default MPI.COMM_WORLD). An error raised on
every rank (bad input, a diverging run) is raised as a Python exception on every rank; an
error on one rank alone ends all ranks with its message, as the CLI does.
"""

import atexit as _atexit

# MPI first: mpi4py initialises it (and finalises it at exit, after undertow's runtime).
from mpi4py import MPI as _MPI  # noqa: F401

from . import _undertow
from ._undertow import Case, ConfigError, Problem, RunError, Simulation
from ._cases import load

__version__ = _undertow.__version__
#: The Kokkos execution space the extension was built for (Serial, OpenMP, Cuda, ...).
execution_space = _undertow.execution_space

_undertow._initialize()
_atexit.register(_undertow._finalize)

__all__ = ["Case", "ConfigError", "Problem", "RunError", "Simulation", "load", "execution_space"]
