"""What undertow.torch and undertow.jax share: the parameters of a Problem by name, as flat
lists of arrays, and back. 'initial' is split by component into 'initial.u', 'initial.v'
('initial.w'); a component not given keeps the case's value."""

import numpy as np

_COMPONENTS = "uvw"


def check_names(problem, names):
    """The names as a list; raises undertow.ConfigError for an unknown one."""
    from . import ConfigError

    names = [names] if isinstance(names, str) else list(names)
    if not names:
        raise ConfigError("give the names of the parameters to differentiate, e.g. ['fluid.nu']")
    dim = len(problem.values()["initial"]) if any(n.startswith("initial") for n in names) else 0
    known = list(problem.parameters) + [f"initial.{c}" for c in _COMPONENTS[:dim or 3]]
    known += [n for n in problem.field_parameters if n != "initial"]
    for n in names:
        if n == "initial":
            raise ConfigError("name the initial velocity by component: 'initial.u', "
                              "'initial.v'" + (", 'initial.w'" if dim == 3 else ""))
        if n not in known:
            raise ConfigError(f"unknown parameter '{n}'; this case's parameters are "
                              + ", ".join(known))
    if len(set(names)) != len(names):
        raise ConfigError(f"a parameter is named twice in {names}")
    return names


def params_of(problem, names, arrays, case_initial):
    """{name: value} for Problem.forward from one array per name."""
    params = {}
    initial = None
    for name, a in zip(names, arrays):
        a = np.asarray(a, dtype=np.float64)
        if name.startswith("initial."):
            if initial is None:
                initial = [np.array(x, copy=True) for x in case_initial()]
            initial[_COMPONENTS.index(name[-1])] = a
        elif name in ("design",):
            params[name] = a
        else:
            params[name] = float(a.reshape(-1)[0]) if a.size == 1 else a
    if initial is not None:
        params["initial"] = initial
    return params


def gradient_list(names, gradient, shapes):
    """One array per name from a vjp() dict, each in the shape of its parameter."""
    out = []
    for name, shape in zip(names, shapes):
        if name.startswith("initial."):
            g = gradient["initial"][_COMPONENTS.index(name[-1])]
        else:
            g = gradient[name]
        out.append(np.asarray(g, dtype=np.float64).reshape(shape))
    return out


def case_initial(problem):
    """A callable giving the case's initial velocity (one array per component), read once."""
    cache = []

    def get():
        if not cache:
            cache.append(problem.values()["initial"])
        return cache[0]

    return get
