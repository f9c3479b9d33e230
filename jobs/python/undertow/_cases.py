"""undertow.load: a case from an INI file or a dict."""

import os

from . import _undertow


def _value_text(key, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return " ".join(_value_text(key, v) for v in value)
    if isinstance(value, (int, float, str)):
        return repr(value) if isinstance(value, float) else str(value)
    raise _undertow.ConfigError(
        f"case key '{key}': {type(value).__name__} is not a case value (give a number, a string, "
        "a bool or a list of them)")


def _ini_text(case):
    """The INI text of {'section': {'key': value}} or {'section.key': value}."""
    sections = {}
    for key, value in case.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                sections.setdefault(str(key), []).append((str(sub), v))
        else:
            section, dot, name = str(key).partition(".")
            if not dot or not section or not name:
                raise _undertow.ConfigError(
                    f"case key '{key}' is not 'section.key' (or give {{'section': {{'key': "
                    "value}}})")
            sections.setdefault(section, []).append((name, value))
    lines = []
    for section, items in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {_value_text(section + '.' + k, v)}" for k, v in items]
    return "\n".join(lines) + "\n"


def load(case, set=None, output=None, comm=None):
    """Reads and validates a case, as ``undertow run`` does.

    case: the path of an INI case file, or a dict of its keys, either nested
      ({'fluid': {'nu': 0.01}}) or flat ({'fluid.nu': 0.01}); data files a dict names are
      looked for in the working directory.
    set: overrides, like the CLI's --set: {'time.t_end': 0.5} or ['time.t_end=0.5'].
    output: the output directory (default output.dir, else runs/<case name>).
    comm: an mpi4py communicator (default MPI.COMM_WORLD). Collective over it.

    Raises undertow.ConfigError (a ValueError) naming a bad key or value and the fix.
    """
    overrides = []
    if isinstance(set, dict):
        overrides = [f"{k}={_value_text(k, v)}" for k, v in set.items()]
    elif set is not None:
        overrides = [str(s) for s in set]
    if isinstance(case, dict):
        return _undertow.Case._from_text(_ini_text(case), "<dict>", overrides, output or "", comm)
    if isinstance(case, os.PathLike):
        case = os.fspath(case)
    if not isinstance(case, str):
        raise _undertow.ConfigError(
            f"load(case): give the path of a case file or a dict, not {type(case).__name__}")
    return _undertow.Case._load(case, overrides, output or "", comm)
