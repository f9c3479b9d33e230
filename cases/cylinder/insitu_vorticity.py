# script-version: 2.0
# ParaView Catalyst pipeline for the DFG cylinder cases (docs/insitu.md). Run it in situ with
#   undertow run cases/cylinder/re100.ini --set catalyst.scripts=insitu_vorticity.py \
#       --set catalyst.every=50
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes, at each call:
#   - vorticity_<step>.png: the vorticity, colours fixed at -40 .. 40 1/s (blue .. red), so that
#     frames of a run compare and make a movie;
#   - wake_<step>.csv: a probe line across the wake at x = 0.505 (every cell value on it).
# The producer is named 'input': undertow hands its grid over under that name.
from paraview.simple import *
from paraview import catalyst

# The channel is 2.2 x 0.41: an image of 1100 x 205 pixels, 2 pixels per cell at 220 x 41.
view = CreateView('RenderView')
view.ViewSize = [1100, 205]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraPosition = [1.1, 0.205, 10.0]
view.CameraFocalPoint = [1.1, 0.205, 0.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
view.CameraParallelScale = 0.205

flow = PVTrivialProducer(registrationName='input')
display = Show(flow, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'vorticity'))
vorticity = GetColorTransferFunction('vorticity')
vorticity.ApplyPreset('Cool to Warm', True)
vorticity.AutomaticRescaleRangeMode = 'Never'
vorticity.RescaleTransferFunction(-40.0, 40.0)

png = CreateExtractor('PNG', view, registrationName='vorticity_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'vorticity_{timestep:06d}.png'
png.Writer.ImageResolution = [1100, 205]

wake = PlotOverLine(registrationName='wake', Input=flow)
wake.Point1 = [0.505, 0.0, 0.0]
wake.Point2 = [0.505, 0.41, 0.0]
wake.Resolution = 400
csv = CreateExtractor('CSV', wake, registrationName='wake_csv')
csv.Trigger = 'TimeStep'
csv.Writer.FileName = 'wake_{timestep:06d}.csv'
csv.Writer.Precision = 17

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'
