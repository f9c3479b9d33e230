"""undertow.torch: a Problem as a PyTorch autograd Function.

    import torch, undertow, undertow.torch
    problem = undertow.Problem(undertow.load("case.ini"))
    J = undertow.torch.function(problem, ["fluid.nu", "boundary.x_lo.velocity_x"])
    loss = J(nu, u_in)          # float64 tensors on the CPU, e.g. outputs of a torch.nn.Module
    loss.backward()             # the discrete adjoint of the solver

The function returns J as a 0-d tensor, or the sensors' values as a 1-d tensor when the
Problem has sensors. Scalar parameters take 0-d (or one-element) tensors; 'design' a tensor of
the design field's shape, 'initial.u' (.v, .w) one of that velocity component's faces (global
layout; see Problem's `fields`). With a scalar J, forward() runs the forward and the reverse
sweep at once when a gradient will be needed; with sensors, backward() runs the adjoint for
its cotangent. Collective: under MPI every rank calls it with the same values.
"""

import numpy as np
import torch

from . import ConfigError, execution_space
from . import _adapters


def _checked(name, t):
    if not torch.is_tensor(t):
        t = torch.as_tensor(t, dtype=torch.float64)
    if t.dtype != torch.float64:
        raise TypeError(
            f"undertow.torch: parameter '{name}' is {t.dtype}; the solver computes in float64: "
            "pass float64 tensors (x.double(), or torch.set_default_dtype(torch.float64))")
    if t.device.type != "cpu":
        raise TypeError(
            f"undertow.torch: parameter '{name}' is on {t.device}; this undertow build "
            f"computes on the host (Kokkos {execution_space}): move it with .cpu()")
    return t


class _ProblemFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, problem, names, case_initial, *tensors):
        arrays = [t.detach().numpy() for t in tensors]
        params = _adapters.params_of(problem, names, arrays, case_initial)
        ctx.problem, ctx.names, ctx.params = problem, names, params
        ctx.shapes = [t.shape for t in tensors]
        ctx.gradient = None
        if problem.scalar and any(ctx.needs_input_grad[3:]):
            # A scalar J: the gradient comes with the same sweep, for backward().
            J, ctx.gradient = problem.value_and_grad(params)
            y = J
        else:
            y = problem.forward(params)
        return torch.as_tensor(np.asarray(y, dtype=np.float64))

    @staticmethod
    def backward(ctx, ybar):
        problem = ctx.problem
        if ctx.gradient is not None and ybar.dim() == 0:
            scale = float(ybar)
            grads = _adapters.gradient_list(ctx.names, ctx.gradient, ctx.shapes)
            grads = [g * scale for g in grads]
        else:
            cotangent = ybar.detach().numpy() if ybar.dim() else float(ybar)
            g = problem.vjp(cotangent, ctx.params)
            grads = _adapters.gradient_list(ctx.names, g, ctx.shapes)
        return (None, None, None) + tuple(torch.as_tensor(g) for g in grads)


def function(problem, names):
    """A callable f(*tensors) -> J (or the sensors' values) over the parameters `names` of
    `problem` (an undertow.Problem), differentiable by torch.autograd."""
    names = _adapters.check_names(problem, names)
    case_initial = _adapters.case_initial(problem)

    def f(*tensors):
        if len(tensors) != len(names):
            raise ConfigError(f"the function takes {len(names)} tensors ({', '.join(names)}), "
                              f"given {len(tensors)}")
        tensors = [_checked(n, t) for n, t in zip(names, tensors)]
        return _ProblemFunction.apply(problem, names, case_initial, *tensors)

    f.names = names
    f.problem = problem
    return f
