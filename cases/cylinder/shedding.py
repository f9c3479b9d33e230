#!/usr/bin/env python3
"""Shedding figures of a cylinder run from its diagnostics.csv: C_D max, C_L max and the Strouhal
number St = f D / U over the last `--periods` lift periods, with the Schafer & Turek (1996)
benchmark 2D-2 values beside them, and what C_L max is made of: the centre of the lift's swing
((max + min) / 2) and half the swing over the same periods (C_L max = centre + half swing).
Exits 1 if the lift has not settled into a periodic signal.

Usage: python3 cases/cylinder/shedding.py OUTPUT_DIR/diagnostics.csv [--periods 5]
       [--length 0.1] [--velocity 1.0] [--body 1]
"""
import argparse
import csv
import sys

REFERENCE = {"C_D max": 3.2225, "C_L max": 1.0, "St": 0.3}  # 2D-2 (ranges: 3.22-3.24, 0.99-1.01, 0.295-0.305)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--periods", type=int, default=5)
    parser.add_argument("--length", type=float, default=0.1, help="reference length D [m]")
    parser.add_argument("--velocity", type=float, default=1.0, help="reference velocity U [m/s]")
    parser.add_argument("--body", type=int, default=1)
    args = parser.parse_args()
    with open(args.csv) as f:
        rows = list(csv.DictReader(f))
    cx, cy = f"Cx_{args.body}", f"Cy_{args.body}"
    if not rows or cx not in rows[0] or cy not in rows[0]:
        sys.exit(f"{args.csv}: no columns {cx}, {cy}; is it a Navier-Stokes run with an obstacle?")
    t = [float(r["time"]) for r in rows]
    cd = [float(r[cx]) for r in rows]
    cl = [float(r[cy]) for r in rows]
    # Upward zero crossings of the lift, linearly interpolated.
    up = [t[i - 1] + (t[i] - t[i - 1]) * (-cl[i - 1]) / (cl[i] - cl[i - 1])
          for i in range(1, len(t)) if cl[i - 1] < 0.0 <= cl[i]]
    if len(up) < args.periods + 1:
        print(f"only {max(0, len(up) - 1)} lift periods in the record; run longer (time.t_end)")
        return 1
    window = up[-(args.periods + 1):]
    periods = [b - a for a, b in zip(window, window[1:])]
    period = sum(periods) / len(periods)
    spread = (max(periods) - min(periods)) / period
    inside = [i for i in range(len(t)) if window[0] <= t[i] <= window[-1]]
    found = {"C_D max": max(cd[i] for i in inside), "C_L max": max(cl[i] for i in inside),
             "St": args.length / (period * args.velocity)}
    print(f"last {args.periods} lift periods, t = {window[0]:.3f} .. {window[-1]:.3f}, "
          f"period {period:.4f} (spread {100 * spread:.2f}%)")
    for key, value in found.items():
        ref = REFERENCE[key]
        print(f"  {key:8s} {value:8.4f}   benchmark {ref:6.4f}   difference {100 * (value / ref - 1):+6.1f}%")
    cl_min = min(cl[i] for i in inside)
    print(f"  C_L min  {cl_min:8.4f}   swing centre {(found['C_L max'] + cl_min) / 2:+.4f}, "
          f"half swing {(found['C_L max'] - cl_min) / 2:.4f}")
    if spread > 0.02:
        print("the lift is not yet periodic (periods differ by more than 2%); run longer")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
