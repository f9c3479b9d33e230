# script-version: 2.0
# ParaView Catalyst pipeline for the NACA 0012 cases (docs/insitu.md): the vorticity around the
# airfoil and in its wake, colours fixed at -20 .. 20 1/s (blue .. red) so that the frames of a
# run compare and make a movie, with the airfoil's outline (the mask's 0.5 contour). Run it in
# situ with
#   undertow run cases/naca0012/aoa5_re500.ini --set catalyst.scripts=insitu_vorticity.py \
#       --set catalyst.every=100
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes, at each call,
# vorticity_<step>.png. The producer is named 'input': undertow hands its grid over under that
# name.
from paraview.simple import *
from paraview import catalyst

# The box is 5 x 2 (chord 1, leading edge near x = 0.5): an image of 1250 x 500 pixels.
view = CreateView('RenderView')
view.ViewSize = [1250, 500]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraPosition = [2.5, 1.0, 10.0]
view.CameraFocalPoint = [2.5, 1.0, 0.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
view.CameraParallelScale = 1.0

flow = PVTrivialProducer(registrationName='input')
display = Show(flow, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'vorticity'))
vorticity = GetColorTransferFunction('vorticity')
vorticity.ApplyPreset('Cool to Warm', True)
vorticity.AutomaticRescaleRangeMode = 'Never'
vorticity.RescaleTransferFunction(-20.0, 20.0)

# The outline: the mask (1 in the body) averaged to points, contoured at 0.5 (through a
# calculator, which makes it the active scalars that the image contour filter needs).
points = CellDatatoPointData(registrationName='mask_points', Input=flow)
points.CellDataArraytoprocess = ['mask']
body = Calculator(registrationName='body', Input=points)
body.ResultArrayName = 'body'
body.Function = 'mask'
outline = Contour(registrationName='outline', Input=body)
outline.ContourBy = ['POINTS', 'body']
outline.Isosurfaces = [0.5]
outline_display = Show(outline, view)
outline_display.AmbientColor = outline_display.DiffuseColor = [0.0, 0.0, 0.0]
outline_display.LineWidth = 2.0

png = CreateExtractor('PNG', view, registrationName='vorticity_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'vorticity_{timestep:06d}.png'
png.Writer.ImageResolution = [1250, 500]

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def catalyst_execute(info):
    # ColorBy may have rescaled the map to this rank's own range: the fixed range again.
    vorticity.RescaleTransferFunction(-20.0, 20.0)
