#!/usr/bin/env python3
"""Figures of the DFG benchmark 2D-3 (time-varying inflow) from a run's diagnostics.csv: the
largest drag and lift coefficients with their times, and the pressure difference between the
front and the back of the cylinder at t = 8, beside the reference values of John (2004) and the
ranges of Schafer & Turek (1996). Exits 1 if the record does not reach t = 8.

Usage: python3 cases/cylinder/transient.py OUTPUT_DIR/diagnostics.csv [--body 1]
"""
import argparse
import csv
import sys

# John, Int. J. Numer. Meth. Fluids 44 (2004) 777-788, and Schafer & Turek (1996)'s ranges.
REFERENCE = {
    "C_D max": (2.950921575, 3.93625, (2.93, 2.97)),
    "C_L max": (0.47795, 5.693125, (0.47, 0.49)),
    "dp(t = 8)": (-0.1116, 8.0, (-0.115, -0.105)),
}


def peak(t, values):
    """The largest value and its time, refined by the parabola through the sample's
    neighbours."""
    i = max(range(len(values)), key=lambda k: values[k])
    if 0 < i < len(values) - 1:
        # p(t) = y0 + d1 (t - t0) + c (t - t0)(t - t1); p'(t1) = d1 + c (t1 - t0).
        (t0, t1, t2), (y0, y1, y2) = t[i - 1:i + 2], values[i - 1:i + 2]
        d1, d2 = (y1 - y0) / (t1 - t0), (y2 - y1) / (t2 - t1)
        c = (d2 - d1) / (t2 - t0)
        if c < 0:
            b = d1 + c * (t1 - t0)
            return y1 - b * b / (4 * c), t1 - b / (2 * c)
    return values[i], t[i]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--body", type=int, default=1)
    args = parser.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    needed = [f"Cx_{args.body}", f"Cy_{args.body}", "pressure_drop"]
    if not rows or any(c not in rows[0] for c in needed):
        sys.exit(f"{args.csv}: needs the columns {', '.join(needed)} (an obstacle and "
                 "diagnostics.pressure_probes)")
    t = [float(r["time"]) for r in rows]
    if t[-1] < 8.0 - 1e-9:
        print(f"the record ends at t = {t[-1]:.4f}; 2D-3 needs t_end = 8")
        return 1
    measured = {
        "C_D max": peak(t, [float(r[needed[0]]) for r in rows]),
        "C_L max": peak(t, [float(r[needed[1]]) for r in rows]),
        "dp(t = 8)": (float(rows[-1]["pressure_drop"]), t[-1]),
    }
    print(f"{'':10s} {'measured':>10s} {'at t':>8s} {'reference':>10s} {'at t':>8s} "
          f"{'error':>8s}  range (Schafer & Turek)")
    for name, (value, when) in measured.items():
        ref, ref_t, (lo, hi) = REFERENCE[name]
        inside = "inside" if lo <= value <= hi else "outside"
        print(f"{name:10s} {value:10.5f} {when:8.4f} {ref:10.5f} {ref_t:8.4f} "
              f"{100 * (value - ref) / abs(ref):+7.2f}%  [{lo}, {hi}] {inside}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
