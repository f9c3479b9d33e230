"""Opens a run's fields.xmf with ParaView's XDMF reader, as a user would, and checks that every
snapshot time is there and that each cell array has one value per cell of the grid.

Usage: pvpython tests/paraview/open_fields.py RUN_DIR NX NY [NZ]
"""
import os
import sys

from paraview import servermanager
from paraview.simple import OpenDataFile

run_dir = sys.argv[1]
cells = [int(n) for n in sys.argv[2:]]
dim = len(cells)
expected_arrays = ["velocity_x", "velocity_y"] + (["velocity_z"] if dim == 3 else []) + \
    ["pressure"] + (["vorticity"] if dim == 2 else ["vorticity_x", "vorticity_y", "vorticity_z"]) + \
    ["mask"]
snapshots = sorted(f for f in os.listdir(os.path.join(run_dir, "fields")) if f.endswith(".h5"))

reader = OpenDataFile(os.path.join(run_dir, "fields.xmf"))
if reader is None:
    sys.exit("ParaView found no reader for fields.xmf")
times = list(reader.TimestepValues) if reader.TimestepValues else []
if len(times) != len(snapshots):
    sys.exit(f"ParaView sees {len(times)} times, the run wrote {len(snapshots)} snapshots")
failures = []
for t in (times[0], times[-1]):
    reader.UpdatePipeline(t)
    data = servermanager.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    n_cells = 1
    for n in cells:
        n_cells *= n
    if data.GetNumberOfCells() != n_cells:
        failures.append(f"t = {t}: {data.GetNumberOfCells()} cells, expected {n_cells}")
    arrays = data.GetCellData()
    for name in expected_arrays:
        array = arrays.GetArray(name)
        if array is None:
            failures.append(f"t = {t}: no cell array '{name}'")
        elif array.GetNumberOfTuples() != n_cells:
            failures.append(f"t = {t}: '{name}' has {array.GetNumberOfTuples()} values")
if failures:
    sys.exit("\n".join(failures))
print(f"ParaView opened {len(times)} snapshots of {dim}D {'x'.join(map(str, cells))} cells with "
      f"arrays {', '.join(expected_arrays)}")
