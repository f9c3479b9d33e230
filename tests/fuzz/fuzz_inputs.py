#!/usr/bin/env python3
"""The fuzz corpus of undertow's inputs (issue 20, docs/reliability.md).

Generates malformed case files and command lines (at least 150: every key of the navier_stokes
schema with values of the wrong type, out of range or of the wrong length, then hand-written
kinds: case-file syntax and encodings, command lines, missing and wrong files, values that parse
but cannot run), runs each with a time limit, and classifies the outcome:

  clear error     exit 2, and an error line names the offending key, value or file
  ran             exit 0 (only for the inputs that may be valid, e.g. a byte-order mark)
  run failed      exit 3 with one collective error (only where a run may legitimately fail)
  unclear         refused, but no error line names the key, value or file; or exit 1
  crash           a signal, another exit code, or an error met by one rank only (MPI_Abort)
  hang            the time limit was reached
  accepted        exit 0 on input that must be refused
  modified        a refused command changed a file of the finished run in GOOD/ (which is then
                  put back, so that every command meets the same finished run)

Prints the counts and every defect; exits 1 if there is any. Deterministic: the same corpus
every time.

usage: fuzz_inputs.py --undertow EXE --mpiexec MPIEXEC --work DIR [--np-flag -n] [--only TEXT]
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

BASE = {
    "case.model": "navier_stokes",
    "domain.dim": "2",
    "domain.cells": "16 16",
    "domain.length": "1 1",
    "fluid.nu": "0.01",
    "boundary.x_lo": "wall",
    "boundary.x_hi": "wall",
    "boundary.y_lo": "wall",
    "boundary.y_hi": "wall",
    "boundary.y_hi_velocity": "1 0",
    "time.t_end": "0.05",
    "time.cfl": "0.5",
    "objective.terms": "kinetic_energy",
    "output.progress_every": "0",
}

# A star for `optimize` (refused commands only: an optimisation is too long for a corpus).
STAR = {
    "case.model": "navier_stokes",
    "domain.cells": "32 16",
    "domain.length": "2 1",
    "fluid.nu": "0.05",
    "boundary.x_lo": "inflow",
    "boundary.x_lo_velocity": "1 0",
    "boundary.x_hi": "outflow",
    "boundary.y_lo": "slip",
    "boundary.y_hi": "slip",
    "obstacle1.shape": "star",
    "obstacle1.centre": "0.5 0.5",
    "obstacle1.radius": "0.15",
    "obstacle1.fourier": "0 0 0 0 0 0 0 0",
    "time.t_end": "0.2",
    "time.cfl": "0.5",
    "objective.terms": "drag",
    "design.variables": "cos_coeff_2 cos_coeff_3",
    "design.coefficient_bound": "0.05",
    "output.progress_every": "0",
}

TIME_LIMIT = 60  # seconds per command


def render(entries, extra_lines=""):
    """A case file of `entries` (section.key -> value), one [section] each."""
    sections = {}
    for key, value in entries.items():
        section, name = key.split(".", 1)
        sections.setdefault(section, []).append(f"{name} = {value}")
    text = "# fuzz corpus case\n"
    for section, lines in sections.items():
        text += f"\n[{section}]\n" + "\n".join(lines) + "\n"
    return text + extra_lines


class Case:
    """One command of the corpus. `args` may hold {case}, {good}, {work}; `expect` is "error"
    (must be refused with exit 2) or "either" (refused with exit 2, or run: exit 0, or fail as a
    run may: exit 3); `names`: regexes, one of which an error line must match."""

    def __init__(self, name, args, names, expect="error", files=None, ranks=1, output="good",
                 allow_failure=False):
        self.name = name
        self.args = args
        self.names = names
        self.expect = expect
        self.files = files or {}
        self.ranks = ranks
        self.output = output  # "good": --output GOOD; "fresh": a folder of its own; None: none
        self.allow_failure = allow_failure


def schema_keys(undertow, mpi):
    """(key, type text) of the navier_stokes model from `undertow keys`."""
    out = subprocess.run(mpi(1) + [undertow, "keys"], capture_output=True, text=True,
                         timeout=TIME_LIMIT).stdout
    keys, model = [], None
    for line in out.splitlines():
        m = re.match(r"^model (\w+):", line)
        if m:
            model = m.group(1)
            continue
        m = re.match(r"^  ([a-z0-9_]+\.[a-z0-9_]+) = .*    # (.*)$", line)
        if model == "navier_stokes" and m:
            keys.append((m.group(1), m.group(2).rsplit("; ", 1)[-1]))
    return keys


def bad_values(kind):
    """Values that the type text `kind` rules out."""
    values = []
    count = re.match(r"^(\d+) to (\d+) ", kind) or re.match(r"^(\d+) ", kind)
    if count:  # a list: too many entries, a word among numbers
        most = int(count.groups()[-1])
        values += [" ".join(["1"] * (most + 1)), "1 x" if most > 1 else "x"]
        if "integer" in kind:
            values.append(" ".join(["1.5"] * most))
    elif kind.startswith("a real number"):
        values += ["abc", "1.5.2", "nan", "inf", "1e999", "0.01;"]
        m = re.search(r"in \[([^,]+), ([^\]]+)\]", kind)
        if m:
            values += [f"{float(m.group(1)) / 10:g}", f"{float(m.group(2)) * 10:g}"]
        if "> 0" in kind:
            values += ["0", "-1"]
        elif ">= 0" in kind:
            values.append("-1e-3")
    elif kind.startswith("an integer"):
        values += ["1.5", "abc", "99999999999999999999", "2e3"]
        m = re.search(r">= (\d+)", kind)
        if m:
            values.append(str(int(m.group(1)) - 1))
        m = re.search(r"in \[(\d+), (\d+)\]", kind)
        if m:
            values.append(str(int(m.group(2)) + 1))
    elif kind.startswith("one of"):
        values += ["bogus", "WALL_"]
    elif kind.startswith("true or false") or "booleans" in kind:
        values += ["maybe", "2"]
    return values


def schema_cases(keys):
    """Each key of the schema with values its type rules out, in the case file or by --set,
    through run or gradient."""
    cases = []
    for index, (key, kind) in enumerate(keys):
        if re.match(r"obstacle[2-9]\.", key):
            continue  # obstacle1 stands for them
        for j, value in enumerate(bad_values(kind)[index % 2::2][:2] or []):
            entries = dict(BASE)
            entries[key] = value
            command = "gradient" if (index + j) % 3 == 2 else "run"
            via_set = (index + j) % 2 == 1
            name = f"schema_{key}_{j}"
            args = [command, "{case}"]
            files = {"case.ini": render(BASE if via_set else entries)}
            if via_set:
                args += ["--set", f"{key}={value}"]
            cases.append(Case(name, args, [re.escape(key)], files=files,
                              ranks=2 if index % 4 == 0 else 1))
    return cases


def syntax_cases():
    """Case files that are not well-formed, or well-formed in an unusual way."""
    base = render(BASE)
    c = []
    add = lambda name, text, names, expect="error", **kw: c.append(
        Case("file_" + name, ["run", "{case}"], names, expect,
             files={"case.ini": text}, **kw))
    add("empty", "", ["case.ini", "no key"])
    add("comments_only", "# nothing\n; nothing\n\n", ["case.ini", "no key"])
    add("blanks_only", "   \n\t\n", ["case.ini", "no key"])
    add("bom", "\ufeff" + base, [], "either", output="fresh")
    add("crlf", base.replace("\n", "\r\n"), [], "either", output="fresh")
    add("cr_only", base.replace("\n", "\r"), [], "either", output="fresh")
    add("nul_bytes", base[:40] + "\0\0\0" + base[40:], ["case.ini", "line", "NUL", "character"])
    add("garbage", bytes(range(256)) * 4, ["case.ini", "line", "character", "UTF"])
    add("no_equals", base + "\n[time]\nt_end 0.05\n", ["t_end", "line"])
    add("section_unterminated", base + "\n[time\nt_end = 0.05\n", [r"\[time", "line"])
    add("section_empty", base + "\n[]\nx = 1\n", [r"\[\]", "line"])
    add("key_before_section", "nu = 0.01\n" + base, ["nu", "line"])
    add("empty_key", base + "\n[time]\n= 0.05\n", ["line", "key"])
    add("empty_value", base + "\n[fluid]\nnu =\n", ["fluid.nu"])
    add("duplicate_key", base + "\n[fluid]\nnu = 0.02\n", ["fluid.nu"])
    add("unknown_section", base + "\n[fluidd]\nnu = 0.01\n", ["fluidd"])
    add("unknown_key", base + "\n[fluid]\nnuu = 0.01\n", ["fluid.nuu"])
    add("key_typo_case", base + "\n[Fluid]\nNu = 0.01\n", ["Fluid", "fluid.nu", "Nu"])
    add("double_equals", base.replace("t_end = 0.05", "t_end == 0.05"), ["time.t_end"])
    add("semicolon", base.replace("nu = 0.01", "nu = 0.01;"), ["fluid.nu"])
    add("comma_decimal", base.replace("nu = 0.01", "nu = 0,01"), ["fluid.nu"])
    add("quoted_number", base.replace("nu = 0.01", 'nu = "0.01"'), ["fluid.nu"])
    add("unicode_key", base + "\n[fluid]\nnü = 0.01\n", ["fluid.n", "line"])
    add("include_directive", "!include other.ini\n" + base, ["include", "line"])
    add("long_value", base.replace("nu = 0.01", "nu = " + "9" * 100000), ["fluid.nu"])
    add("long_line_key", base + "\n[fluid]\n" + "k" * 100000 + " = 1\n", ["fluid.k", "line"])
    add("many_lines", base + "\n[fluid]\n" + "\n".join(f"x{i} = {i}" for i in range(20000)),
        ["fluid.x0"])
    add("utf16", base.encode("utf-16"), ["case.ini", "line", "UTF", "character"])
    add("inline_comment", base.replace("nu = 0.01", "nu = 0.01   # viscosity"), [], "either",
        output="fresh")
    add("tab_separated", base.replace("nu = 0.01", "nu\t=\t0.01"), [], "either", output="fresh")
    add("trailing_words", base.replace("t_end = 0.05", "t_end = 0.05 s"), ["time.t_end"])
    add("model_missing", base.replace("model = navier_stokes", "model = "), ["case.model"])
    add("model_wrong", base.replace("model = navier_stokes", "model = navier stokes"),
        ["case.model"])
    add("dim_3_cells_2", base.replace("dim = 2", "dim = 3"), ["domain.cells", "domain.dim"])
    return c


def command_line_cases():
    """Command lines: options, files they name, combinations that cannot run."""
    c = []
    add = lambda name, args, names, expect="error", **kw: c.append(
        Case("cli_" + name, args, names, expect, files={"case.ini": render(BASE)}, **kw))
    add("no_command", [], ["no command"], output=None)
    add("unknown_command", ["rnu", "{case}"], ["rnu"], output=None)
    add("no_case", ["run"], ["case file", "CASE"], output=None)
    add("missing_case", ["run", "{work}/no_such.ini"], ["no_such.ini"])
    add("case_is_dir", ["run", "{work}"], [re.escape("work"), "directory", "regular"])
    add("case_dev_zero", ["run", "/dev/zero"], ["/dev/zero"])
    add("case_dev_null", ["run", "/dev/null"], ["/dev/null"])
    add("case_proc_mem", ["run", "/proc/self/mem"], ["/proc/self/mem"])
    add("two_cases", ["run", "{case}", "{case}"], ["case.ini", "positional", "one case"])
    add("output_no_value", ["run", "{case}", "--output"], ["output"], output=None)
    add("unknown_option", ["run", "{case}", "--outptu", "x"], ["outptu"], output=None)
    add("set_no_value", ["run", "{case}", "--set"], ["set"])
    add("set_no_equals", ["run", "{case}", "--set", "time.t_end"], ["time.t_end"])
    add("set_empty_key", ["run", "{case}", "--set", "=1"], ["=1", "key"])
    add("set_no_section", ["run", "{case}", "--set", "nu=1"], ["nu"])
    add("set_unknown_key", ["run", "{case}", "--set", "fluid.mu=1"], ["fluid.mu"])
    add("set_unknown_section", ["run", "{case}", "--set", "flud.nu=1"], ["flud.nu"])
    add("output_is_file", ["run", "{case}", "--output", "{good}/config.ini"], ["config.ini"],
        output=None)
    add("output_unwritable", ["run", "{case}", "--output", "/proc/undertow_fuzz"],
        ["/proc/undertow_fuzz"], output=None)
    add("report_no_dir", ["run", "{case}", "--report", "{work}/no/such/dir/r.json"],
        ["r.json", "no/such"], "either", output="fresh", allow_failure=True)
    add("restart_missing", ["run", "{case}", "--restart", "{work}/nope.h5"], ["nope.h5"])
    add("restart_dev_zero", ["run", "{case}", "--restart", "/dev/zero"], ["/dev/zero"])
    add("restart_text", ["run", "{case}", "--restart", "{case}"], ["case.ini"])
    add("restart_dir", ["run", "{case}", "--restart", "{good}"], ["good", "HDF5", "directory"])
    add("restart_truncated", ["run", "{case}", "--restart", "{work}/truncated.h5"],
        ["truncated.h5"])
    add("restart_other_grid",
        ["run", "{case}", "--set", "domain.cells=20,20", "--restart", "{restart}"],
        ["domain.cells", "grid", "16"])
    add("restart_other_model",
        ["run", "{case}", "--set", "fluid.nu=0.02", "--restart", "{restart}"],
        ["fluid.nu"], "either", output="fresh")
    add("restart_at_end", ["run", "{case}", "--set", "time.t_end=0.001", "--restart",
                           "{restart}"], ["t_end"])
    add("check_without_reference", ["run", "{case}", "--check"], ["check", "reference"])
    add("name_escapes", ["run", "{case}", "--set", "case.name=../../escaped"], ["case.name"],
        output=None)
    add("name_dot", ["run", "{case}", "--set", "case.name=.."], ["case.name"], output=None)
    add("name_slash", ["run", "{case}", "--set", "case.name=a/b"], ["case.name"], output=None)
    add("grid_beyond_memory", ["run", "{case}", "--set", "domain.cells=1000000,1000000"],
        ["domain.cells", "memory"])
    add("grid_beyond_indices", ["run", "{case}", "--set", "domain.cells=4294967312,16"],
        ["domain.cells", "indices"])
    add("grid_3d_huge", ["run", "{case}", "--set", "domain.dim=3", "--set",
                         "domain.cells=100000,100000,100000", "--set", "domain.length=1,1,1"],
        ["domain.cells", "memory", "indices"])
    add("endless_steps", ["run", "{case}", "--set", "time.t_end=1e300", "--set",
                          "time.dt=1e-300"], ["time.dt", "time.t_end", "steps"])
    add("dt_huge_diverges", ["run", "{case}", "--set", "time.dt=2", "--set", "time.t_end=200",
                             "--set", "fluid.nu=1e-5"], ["diverged", "time.dt"], "either",
        output="fresh", allow_failure=True)
    add("petsc_bogus", ["run", "{case}", "--set", "pressure.petsc_options=-pc_type bogus",
                        "--set", "pressure.preconditioner=hypre"], ["pressure.petsc_options"])
    add("petsc_unused", ["run", "{case}", "--set", "pressure.petsc_options=-pc_typo lu",
                         "--set", "pressure.preconditioner=hypre"], ["pressure.petsc_options"])
    add("petsc_not_an_option", ["run", "{case}", "--set", "pressure.petsc_options=pc_type lu",
                                "--set", "pressure.preconditioner=hypre"],
        ["pressure.petsc_options"])
    add("obstacle_outside", ["run", "{case}", "--set", "obstacle1.shape=circle", "--set",
                             "obstacle1.centre=5,5"], ["obstacle1"])
    add("obstacle_tiny", ["run", "{case}", "--set", "obstacle1.shape=circle", "--set",
                          "obstacle1.centre=0.5,0.5", "--set", "obstacle1.radius=1e-9"],
        ["obstacle1"])
    add("ghia_missing", ["run", "{case}", "--check", "--set", "check.reference=ghia",
                         "--set", "check.l2_error_max=0.1", "--set",
                         "check.ghia_u_file=nope.csv"], ["nope.csv"])
    add("ghia_not_square", ["run", "{case}", "--check", "--set", "check.reference=ghia",
                            "--set", "domain.length=2,1"], ["ghia", "unit square",
                                                            "domain.length"])
    add("probes_outside", ["run", "{case}", "--set", "diagnostics.pressure_probes=5 5 6 6"],
        ["diagnostics.pressure_probes"])
    add("gradient_probes_outside", ["gradient", "{case}", "--set",
                                    "objective.terms=pressure_drop", "--set",
                                    "diagnostics.pressure_probes=0.5 0.5 0.5 1.5"],
        ["diagnostics.pressure_probes"])
    add("output_under_file", ["run", "{case}", "--output", "{good}/config.ini/sub"],
        ["config.ini"], output=None)
    add("restart_and_name_escape", ["run", "{case}", "--restart", "{restart}", "--set",
                                    "case.name=../x"], ["case.name"], output=None)
    add("walltime_words", ["run", "{case}", "--walltime", "soon"], ["--walltime soon"])
    add("walltime_negative", ["run", "{case}", "--walltime", "-1:00"], ["walltime"])
    add("walltime_zero", ["gradient", "{case}", "--walltime", "0:00:00"], ["--walltime 0:00:00"])
    add("initial_poiseuille_walls", ["run", "{case}", "--set", "initial.type=poiseuille"],
        ["initial.type", "poiseuille"], "either", output="fresh")
    # gradient
    add("gradient_resume_missing", ["gradient", "{case}", "--set", "checkpoint.schedule=multistage",
                                    "--set", "checkpoint.disk_slots=2", "--resume",
                                    "{work}/no_run"], ["no_run"], allow_failure=True)
    add("gradient_resume_good", ["gradient", "{case}", "--set", "checkpoint.schedule=revolve",
                                 "--resume", "{good}"], ["gradient_checkpoints.h5"],
        allow_failure=True)
    add("gradient_resume_store_all", ["gradient", "{case}", "--resume", "{good}"],
        ["checkpoint.schedule", "resume"])
    add("gradient_direction_garbage", ["gradient", "{case}", "--taylor", "--direction", "garbage"],
        ["garbage"])
    add("gradient_direction_nan", ["gradient", "{case}", "--taylor", "--direction",
                                   "fluid.nu=abc"], ["abc"])
    add("gradient_direction_unknown", ["gradient", "{case}", "--taylor", "--direction",
                                       "fluid.mu=1"], ["fluid.mu"])
    add("gradient_direction_alone", ["gradient", "{case}", "--direction", "fluid.nu=1"],
        ["--taylor"])
    add("gradient_objective_unknown", ["gradient", "{case}", "--set", "objective.terms=dragg"],
        ["dragg", "objective.terms"])
    add("gradient_drag_no_body", ["gradient", "{case}", "--set", "objective.terms=drag"],
        ["drag", "obstacle"])
    add("gradient_weights_count", ["gradient", "{case}", "--set", "objective.weights=1 2"],
        ["objective.weights"])
    add("gradient_window_inverted", ["gradient", "{case}", "--set", "objective.time=average",
                                     "--set", "objective.window=0.04,0.01"], ["objective.window"])
    add("gradient_window_after_end", ["gradient", "{case}", "--set", "objective.time=average",
                                      "--set", "objective.window=1,2"], ["objective.window"])
    add("gradient_target_missing", ["gradient", "{case}", "--set", "objective.terms=velocity_misfit",
                                    "--set", "objective.target_file={work}/nope_target.h5"],
        ["nope_target.h5"])
    add("gradient_probe_data_missing", ["gradient", "{case}", "--set",
                                        "objective.terms=probe_misfit", "--set",
                                        "objective.probe=0.5,0.5", "--set",
                                        "objective.probe_data={work}/nope.csv"], ["nope.csv"])
    add("gradient_design_missing", ["gradient", "{case}", "--set",
                                    "obstacles.design={work}/nope_design.h5"],
        ["nope_design.h5"])
    add("gradient_ram_tiny", ["gradient", "{case}", "--set", "checkpoint.schedule=revolve",
                              "--set", "checkpoint.ram=1KiB"], ["checkpoint.ram"])
    add("gradient_ram_words", ["gradient", "{case}", "--set", "checkpoint.schedule=revolve",
                               "--set", "checkpoint.ram=lots"], ["checkpoint.ram"])
    add("gradient_ram_and_slots", ["gradient", "{case}", "--set", "checkpoint.schedule=revolve",
                                   "--set", "checkpoint.ram=1GiB", "--set",
                                   "checkpoint.ram_slots=3"], ["checkpoint.ram"])
    add("gradient_multistage_no_disk", ["gradient", "{case}", "--set",
                                        "checkpoint.schedule=multistage"], ["checkpoint.disk_slots"])
    add("gradient_all_with_disk", ["gradient", "{case}", "--set", "checkpoint.disk_slots=2"],
        ["checkpoint.disk_slots", "checkpoint.schedule"])
    add("gradient_on_advdiff", ["gradient", "{case}", "--set", "case.model=advection_diffusion"],
        ["advection_diffusion", "case.model", "boundary"])
    # optimize (a star case)
    star = render(STAR)
    add_star = lambda name, args, names, **kw: c.append(
        Case("cli_" + name, args, names, "error", files={"case.ini": star}, **kw))
    add_star("optimize_resume_good", ["optimize", "{case}", "--resume", "{good}"],
             ["evaluations.journal", "journal"], output=None)
    add_star("optimize_resume_missing", ["optimize", "{case}", "--resume", "{work}/no_opt"],
             ["no_opt"], output=None)
    add_star("optimize_variable_twice", ["optimize", "{case}", "--set",
                                         "design.variables=cos_coeff_2 cos_coeff_2"],
             ["design.variables"])
    add_star("optimize_variable_unknown", ["optimize", "{case}", "--set",
                                           "design.variables=cos_coeff_9"], ["cos_coeff_9"])
    add_star("optimize_variable_empty", ["optimize", "{case}", "--set", "design.variables="],
             ["design.variables"])
    add_star("optimize_tao_bogus", ["optimize", "{case}", "--set",
                                    "optimize.petsc_options=-optimize_tao_type bogus"],
             ["optimize.petsc_options"])
    add_star("optimize_tao_unused", ["optimize", "{case}", "--set",
                                     "optimize.petsc_options=-optimize_tao_typo lmvm"],
             ["optimize.petsc_options"])
    add_star("optimize_bound_outside", ["optimize", "{case}", "--set",
                                        "obstacle1.fourier=0 0 0.5 0 0 0 0 0", "--set",
                                        "design.coefficient_bound=0.1"],
             ["cos_coeff_2", "design.coefficient_bound"])
    add_star("optimize_r0_fixed_area", ["optimize", "{case}", "--set", "design.variables=r0"],
             ["r0", "optimize.area"])
    add_star("optimize_lift_target_words", ["optimize", "{case}", "--set",
                                            "optimize.objective=drag_at_lift", "--set",
                                            "objective.terms=lift drag", "--set",
                                            "optimize.lift_target=high"],
             ["optimize.lift_target"])
    c.append(Case("cli_optimize_not_star", ["optimize", "{case}"], ["design.obstacle", "star"],
                  files={"case.ini": render(BASE)}))
    return c


def tree_state(folder):
    """{relative path: SHA-256 of its bytes} of every file under `folder`."""
    state = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                state[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return state


def tree_changes(before, after):
    """The files added, removed or changed between two tree_state()s."""
    return sorted(("added " if p not in before else "removed " if p not in after else "changed ")
                  + p for p in set(before) | set(after) if before.get(p) != after.get(p))


def classify(case, code, output, errors, timed_out):
    """The outcome of one command (see the module's docstring)."""
    if timed_out:
        return "hang"
    if code < 0 or code not in (0, 1, 2, 3) or "error on rank" in output \
            or "MPI_ABORT" in output or "terminate called" in output:
        return "crash"
    named = not case.names or any(re.search(n, errors) for n in case.names)
    if code == 0:
        return "ran" if case.expect == "either" else "accepted"
    if code == 2:
        return "clear error" if named and errors else "unclear"
    if code == 3 and (case.expect == "either" or case.allow_failure):
        return "run failed" if named and errors else "unclear"
    return "unclear"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--undertow", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n")
    p.add_argument("--work", required=True)
    p.add_argument("--only", default="", help="run only the cases whose name holds this")
    a = p.parse_args()
    mpi = lambda ranks: [a.mpiexec, a.np_flag, str(ranks)]
    # Open MPI's mpirun waits 1 s between SIGTERM and SIGKILL for the ranks of a job that exited
    # non-zero, twice: 2 s of every refused command. What a command prints and returns is the same
    # without that wait.
    os.environ.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # A finished run, whose folder no refused command may touch.
    good = os.path.join(work, "good")
    with open(os.path.join(work, "base.ini"), "w") as f:
        f.write(render(BASE))
    r = subprocess.run(mpi(1) + [a.undertow, "run", os.path.join(work, "base.ini"), "--set",
                                 "restart.every=2", "--output", good],
                       capture_output=True, text=True, timeout=TIME_LIMIT)
    if r.returncode != 0:
        print("FAILED: the run of the base case:\n" + r.stdout + r.stderr)
        return 1
    restarts = sorted(os.listdir(os.path.join(good, "restart")))
    restart = os.path.join(good, "restart", restarts[-1])
    with open(restart, "rb") as f:
        data = f.read()
    with open(os.path.join(work, "truncated.h5"), "wb") as f:
        f.write(data[: len(data) // 2])
    digest = tree_state(good)
    pristine = os.path.join(work, "good.pristine")
    shutil.copytree(good, pristine)

    cases = schema_cases(schema_keys(a.undertow, mpi)) + syntax_cases() + command_line_cases()
    cases = [c for c in cases if a.only in c.name]
    counts, defects = {}, []
    started = time.time()
    for n, case in enumerate(cases):
        folder = os.path.join(work, "cases", f"{n:03d}_{case.name}"[:80])
        os.makedirs(folder)
        for name, text in case.files.items():
            with open(os.path.join(folder, name), "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode())
        subst = {"case": os.path.join(folder, "case.ini"), "good": good, "work": work,
                 "restart": restart}
        args = [x.format(**subst) for x in case.args]
        if case.output == "good":
            args += ["--output", good]
        elif case.output == "fresh":
            args += ["--output", os.path.join(folder, "out")]
        command = mpi(case.ranks) + [a.undertow] + args
        try:
            r = subprocess.run(command, capture_output=True, timeout=TIME_LIMIT)
            code, out, err, timed_out = r.returncode, r.stdout, r.stderr, False
        except subprocess.TimeoutExpired as e:
            code, out, err, timed_out = -1, e.stdout or b"", e.stderr or b"", True
        out = out.decode(errors="replace")
        err = err.decode(errors="replace")
        # The error message: from the first line that says "error" to the end of what undertow
        # wrote (mpirun's own notices after it left out).
        lines = err.splitlines()
        first = next((i for i, l in enumerate(lines) if l.startswith("undertow: error")),
                     next((i for i, l in enumerate(lines) if "error" in l), len(lines)))
        errors = "\n".join(l for l in lines[first:] if not l.startswith(("---", "mpiexec",
                                                                         "Primary job")))
        outcome = classify(case, code, out + err, errors, timed_out)
        changes = tree_changes(digest, tree_state(good))
        if changes:
            # A refused command touched the finished run (an accepted one is a defect already).
            if outcome in ("clear error", "unclear", "run failed"):
                outcome = "modified"
                errors = "GOOD/: " + ", ".join(changes) + "\n" + errors
            shutil.rmtree(good)
            shutil.copytree(pristine, good)
        counts[outcome] = counts.get(outcome, 0) + 1
        shown = " ".join(("'" + x + "'" if " " in x or not x else x) for x in args)
        line = f"{outcome:12s} exit {code:3d}  np{case.ranks}  {case.name}"
        if outcome not in ("clear error", "ran", "run failed"):
            defects.append(f"{line}\n    undertow {shown[:300]}\n    "
                           + (errors or (out + err)[-600:]).strip()[:600])
        print(line + ("  | " + errors.splitlines()[0][:150] if errors else ""), flush=True)

    print(f"\nfuzz corpus: {len(cases)} commands in {time.time() - started:.0f} s")
    for outcome in ("clear error", "ran", "run failed", "unclear", "crash", "hang", "accepted",
                    "modified"):
        print(f"  {outcome:12s} {counts.get(outcome, 0)}")
    if defects:
        print("\nFAILED: defects:\n" + "\n".join(defects))
        return 1
    if len(cases) < 150 and not a.only:
        print(f"FAILED: the corpus has {len(cases)} commands, fewer than 150")
        return 1
    print("every command gave a clear error or ran correctly; no refused command touched GOOD/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
