"""Figures of an open-loop control optimisation (`undertow optimize` with design.parameterisation
= control): the uncontrolled flow (the first evaluation, x0) against the optimised one (the
evaluation of the last iterate), from <output>/evaluations/*/diagnostics.csv, history.csv and
config.ini. Prints the mean drag coefficient, the RMS of the lift coefficient about its mean,
and the actuation's RMS and peak relative to the mean inflow velocity (for jets also each jet's
flux over the inflow's flux through the body's cross-section, Rabault et al.'s measure); writes
control.png:
C_D(t) and C_L(t) controlled against uncontrolled, and the actuation A(t); and vorticity.png,
the vorticity of the final design's flow at the end of the horizon (flow/fields/, with the body's
mask).

    /usr/bin/python3 cases/flow_control/plot_control.py runs/rabault_open_loop [--body 1]

With --runs, compares two `undertow run` outputs instead (e.g. a trained feedback policy against
no actuation from the same restart file), each with its diagnostics.csv, writing control.png into
the second:

    /usr/bin/python3 cases/flow_control/plot_control.py --runs runs/uncontrolled runs/feedback_test

The actuation is read from the diagnostics' actuator column (obstacle1.jet [m/s],
obstacle1.rotation [rad/s]) where the run wrote one; older runs' signals are rebuilt from
config.ini. Needs Debian's python3-matplotlib and python3-h5py (jobs/quickstart.sh installs them). Signals of kind
piecewise_constant, piecewise_linear and fourier are drawn.
"""

import argparse
import configparser
import csv
import math
import os
import sys


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def signal(kind, values, start, end, period, t):
    """a(t) of a control signal (solvers/control/time_signal.hpp)."""
    n = len(values)
    if kind == "fourier":
        w = 2 * math.pi * t / period
        return values[0] + sum(values[2 * k - 1] * math.cos(k * w) + values[2 * k] * math.sin(k * w)
                               for k in range(1, (n - 1) // 2 + 1))
    if kind == "piecewise_constant":
        x = min(max((t - start) / (end - start) * n, 0.0), n)
        return values[min(int(x), n - 1)]
    if kind == "piecewise_linear":
        x = min(max((t - start) / (end - start) * (n - 1), 0.0), n - 1)
        j = min(int(x), n - 2)
        return values[j] * (1 - (x - j)) + values[j + 1] * (x - j)
    raise SystemExit(f"plot_control.py draws piecewise and fourier signals, not {kind}")


def stats(d, body):
    cd, cl = d[f"Cx_{body}"], d[f"Cy_{body}"]
    mean_cd = sum(cd) / len(cd)
    mean_cl = sum(cl) / len(cl)
    rms_cl = math.sqrt(sum((c - mean_cl) ** 2 for c in cl) / len(cl))
    return mean_cd, mean_cl, rms_cl


def actuator_column(d):
    """The diagnostics' first actuator column, e.g. obstacle1.jet, or None."""
    for key in d:
        if key.endswith(".jet") or key.endswith(".rotation"):
            return key
    return None


def jet_flux_ratio(get, body):
    """Q / (V Q_ref): each jet's flux Q = V R width 2 / pi (docs/control.md) over the inflow's
    flux through the body's cross-section, Q_ref = int U(y) dy over y_c - R .. y_c + R
    (Rabault et al.'s normalisation), per m/s of the jets' peak velocity V."""
    o = f"obstacle{body}"
    radius = float(get(f"{o}.radius", "0"))
    width = math.radians(float(get(f"{o}.jet_width", "10")))
    centre = [float(v) for v in get(f"{o}.centre", "0 0").replace(",", " ").split()]
    peak = float(get("boundary.x_lo_velocity", "1 0").replace(",", " ").split()[0])
    lengths = [float(v) for v in get("domain.length", "1 1").replace(",", " ").split()]
    origin = [float(v) for v in get("domain.origin", "0 0").replace(",", " ").split()]
    lo, hi = centre[1] - radius, centre[1] + radius
    if get("boundary.x_lo_profile", "uniform") == "parabolic":
        h, y0 = lengths[1], origin[1]

        def primitive(y):  # int 4 peak (y - y0)(h - y + y0) / h^2 dy
            s = y - y0
            return 4 * peak * (h * s * s / 2 - s ** 3 / 3) / (h * h)

        q_ref = primitive(hi) - primitive(lo)
    else:
        q_ref = peak * (hi - lo)
    return radius * width * 2 / math.pi / q_ref if q_ref > 0 else float("nan")


def compare(before, after, body, what, t, amplitude, out, footer, flux_ratio=None):
    """Prints the table of mean C_D, mean C_L, RMS C_L and the actuation; writes control.png."""
    unit = "m/s" if what == "jet" else "rad/s"
    rows = []
    for label, d in (("uncontrolled", before), ("controlled", after)):
        rows.append((label,) + stats(d, body))
    print(f"{'':14s} {'mean C_D':>10s} {'mean C_L':>10s} {'RMS C_L':>10s}")
    for label, mean_cd, mean_cl, rms_cl in rows:
        print(f"{label:14s} {mean_cd:10.5f} {mean_cl:10.5f} {rms_cl:10.5f}")
    print(f"change         {100 * (rows[1][1] / rows[0][1] - 1):+9.2f}% "
          f"{'':10s} {100 * (rows[1][3] / rows[0][3] - 1):+9.2f}%")
    rms_a = math.sqrt(sum(a * a for a in amplitude) / len(amplitude))
    peak_a = max(abs(a) for a in amplitude)
    print(f"actuation {what}: RMS {rms_a:.4g} {unit}, peak {peak_a:.4g} {unit}"
          + (" (relative to the mean inflow velocity 1 m/s)" if what == "jet" else ""))
    if what == "jet" and flux_ratio is not None:
        print(f"jet flux Q / Q_ref (the inflow through the body's cross-section): RMS "
              f"{100 * rms_a * flux_ratio:.3g}%, peak {100 * peak_a * flux_ratio:.3g}%")
    if footer:
        print(footer)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for d, label in ((before, "uncontrolled"), (after, "controlled")):
        axes[0].plot(d["time"], d[f"Cx_{body}"], label=label, lw=1)
        axes[1].plot(d["time"], d[f"Cy_{body}"], label=label, lw=1)
    axes[0].set_ylabel("C_D")
    axes[1].set_ylabel("C_L")
    axes[0].legend()
    axes[2].plot(t, amplitude, color="k", lw=1)
    axes[2].set_ylabel(f"{what} {'velocity' if what == 'jet' else 'rate'} [{unit}]")
    axes[2].set_xlabel("t [s]")
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out, "control.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


def config_getter(out):
    config = configparser.ConfigParser()
    config.read(os.path.join(out, "config.ini"))

    def get(key, default=None):
        section, name = key.split(".", 1)
        if config.has_option(section, name):
            return config.get(section, name).split("#")[0].strip()
        return default

    return get


def compare_runs(first, second, body):
    paths = [os.path.join(r, "diagnostics.csv") for r in (first, second)]
    for path in paths:
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: the case needs [diagnostics] (every) for its series")
    before, after = read_csv(paths[0]), read_csv(paths[1])
    column = actuator_column(after)
    if column is None:
        sys.exit(f"{paths[1]} has no actuator column (obstacleK.jet or .rotation)")
    get = config_getter(second)
    compare(before, after, body, column.split(".")[1], after["time"], after[column], second, "",
            jet_flux_ratio(get, body))
    vorticity_frame(second, get)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("output", nargs="+")
    parser.add_argument("--runs", action="store_true",
                        help="compare two run outputs: uncontrolled, controlled")
    parser.add_argument("--body", type=int, default=1)
    args = parser.parse_args()
    if args.runs:
        if len(args.output) != 2:
            sys.exit("--runs takes two run outputs: the uncontrolled one, then the controlled one")
        compare_runs(args.output[0], args.output[1], args.body)
        return
    out = args.output[0]
    history = read_csv(os.path.join(out, "history.csv"))
    if not history:
        sys.exit(f"{out}/history.csv is empty: has the optimisation finished an iteration?")
    last = int(history["flow_solves"][-1])
    first_csv = os.path.join(out, "evaluations", "0001", "diagnostics.csv")
    last_csv = os.path.join(out, "evaluations", f"{last:04d}", "diagnostics.csv")
    for path in (first_csv, last_csv):
        if not os.path.exists(path):
            sys.exit(f"{path} is missing: the case needs [diagnostics] (every) for its series")
    before, after = read_csv(first_csv), read_csv(last_csv)
    get = config_getter(out)
    column = actuator_column(after)
    t = after["time"]
    if column is not None:
        what, amplitude = column.split(".")[1], after[column]
    else:  # a run before the diagnostics recorded the actuation: rebuild the signal
        names = [k for k in history if "_signal_" in k]
        prefix = names[0].rsplit("_signal_", 1)[0]  # obstacle1.jet or obstacle1.rotation
        section, what = prefix.split(".")
        scale_key = f"{section}.{what}_velocity" if what == "jet" else f"{section}.{what}_rate"
        scale = float(get(scale_key, "1"))
        kind = get(f"{prefix}_signal", "constant")
        interval = [float(v) for v in
                    get(f"{prefix}_signal_interval", "0 1").replace(",", " ").split()]
        period = float(get(f"{prefix}_signal_period", "1"))
        final = [history[f"{prefix}_signal_{j}"][-1] for j in range(len(names))]
        amplitude = [scale * signal(kind, final, interval[0], interval[1], period, s) for s in t]
    compare(before, after, args.body, what, t, amplitude, out,
            f"flow solves: {last} evaluations (each a forward run and an adjoint sweep)",
            jet_flux_ratio(get, args.body))
    vorticity_frame(out, get)


def vorticity_frame(out, get):
    """vorticity.png: the last flow/fields/ file's vorticity (cell centres) with the mask."""
    import glob

    import h5py
    import matplotlib.pyplot as plt

    # optimize writes the designs' flows under flow/, run its fields directly.
    files = sorted(glob.glob(os.path.join(out, "flow", "fields", "*.h5")) or
                   glob.glob(os.path.join(out, "fields", "*.h5")))
    if not files:
        print("no flow/fields/*.h5 or fields/*.h5: no vorticity frame")
        return
    with h5py.File(files[-1], "r") as f:
        omega, mask = f["vorticity"][()], f["mask"][()]
    length = [float(v) for v in get("domain.length", "1 1").replace(",", " ").split()]
    extent = [0, length[0], 0, length[1]]
    fig, ax = plt.subplots(figsize=(10, 2.4))
    limit = max(1e-12, float(abs(omega).max()) * 0.5)
    ax.imshow(omega, origin="lower", extent=extent, cmap="RdBu_r", vmin=-limit, vmax=limit)
    ax.contour(mask, levels=[0.5], colors="k", linewidths=0.8, origin="lower", extent=extent)
    ax.set_title("vorticity at the end of the run [1/s]")
    ax.set_aspect("equal")
    fig.tight_layout()
    path = os.path.join(out, "vorticity.png")
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
