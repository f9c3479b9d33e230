"""undertow.jax: a Problem as a JAX function with a custom VJP.

    import jax, undertow, undertow.jax
    jax.config.update("jax_enable_x64", True)   # the solver computes in float64
    problem = undertow.Problem(undertow.load("case.ini"))
    J = undertow.jax.function(problem, ["fluid.nu", "boundary.x_lo.velocity_x"])
    dJ = jax.grad(J, argnums=(0, 1))(0.01, 1.0)  # also under jax.jit

The solver runs through jax.pure_callback on the host, so jax.jit and jax.grad work around it
(vmap evaluates one call after another). Returns J (a scalar) or the sensors' values. The
arguments are as in undertow.torch. Collective: under MPI every rank calls it alike.
"""

import jax
import jax.numpy as jnp
import numpy as np

from . import ConfigError
from . import _adapters


def _require_x64():
    if not jax.config.jax_enable_x64:
        raise TypeError(
            "undertow.jax: JAX computes in float32 by default and the solver in float64: call "
            "jax.config.update('jax_enable_x64', True) before making arrays")


def function(problem, names):
    """A JAX-differentiable f(*args) -> J (or the sensors' values) over the parameters `names`
    of `problem` (an undertow.Problem)."""
    names = _adapters.check_names(problem, names)
    _require_x64()
    scalar = problem.scalar
    out_shape = () if scalar else (problem.n_outputs,)
    case_initial = _adapters.case_initial(problem)

    def params(arrays):
        return _adapters.params_of(problem, names, arrays, case_initial)

    def checked(args):
        if len(args) != len(names):
            raise ConfigError(f"the function takes {len(names)} arguments ({', '.join(names)}), "
                              f"given {len(args)}")
        _require_x64()
        out = []
        for n, a in zip(names, args):
            a = jnp.asarray(a)
            if a.dtype != jnp.float64:
                raise TypeError(f"undertow.jax: parameter '{n}' is {a.dtype}; the solver "
                                "computes in float64: pass float64 arrays")
            out.append(a)
        return out

    def host_forward(*arrays):
        return np.asarray(problem.forward(params(arrays)), dtype=np.float64)

    def host_value_and_grad(*arrays):
        J, g = problem.value_and_grad(params(arrays))
        shapes = [np.shape(a) for a in arrays]
        return (np.float64(J),) + tuple(_adapters.gradient_list(names, g, shapes))

    def host_vjp(ybar, *arrays):
        g = problem.vjp(np.asarray(ybar, dtype=np.float64), params(arrays))
        return tuple(_adapters.gradient_list(names, g, [np.shape(a) for a in arrays]))

    result = jax.ShapeDtypeStruct(out_shape, jnp.float64)

    @jax.custom_vjp
    def f(*args):
        return jax.pure_callback(host_forward, result, *args)

    def f_fwd(*args):
        if scalar:
            shapes = (result,) + tuple(jax.ShapeDtypeStruct(jnp.shape(a), jnp.float64)
                                       for a in args)
            J, *grads = jax.pure_callback(host_value_and_grad, shapes, *args)
            return J, tuple(grads)  # the residual: dJ/dargs
        return jax.pure_callback(host_forward, result, *args), tuple(args)

    def f_bwd(residual, ybar):
        data = residual
        if scalar:
            return tuple(ybar * g for g in data)
        shapes = tuple(jax.ShapeDtypeStruct(jnp.shape(a), jnp.float64) for a in data)
        return tuple(jax.pure_callback(host_vjp, shapes, ybar, *data))

    f.defvjp(f_fwd, f_bwd)

    def call(*args):
        return f(*checked(args))

    call.names = names
    call.problem = problem
    return call
