# script-version: 2.0
# ParaView Catalyst pipeline for `undertow gradient` on the cylinder (docs/insitu.md): one image
# per call, of the forward sweep's vorticity and then of the reverse sweep's adjoint velocity,
# with the cylinder's outline (the mask's 0.5 contour). Run it in situ with
#   undertow gradient cases/cylinder/gradient_re100.ini --set catalyst.scripts=insitu_gradient.py \
#       --set catalyst.every=25
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes
# sweep_<n>.png, n counting along the sweep: the forward steps 0 .. N, then N + 1 .. 2N as the
# adjoint goes back from step N - 1 to 0 (the state's step is printed on the image).
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [1100, 240]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraPosition = [1.1, 0.205, 10.0]
view.CameraFocalPoint = [1.1, 0.205, 0.0]
view.CameraViewUp = [0.0, 1.0, 0.0]
view.CameraParallelProjection = 1
view.CameraParallelScale = 0.24

flow = PVTrivialProducer(registrationName='input')
display = Show(flow, view)
display.Representation = 'Surface'
vorticity = GetColorTransferFunction('vorticity')
vorticity.ApplyPreset('Cool to Warm', True)
vorticity.AutomaticRescaleRangeMode = 'Never'
vorticity.RescaleTransferFunction(-40.0, 40.0)
adjoint = GetColorTransferFunction('adjoint_velocity')
adjoint.ApplyPreset('Viridis (matplotlib)', True)
adjoint.AutomaticRescaleRangeMode = 'Never'

# The body's outline: the mask (1 in the body) averaged to points, contoured at 0.5 (through a
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

label = Text(registrationName='label')
label_display = Show(label, view)
label_display.Color = [0.0, 0.0, 0.0]
label_display.WindowLocation = 'Upper Left Corner'
label_display.FontSize = 13

png = CreateExtractor('PNG', view, registrationName='sweep_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'sweep_{timestep:06d}.png'
png.Writer.ImageResolution = [1100, 240]

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def catalyst_execute(info):
    flow.UpdatePipeline(info.time)
    reverse = flow.CellData['adjoint_velocity'] is not None
    if reverse:
        ColorBy(display, ('CELLS', 'adjoint_velocity', 'Magnitude'))
        # The range over every rank, which undertow passes (a piece's own range is its own).
        top = max(flow.FieldData['adjoint_velocity_max'].GetRange(0)[0], 1e-30)
        adjoint.RescaleTransferFunction(0.0, top)
        step = int(flow.FieldData['adjoint_step'].GetRange(0)[0])
        label.Text = 'reverse sweep: adjoint velocity |lambda| at step %d (0 .. %.3g)' % (step, top)
    else:
        ColorBy(display, ('CELLS', 'vorticity'))
        # ColorBy may rescale a map to this rank's own data range: the fixed range again.
        vorticity.RescaleTransferFunction(-40.0, 40.0)
        label.Text = 'forward sweep: vorticity at step %d, t = %.4g s' % (info.timestep, info.time)
