"""Checks the images an in-situ pipeline wrote during a run (<RUN_DIR>/insitu/<PREFIX>_<n>.png):

  - one image at every expected step and at no other: --steps 0,1 or --like GLOB (the steps of
    the run's own files, e.g. fields/fields_*.h5: the test sets the same cadence for both), or
    --history (design iterations: 0 and those of history.csv), and the files --extract names
    (e.g. q_{step:06d}.pvtp) at the same steps;
  - no image is blank (pixel variance);
  - with --reference RUN_DIR (the same run on 1 rank), each image agrees with its reference:
    mean per-pixel difference <= --mean (of 255) and at most --off of the pixels differ by more
    than 16 levels.

Usage: pvpython check_images.py RUN_DIR PREFIX (--steps LIST | --like GLOB | --history)
                                [--extract PATTERN] [--reference DIR] [--mean M] [--off F]
"""
import argparse
import csv
import glob
import os
import re
import sys

from vtkmodules.vtkIOImage import vtkPNGReader
from vtkmodules.util.numpy_support import vtk_to_numpy

parser = argparse.ArgumentParser()
parser.add_argument("run_dir")
parser.add_argument("prefix")
parser.add_argument("--steps")
parser.add_argument("--like")
parser.add_argument("--history", action="store_true")
parser.add_argument("--extract")
parser.add_argument("--reference")
parser.add_argument("--mean", type=float, default=0.1)
parser.add_argument("--off", type=float, default=0.0)
a = parser.parse_args()
failures = []


def steps_of(pattern):
    return sorted({int(re.findall(r"(\d+)", os.path.splitext(os.path.basename(f))[0])[-1])
                   for f in glob.glob(os.path.join(a.run_dir, pattern))})


def image(path):
    reader = vtkPNGReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    w, h, _ = data.GetDimensions()
    return vtk_to_numpy(data.GetPointData().GetScalars()).astype(float).reshape(h, w, -1)[:, :, :3]


if a.steps:
    expected = sorted(int(s) for s in a.steps.split(","))
elif a.like:
    expected = steps_of(a.like)
else:
    with open(os.path.join(a.run_dir, "history.csv")) as f:
        expected = sorted({0} | {int(float(row["iteration"])) for row in csv.DictReader(f)})
found = steps_of(os.path.join("insitu", a.prefix + "_*.png"))
if not expected or found != expected:
    failures.append(f"images at steps {found}, expected {expected}")
if a.extract:
    missing = [s for s in expected
               if not os.path.exists(os.path.join(a.run_dir, "insitu", a.extract.format(step=s)))]
    if missing:
        failures.append(f"no extract {a.extract} at steps {missing}")

for step in found:
    name = f"{a.prefix}_{step:06d}.png"
    pixels = image(os.path.join(a.run_dir, "insitu", name))
    variance = pixels.mean(axis=2).var()
    if variance < 20.0:
        failures.append(f"{name} is blank (pixel variance {variance:.1f})")
    if a.reference:
        ref = image(os.path.join(a.reference, "insitu", name))
        if ref.shape != pixels.shape:
            failures.append(f"{name}: size {pixels.shape} against {ref.shape} on 1 rank")
            continue
        diff = abs(pixels - ref).max(axis=2)
        mean, off = diff.mean(), (diff > 16).mean()
        print(f"{name}: against 1 rank, per-pixel difference mean {mean:.4f} (of 255), "
              f"{100 * off:.3f} % of pixels above 16 levels, largest {diff.max():.0f}")
        if mean > a.mean or off > a.off:
            failures.append(f"{name} differs from the 1-rank image (mean {mean:.3f} > {a.mean} or "
                            f"{100 * off:.3f} % > {100 * a.off} % of pixels above 16 levels)")
if failures:
    sys.exit("\n".join(failures))
print(f"{len(found)} images {a.prefix}_*.png at steps {found}: all checks passed")
