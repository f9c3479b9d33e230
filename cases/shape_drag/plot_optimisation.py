"""Plots of an `undertow optimize` run: convergence.png (J and the gradient norm against the
design iteration) and shapes.png (the outlines of the initial, some intermediate and the final
design), from <output>/history.csv and <output>/shapes/. With --compare, optima.png: the final
outlines of several runs over each other, labelled with their final J.

    /usr/bin/python3 cases/shape_drag/plot_optimisation.py runs/quickstart
    /usr/bin/python3 cases/shape_drag/plot_optimisation.py --compare OUT.png DIR:LABEL DIR:LABEL ...

Needs Debian's python3-matplotlib (jobs/quickstart.sh installs it).
"""

import csv
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}


def main(out):
    history = read_csv(os.path.join(out, "history.csv"))
    if not history:
        sys.exit(f"{out}/history.csv has no iterations")
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].plot(history["iteration"], history["objective"], "o-")
    ax[0].set_xlabel("design iteration")
    ax[0].set_ylabel("objective J")
    ax[0].grid(True, alpha=0.3)
    ax[1].semilogy(history["iteration"], history["gradient_norm"], "s-",
                   label="|projected dJ/dx| (of the Lagrangian)")
    violation = history.get("constraint_violation", [])
    if any(v > 0 for v in violation):
        ax[1].semilogy(history["iteration"], violation, "^-", label="constraint violation")
    ax[1].set_xlabel("design iteration")
    ax[1].legend()
    ax[1].grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "convergence.png"), dpi=120)

    files = sorted(glob.glob(os.path.join(out, "shapes", "shape_*.csv")))
    picks = sorted({0, len(files) // 4, len(files) // 2, len(files) - 1}) if files else []
    fig, ax = plt.subplots(figsize=(7, 4))
    for i in picks:
        s = read_csv(files[i])
        x, y = s["x"] + s["x"][:1], s["y"] + s["y"][:1]
        label = os.path.basename(files[i])[6:-4].lstrip("0") or "0"
        ax.plot(x, y, lw=2 if i in (0, len(files) - 1) else 1, label=f"iteration {label}")
    ax.set_aspect("equal")
    ax.legend()
    ax.set_title("shape evolution (flow from the left)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "shapes.png"), dpi=120)


def compare(png, runs):
    """The initial outline of the first run and the final outline of each DIR:LABEL in `runs`."""
    fig, ax = plt.subplots(figsize=(8, 3.6))
    for k, run in enumerate(runs):
        out, _, label = run.partition(":")
        history = read_csv(os.path.join(out, "history.csv"))
        if k == 0:
            s = read_csv(os.path.join(out, "shapes", "shape_0000.csv"))
            ax.plot(s["x"] + s["x"][:1], s["y"] + s["y"][:1], "k:", lw=1,
                    label=f"initial, J = {history['objective'][0]:.4f}")
        s = read_csv(os.path.join(out, "shapes", "final.csv"))
        ax.plot(s["x"] + s["x"][:1], s["y"] + s["y"][:1], lw=2,
                label=f"{label or out}, J = {history['objective'][-1]:.4f}")
    ax.set_aspect("equal")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=3)
    ax.set_title("minimum-drag bodies of equal area (flow from the left)")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3:])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "runs/quickstart")
