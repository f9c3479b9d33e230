"""Checks what cases/cylinder/insitu_vorticity.py wrote in situ during a short cylinder run:

  - a PNG and a wake CSV at every step the run also wrote a field snapshot (the test sets
    fields.every = catalyst.every), and at no other;
  - the images are not blank (pixel variance), with the colours where the flow puts them: red
    and blue (the two shear layers of opposite vorticity) in the wake behind the cylinder,
    neutral on the centre line upstream of it;
  - the wake CSV equals the HDF5 snapshot of the same step, cell by cell (the probe line takes
    each cell's value);
  - with a reference folder (the run on 1 rank): every image agrees with its reference within a
    small per-pixel tolerance;
  - with --street (a run long enough to shed): the vortex street in the last image, vortices of
    alternating sign along the wake's centre line downstream of the cylinder.

Usage: pvpython check_cylinder.py RUN_DIR NX NY [REFERENCE_RUN_DIR] [--street]
(NX NY = 0 0: a stretched grid, whose cell faces the check reads from RUN_DIR/fields.xmf.)
"""
import bisect
import csv
import glob
import math
import os
import re
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile
from vtkmodules.vtkIOImage import vtkPNGReader
from vtkmodules.util.numpy_support import vtk_to_numpy

street = "--street" in sys.argv
args = [a for a in sys.argv[1:] if a != "--street"]
run_dir, nx, ny = args[0], int(args[1]), int(args[2])
reference = args[3] if len(args) > 3 else None
length = (2.2, 0.41)
failures = []


def steps(pattern):
    return sorted(int(re.search(r"_(\d+)\.", os.path.basename(f)).group(1))
                  for f in glob.glob(os.path.join(run_dir, pattern)))


def image(path):
    reader = vtkPNGReader()
    reader.SetFileName(path)
    reader.Update()
    data = reader.GetOutput()
    w, h, _ = data.GetDimensions()
    pixels = vtk_to_numpy(data.GetPointData().GetScalars()).astype(float)
    return pixels.reshape(h, w, -1)[:, :, :3]  # row 0 is the bottom of the picture


def region(pixels, x0, x1, y0, y1):
    h, w, _ = pixels.shape
    return pixels[int(y0 / length[1] * h):int(y1 / length[1] * h),
                  int(x0 / length[0] * w):int(x1 / length[0] * w)].reshape(-1, 3)


snapshots = steps("fields/fields_*.h5")
pngs, csvs = steps("insitu/vorticity_*.png"), steps("insitu/wake_*.csv")
if not snapshots or pngs != snapshots or csvs != snapshots:
    failures.append(f"steps: snapshots {snapshots}, images {pngs}, wake CSVs {csvs}")

for step in pngs:
    pixels = image(os.path.join(run_dir, "insitu", f"vorticity_{step:06d}.png"))
    grey = pixels.mean(axis=2)
    if grey.var() < 20.0:
        failures.append(f"step {step}: the image is blank (pixel variance {grey.var():.1f})")
    if step == pngs[-1]:
        wake = region(pixels, 0.22, 0.45, 0.10, 0.31)
        red = ((wake[:, 0] > 170) & (wake[:, 2] < 110)).sum()
        blue = ((wake[:, 2] > 170) & (wake[:, 0] < 110)).sum()
        upstream = region(pixels, 0.02, 0.08, 0.19, 0.22)
        tint = abs(upstream[:, 0] - upstream[:, 2]).max()
        print(f"step {step}: {red} red and {blue} blue pixels in the wake, upstream tint {tint}")
        if red < 200 or blue < 200:
            failures.append(f"step {step}: the wake lacks its two shear layers ({red} red, "
                            f"{blue} blue pixels)")
        if tint > 60:
            failures.append(f"step {step}: the centre line upstream is not neutral ({tint})")
    if street and step == pngs[-1]:
        # Along y = 0.2 from x = 0.5 to 1.8: columns whose band |y - 0.2| < 0.08 is mostly red
        # or mostly blue; the street makes runs of alternating colour.
        h, w, _ = pixels.shape
        band = pixels[int(0.12 / length[1] * h):int(0.28 / length[1] * h)]
        colours = []
        for x in range(int(0.5 / length[0] * w), int(1.8 / length[0] * w)):
            column = band[:, x]
            red = ((column[:, 0] > 170) & (column[:, 2] < 110)).sum()
            blue = ((column[:, 2] > 170) & (column[:, 0] < 110)).sum()
            if max(red, blue) > 0.1 * len(column):
                colour = "r" if red > blue else "b"
                if not colours or colours[-1] != colour:
                    colours.append(colour)
        print(f"step {step}: the wake's centre line shows vortices of sign {''.join(colours)}")
        if len(colours) < 4:
            failures.append(f"step {step}: no vortex street behind the cylinder (vortex signs "
                            f"along the wake: '{''.join(colours)}', expected at least 4 "
                            "alternating)")
    if reference:
        ref = image(os.path.join(reference, "insitu", f"vorticity_{step:06d}.png"))
        if ref.shape != pixels.shape:
            failures.append(f"step {step}: image size {pixels.shape} vs reference {ref.shape}")
            continue
        diff = abs(pixels - ref)
        worst, mean = diff.max(), diff.mean()
        print(f"step {step}: against 1 rank, per-pixel difference max {worst:.0f}, mean "
              f"{mean:.4f} (of 255)")
        if worst > 8 or mean > 0.1:
            failures.append(f"step {step}: differs from the 1-rank image (per-pixel max "
                            f"{worst:.0f} > 8 or mean {mean:.3f} > 0.1)")

# The wake CSV against the HDF5 snapshot of the same step.
reader = OpenDataFile(os.path.join(run_dir, "fields.xmf"))
times = list(reader.TimestepValues)
if nx == 0:  # stretched: the faces of the first grid's rectilinear geometry (VXVY)
    with open(os.path.join(run_dir, "fields.xmf")) as f:
        geometry = re.search(r'GeometryType="VXVY">(.*?)</Geometry>', f.read(), re.S).group(1)
    faces = [[float(v) for v in item.split()]
             for item in re.findall(r"<DataItem[^>]*>([^<]*)</DataItem>", geometry)]
    nx, ny = len(faces[0]) - 1, len(faces[1]) - 1
else:
    faces = [[length[0] * i / nx for i in range(nx + 1)], [length[1] * j / ny for j in range(ny + 1)]]
for index, step in enumerate(snapshots):
    reader.UpdatePipeline(times[index])
    data = servermanager.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    cells = data.GetCellData()
    worst, compared = 0.0, 0
    with open(os.path.join(run_dir, "insitu", f"wake_{step:06d}.csv")) as f:
        for row in csv.DictReader(f):
            if row["vtkValidPointMask"] != "1":
                continue
            x, y = float(row["Points:0"]), float(row["Points:1"])
            i = min(bisect.bisect_right(faces[0], x) - 1, nx - 1)
            j = min(bisect.bisect_right(faces[1], y) - 1, ny - 1)
            cell = i + nx * j
            for name, array, component in (("vorticity", "vorticity", 0),
                                           ("pressure", "pressure", 0),
                                           ("velocity:0", "velocity_x", 0),
                                           ("velocity:1", "velocity_y", 0)):
                expected = cells.GetArray(array).GetComponent(cell, component)
                worst = max(worst, abs(float(row[name]) - expected) / (1.0 + abs(expected)))
                compared += 1
    print(f"step {step}: wake CSV against the HDF5 snapshot, {compared} values, largest "
          f"relative difference {worst:.2e}")
    if compared < 4 * 300 or worst > 1e-12:
        failures.append(f"step {step}: wake CSV differs from the HDF5 snapshot ({worst:.2e} "
                        f"over {compared} values)")

if failures:
    sys.exit("\n".join(failures))
print(f"in-situ output of {run_dir}: {len(pngs)} images and wake profiles, all checks passed")
