# script-version: 2.0
# ParaView Catalyst pipeline for `undertow optimize` (docs/insitu.md): the flow of each design
# iteration at t_end, its speed with the body's outline (the mask's 0.5 contour), and the
# objective. Run it in situ with
#   undertow optimize cases/shape_drag/min_drag_re20.ini --set catalyst.scripts=insitu_flow.py \
#       --set catalyst.every=1
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes
# design_<iteration>.png (design_000000.png is overwritten: first the initial flow at t = 0, then
# the flow of design 0) and outline_<iteration>.csv, the body's outline.
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [900, 450]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

flow = PVTrivialProducer(registrationName='input')
display = Show(flow, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'velocity', 'Magnitude'))
speed = GetColorTransferFunction('velocity')
speed.ApplyPreset('Viridis (matplotlib)', True)
speed.AutomaticRescaleRangeMode = 'Never'

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
outline_display.AmbientColor = outline_display.DiffuseColor = [1.0, 1.0, 1.0]
outline_display.LineWidth = 2.0

label = Text(registrationName='label')
label_display = Show(label, view)
label_display.Color = [0.0, 0.0, 0.0]
label_display.WindowLocation = 'Upper Left Corner'
label_display.FontSize = 14

png = CreateExtractor('PNG', view, registrationName='design_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'design_{timestep:06d}.png'
png.Writer.ImageResolution = [900, 450]
csv = CreateExtractor('CSV', outline, registrationName='outline_csv')
csv.Trigger = 'TimeStep'
csv.Writer.FileName = 'outline_{timestep:06d}.csv'

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def number(name):
    """A number undertow passes with the grid (the same on every rank), or None."""
    array = flow.FieldData[name]
    return array.GetRange(0)[0] if array is not None else None


def catalyst_execute(info):
    flow.UpdatePipeline(info.time)
    bounds = [flow.FieldData['bounds'].GetRange(c)[0] for c in range(6)]
    width, height = bounds[1] - bounds[0], bounds[3] - bounds[2]
    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), 0.0]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], 10.0 * max(width, height)]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 0.52 * max(height, width * view.ViewSize[1] / view.ViewSize[0])
    speed.RescaleTransferFunction(0.0, max(number('velocity_max'), 1e-30))
    objective = number('objective')
    if objective is None:
        label.Text = 'initial flow (t = 0)'
    else:
        label.Text = 'design iteration %d: J = %.6g' % (info.timestep, objective)
