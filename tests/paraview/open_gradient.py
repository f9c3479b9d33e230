"""Opens the sensitivity maps of `undertow gradient` (gradient.xmf) with ParaView's XDMF reader and
checks that each map has one finite value per cell and is not all zero.

Usage: pvpython tests/paraview/open_gradient.py OUTPUT_DIR NX NY [NZ]
"""
import math
import os
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile

out_dir = sys.argv[1]
cells = [int(n) for n in sys.argv[2:]]
dim = len(cells)
expected = [f"dJ_du_initial_{a}" for a in "xyz"[:dim]] + ["dJ_dchi"]

reader = OpenDataFile(os.path.join(out_dir, "gradient.xmf"))
if reader is None:
    sys.exit("ParaView found no reader for gradient.xmf")
reader.UpdatePipeline()
data = servermanager.Fetch(reader)
if data.IsA("vtkMultiBlockDataSet"):
    data = data.GetBlock(0)
n_cells = math.prod(cells)
failures = []
if data.GetNumberOfCells() != n_cells:
    failures.append(f"{data.GetNumberOfCells()} cells, expected {n_cells}")
for name in expected:
    array = data.GetCellData().GetArray(name)
    if array is None:
        failures.append(f"no cell array '{name}'")
        continue
    values = [array.GetValue(i) for i in range(array.GetNumberOfTuples())]
    if len(values) != n_cells:
        failures.append(f"'{name}' has {len(values)} values")
    if not all(math.isfinite(v) for v in values):
        failures.append(f"'{name}' has non-finite values")
    if max(abs(v) for v in values) == 0.0:
        failures.append(f"'{name}' is zero everywhere")
if failures:
    sys.exit("\n".join(failures))
print(f"ParaView opened gradient.xmf: {'x'.join(map(str, cells))} cells, arrays {', '.join(expected)}")
