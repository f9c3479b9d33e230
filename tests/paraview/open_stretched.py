"""Opens the fields.xmf of a run on a stretched grid (domain.box) with ParaView's XDMF reader and
checks that the cells sit where the run put them: the grid is rectilinear, its bounds are the
domain's, and its coordinates along every axis are the vertices the series lists (the stretched
faces), read inside the pipeline (a client-side Fetch of a rectilinear grid does not keep them).

Usage: pvpython tests/paraview/open_stretched.py RUN_DIR X0 X1 Y0 Y1
"""
import json
import os
import re
import sys

from paraview.simple import ProgrammableFilter, XDMFReader

run_dir = sys.argv[1]
box = [float(v) for v in sys.argv[2:6]]
text = open(os.path.join(run_dir, "fields.xmf")).read()
geometry = re.search(r'<Geometry GeometryType="VXVY">(.*?)</Geometry>', text, re.S)
if not geometry:
    sys.exit("fields.xmf has no VXVY geometry: not the series of a stretched 2D grid")
listed = [[float(v) for v in item.split()]
          for item in re.findall(r"<DataItem[^>]*>([^<]*)</DataItem>", geometry.group(1))]
cells = re.search(r"(\d+)x(\d+) cells", json.load(open(os.path.join(run_dir, "report.json")))["domain"])
nx, ny = int(cells.group(1)), int(cells.group(2))

reader = XDMFReader(FileNames=[os.path.join(run_dir, "fields.xmf")])
reader.UpdatePipeline()
info = reader.GetDataInformation()
failures = []
if info.GetDataSetTypeAsString() != "vtkRectilinearGrid":
    failures.append(f"ParaView made a {info.GetDataSetTypeAsString()}, not a vtkRectilinearGrid")
bounds = info.GetBounds()
if max([abs(bounds[i] - box[i]) for i in range(4)]) > 1e-12:
    failures.append(f"bounds {bounds[:4]}, expected {box}")
if info.GetNumberOfCells() != nx * ny:
    failures.append(f"{info.GetNumberOfCells()} cells, expected {nx} x {ny}")
out = os.path.join(run_dir, "paraview_coordinates.json")
coordinates = ProgrammableFilter(Input=reader)
coordinates.Script = f"""
import json
grid = self.GetInputDataObject(0, 0)
while grid is not None and grid.IsA("vtkMultiBlockDataSet"):
    grid = grid.GetBlock(0)
axes = [grid.GetXCoordinates(), grid.GetYCoordinates()]
json.dump([[a.GetValue(i) for i in range(a.GetNumberOfTuples())] for a in axes], open({out!r}, "w"))
"""
coordinates.UpdatePipeline()
seen = json.load(open(out))
for axis, (got, want) in enumerate(zip(seen, listed)):
    worst = max([abs(g - w) for g, w in zip(got, want)] + [0.0])
    print(f"axis {'xy'[axis]}: {len(got)} coordinates, largest difference {worst:.3e}")
    if len(got) != len(want) or worst > 1e-12 * box[2 * axis + 1]:
        failures.append(f"axis {'xy'[axis]}: ParaView has {len(got)} coordinates, the series "
                        f"lists {len(want)}; largest difference {worst:.3e}")
widths = [listed[0][i + 1] - listed[0][i] for i in range(len(listed[0]) - 1)]
if max(widths) < 1.5 * min(widths):
    failures.append("the x cells are not stretched: not the grid this test is for")
if failures:
    sys.exit("\n".join(failures))
print(f"ParaView placed the {nx} x {ny} cells of the stretched grid where the run did: widths "
      f"{min(widths):.4g} to {max(widths):.4g} along x, bounds {bounds[:4]}")
