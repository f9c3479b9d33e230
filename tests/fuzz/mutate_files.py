#!/usr/bin/env python3
"""The mutation test of undertow's restart and checkpoint files (issue 20, docs/reliability.md).

A restart file (`run --restart`) and a gradient's checkpoint file (`gradient --resume`) are
damaged one way at a time: bits flipped in every attribute and every dataset, each attribute
removed, the file truncated at several lengths. Each damaged file must be

  refused     exit 2 (a restart file, read before the run starts) or 3 (a checkpoint slot, read
              when the sweep needs it), with an error that names the file; or
  harmless    the command succeeds with bitwise the result of the undamaged file
              (the state checksum, time and steps of a run; J and every derivative of a gradient).

Anything else (a crash, a hang, another exit code, a different result) is a defect. Prints every
mutation with its outcome and the counts; exits 1 on a defect.

usage: mutate_files.py --undertow EXE --h5-edit TOOL --mpiexec MPIEXEC --work DIR [--np-flag -n]
                       [--only restart|checkpoint]
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

TIME_LIMIT = 120  # seconds per command

# A 16x16 lid-driven cavity: 20 steps, a restart file after 6 of them.
RUN_CASE = """[case]
model = navier_stokes
[domain]
cells = 16 16
[fluid]
nu = 0.01
[boundary]
x_lo = wall
x_hi = wall
y_lo = wall
y_hi = wall
y_hi_velocity = 1 0
[time]
t_end = 0.4
dt = 0.02
[objective]
terms = kinetic_energy
[output]
progress_every = 0
"""

# The same cavity for a gradient with checkpoints on disk, long enough to be stopped by SIGTERM
# in its reverse sweep.
GRADIENT_SETTINGS = ["--set", "domain.cells=16,16", "--set", "time.t_end=1.0", "--set",
                     "time.dt=0.01", "--set", "checkpoint.schedule=multistage", "--set",
                     "checkpoint.ram_slots=2", "--set", "checkpoint.disk_slots=3", "--set",
                     "checkpoint.resume_every=0", "--set", "adjoint.fields=false", "--set",
                     "output.progress_every=10"]


def run(command, **kw):
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=TIME_LIMIT, **kw)
        return r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"(killed after {TIME_LIMIT} s, the limit per command)"


def items(h5_edit, path):
    """(kind, object, attribute name or "-", bytes) of every attribute and dataset of `path`."""
    code, out, err = run([h5_edit, path, "list"])
    if code != 0:
        raise SystemExit(f"FAILED: h5_edit list {path}: {err}")
    found = []
    for line in out.splitlines():
        words = line.split()
        if words[0] == "attribute":
            found.append(("attribute", words[1], words[2], int(words[3])))
        else:
            found.append(("dataset", words[1], "-", int(words[2])))
    return found


def mutations(found):
    """The damage done to one file, each a (label, how) pair: ("flip", object, name, byte, mask),
    ("delete", object, name) or ("truncate", fraction or bytes)."""
    out = []
    for kind, obj, name, size in found:
        what = f"{obj}:{name}" if kind == "attribute" else obj
        if size == 0:
            continue
        if kind == "dataset" or size == 8:  # numbers: the last bit of the first value, and the
            # sign of the last value (its eighth byte)
            out.append((f"flip {what} first value, lowest bit", ("flip", obj, name, 0, 1)))
            out.append((f"flip {what} last value, sign bit", ("flip", obj, name, size - 1, 0x80)))
        else:  # text: a character at the start, in the middle and at the end
            for at in sorted({0, size // 2, max(size - 2, 0)}):
                out.append((f"flip {what} character {at}", ("flip", obj, name, at, 1)))
        if kind == "attribute":
            out.append((f"delete {what}", ("delete", obj, name)))
        if kind == "dataset" and obj.endswith("/state") and size >= 32:
            # A checkpoint slot's state: (step, checksum) per rank. The same step on every
            # rank, changed alike, is what a reader cannot tell from the real one.
            out.append((f"flip {what} every rank's step, lowest bit",
                        ("flip-each", obj, name, 16, 1)))
    return out


def damage(h5_edit, path, how):
    if how[0] == "truncate":
        size = os.path.getsize(path)
        keep = how[1] if isinstance(how[1], int) else int(size * how[1])
        with open(path, "r+b") as f:
            f.truncate(min(keep, size - 1))
        return True
    if how[0] == "flip-each":  # the byte at 0, stride, 2 * stride, ... of the raw value
        _, obj, name, stride, mask = how
        size = next(s for k, o, n, s in items(h5_edit, path) if o == obj and n == name)
        return all(run([h5_edit, path, "flip", obj, name, str(at), str(mask)])[0] == 0
                   for at in range(0, size, stride))
    command = [h5_edit, path, how[0], how[1], how[2]] + [str(x) for x in how[3:]]
    return run(command)[0] == 0


TRUNCATIONS = [("truncate to 0 bytes", ("truncate", 0)), ("truncate to 512 bytes", ("truncate", 512)),
               ("truncate to 1/4", ("truncate", 0.25)), ("truncate to 1/2", ("truncate", 0.5)),
               ("truncate to 3/4", ("truncate", 0.75)), ("truncate by 1 byte", ("truncate", 1.0))]


def verdict(code, err, path, same, refusals):
    """refused (an exit code of `refusals` and an error naming the file), harmless, or the
    defect."""
    if code is None:
        return "hang"
    errors = "\n".join(l for l in err.splitlines() if "error" in l)
    if code in refusals:
        return "refused" if os.path.basename(path) in errors else "unclear"
    if code == 0:
        return "harmless" if same() else "different result"
    return f"exit {code}"


def restart_part(a, mpi, work, counts, defects):
    """Every mutation of a restart file, continued with `run --restart` on 1 rank."""
    case = os.path.join(work, "cavity.ini")
    code, out, err = run(mpi(1) + [a.undertow, "run", case, "--set", "restart.at_step=6",
                                   "--output", os.path.join(work, "first")])
    if code != 0:
        raise SystemExit("FAILED: the run that writes the restart file:\n" + out + err)
    restart = os.path.join(work, "first", "restart", "restart_000000006.h5")

    def continued(path, name):
        report = os.path.join(work, name + ".json")
        code, out, err = run(mpi(1) + [a.undertow, "run", case, "--restart", path, "--output",
                                       os.path.join(work, name), "--report", report])
        figures = None
        if code == 0:
            with open(report) as f:
                r = json.load(f)
            f = r["figures"]
            figures = (f["state_checksum"], repr(f["time"]), f["steps"])
        return code, err, figures

    code, err, reference = continued(restart, "reference")
    if code != 0:
        raise SystemExit("FAILED: the run continued from the intact restart file:\n" + err)
    found = items(a.h5_edit, restart)
    print(f"restart file: {len(found)} attributes and datasets")
    for n, (label, how) in enumerate(mutations(found) + TRUNCATIONS):
        damaged = os.path.join(work, f"restart_{n:03d}.h5")
        shutil.copyfile(restart, damaged)
        if not damage(a.h5_edit, damaged, how):
            defects.append(f"restart file, {label}: h5_edit could not make it")
            continue
        code, err, figures = continued(damaged, f"continued_{n:03d}")
        outcome = verdict(code, err, damaged, lambda: figures == reference, (2,))
        record("restart file", label, outcome, err, counts, defects)


def record(part, label, outcome, err, counts, defects):
    counts[outcome] = counts.get(outcome, 0) + 1
    first = next((l for l in err.splitlines() if l.startswith("undertow: error")), "")
    print(f"  {outcome:16s} {label:60s} {first[:110]}", flush=True)
    if outcome not in ("refused", "harmless"):
        defects.append(f"{part}, {label}: {outcome}\n{err[-800:]}")


def gradient_result(path):
    """J and every derivative, as printed (17 significant digits)."""
    with open(path) as f:
        text = f.read()
    block = re.search(r'"gradient": \{[^}]*\}', text)
    objective = re.findall(r'"objective": [^,\n]*', text)
    return (block.group(0) if block else None, objective)


def checkpoint_part(a, mpi, work, counts, defects):
    """Every mutation of the checkpoint file of a gradient stopped by SIGTERM in its reverse
    sweep, continued with `gradient --resume` on `a.ranks` ranks."""
    case = os.path.join(work, "cavity.ini")
    ranks = a.ranks
    code, out, err = run(mpi(ranks) + [a.undertow, "gradient", case] + GRADIENT_SETTINGS +
                         ["--output", os.path.join(work, "gradient_reference"), "--report",
                          os.path.join(work, "gradient_reference.json")])
    if code != 0:
        raise SystemExit("FAILED: the uninterrupted gradient:\n" + out + err)
    reference = gradient_result(os.path.join(work, "gradient_reference.json"))
    if reference[0] is None:
        raise SystemExit("FAILED: no gradient in the reference report")

    # The run to stop: SIGTERM to every rank once its reverse sweep is under way, as a batch
    # system's time limit sends it.
    stopped = os.path.join(work, "stopped")
    log = os.path.join(work, "stopped.log")
    with open(log, "w") as f:
        job = subprocess.Popen(mpi(ranks) + [a.undertow, "gradient", case] + GRADIENT_SETTINGS +
                               ["--output", stopped], stdout=f, stderr=subprocess.STDOUT,
                               start_new_session=True)
    deadline = time.time() + TIME_LIMIT
    while time.time() < deadline and job.poll() is None:
        with open(log) as f:
            if re.search(r"reverse, step \d+ of", f.read()):
                break
        time.sleep(0.02)
    subprocess.run(["pkill", "-TERM", "-s", str(job.pid), "-x", "undertow"])
    job.wait(timeout=TIME_LIMIT)
    with open(log) as f:
        text = f.read()
    checkpoints = os.path.join(stopped, "gradient_checkpoints.h5")
    if job.returncode != 75 or not os.path.exists(checkpoints):
        raise SystemExit(f"FAILED: the gradient was not stopped by SIGTERM with a checkpoint file "
                         f"(exit {job.returncode}):\n{text[-1500:]}")
    print("stopped: " + next((l for l in text.splitlines() if "stopped by SIGTERM" in l), "")[:160])

    def resumed(folder, name):
        report = os.path.join(work, name + ".json")
        code, out, err = run(mpi(ranks) + [a.undertow, "gradient", case] + GRADIENT_SETTINGS +
                             ["--output", folder, "--resume", folder, "--report", report])
        return code, err, (gradient_result(report) if code == 0 else None)

    intact = os.path.join(work, "resumed_intact")
    shutil.copytree(stopped, intact)
    code, err, result = resumed(intact, "resumed_intact")
    if code != 0 or result != reference:
        raise SystemExit(f"FAILED: the gradient resumed from the intact file (exit {code}) is not "
                         f"the uninterrupted one:\n{err}")
    found = items(a.h5_edit, checkpoints)
    print(f"checkpoint file: {len(found)} attributes and datasets")
    for n, (label, how) in enumerate(mutations(found) + TRUNCATIONS):
        folder = os.path.join(work, f"resumed_{n:03d}")
        shutil.copytree(stopped, folder)
        damaged = os.path.join(folder, "gradient_checkpoints.h5")
        if not damage(a.h5_edit, damaged, how):
            defects.append(f"checkpoint file, {label}: h5_edit could not make it")
            continue
        code, err, result = resumed(folder, f"resumed_{n:03d}")
        # A restart file is read before the run starts (exit 2: bad input); a checkpoint slot
        # may be read hours into the sweep, where a damaged one fails the run (exit 3).
        outcome = verdict(code, err, damaged, lambda: result == reference, (2, 3))
        record("checkpoint file", label, outcome, err, counts, defects)
        shutil.rmtree(folder, ignore_errors=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--undertow", required=True)
    p.add_argument("--h5-edit", required=True)
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--np-flag", default="-n")
    p.add_argument("--work", required=True)
    p.add_argument("--only", choices=["restart", "checkpoint"], default=None)
    p.add_argument("--ranks", type=int, default=2, help="ranks of the checkpointed gradient")
    a = p.parse_args()
    # See fuzz_inputs.py: mpirun's 2 s wait after a non-zero exit changes nothing else.
    os.environ.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
    mpi = lambda ranks: [a.mpiexec, a.np_flag, str(ranks)]
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    with open(os.path.join(work, "cavity.ini"), "w") as f:
        f.write(RUN_CASE)
    counts, defects = {}, []
    started = time.time()
    if a.only in (None, "restart"):
        restart_part(a, mpi, work, counts, defects)
    if a.only in (None, "checkpoint"):
        checkpoint_part(a, mpi, work, counts, defects)
    total = sum(counts.values())
    print(f"\nmutations: {total} in {time.time() - started:.0f} s")
    for outcome in sorted(counts, key=lambda o: (o not in ("refused", "harmless"), o)):
        print(f"  {outcome:16s} {counts[outcome]}")
    if defects:
        print("\nFAILED: defects:\n" + "\n".join(defects))
        return 1
    print("every damaged file was refused with its name, or gave bitwise the undamaged result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
