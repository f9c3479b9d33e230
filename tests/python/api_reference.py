"""Writes the API reference of the Python package, docs/python_api.md, from its docstrings
(test python_api_reference_in_sync checks that the committed file is up to date).

    PYTHONPATH=build/python build/venv/bin/python tests/python/api_reference.py > docs/python_api.md
"""

import inspect

import undertow
import undertow.jax
import undertow.torch


def doc(obj):
    return inspect.cleandoc(obj.__doc__ or "").strip()


def members(cls):
    out = []
    for name, member in cls.__dict__.items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            out.append((f"`{cls.__name__}.{name}` (property)", doc(member)))
        elif callable(member) or isinstance(member, staticmethod):
            text = doc(member)
            # pybind11 puts the signature first: "name(self: ..., a: int = 1) -> float\n\ndoc"
            signature, _, rest = text.partition("\n")
            signature = signature.replace("undertow._undertow.", "")
            out.append((f"`{cls.__name__}.{signature}`", inspect.cleandoc(rest)))
    return out


lines = ["# The Python package: API reference", "",
         "Generated from the docstrings by `tests/python/api_reference.py` (the test",
         "`python_api_reference_in_sync` checks it). The guide is `docs/python.md`.", "",
         "## undertow", "", doc(undertow), "",
         f"### `undertow.load{inspect.signature(undertow.load)}`", "", doc(undertow.load), ""]
for cls in (undertow.Case, undertow.Simulation, undertow.Problem):
    lines += [f"## `undertow.{cls.__name__}`", "", doc(cls), ""]
    for title, text in members(cls):
        lines += [f"### {title}", ""] + ([text, ""] if text else [])
for exc in (undertow.ConfigError, undertow.RunError):
    lines += [f"## `undertow.{exc.__name__}` ({exc.__bases__[0].__name__})", ""]
for module in (undertow.torch, undertow.jax):
    lines += [f"## `{module.__name__}`", "", doc(module), "",
              f"### `{module.__name__}.function{inspect.signature(module.function)}`", "",
              doc(module.function), ""]
print("\n".join(line.rstrip() for line in lines).rstrip("\n"))
