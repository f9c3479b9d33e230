# script-version: 2.0
# ParaView Catalyst pipeline for the cantilever cases (docs/insitu.md): the deformed beam coloured
# by its von Mises stress. Run it in situ with, for example,
#   undertow run cases/cantilever/dynamic_2d.ini --set catalyst.scripts=insitu_von_mises.py \
#       --set catalyst.every=25
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes, at each call,
# von_mises_<step>.png. The displacement is magnified so that the largest one is a fifth of the
# beam's height; the factor and the stress range are printed on the image, as they change from
# frame to frame. The producer is named 'input': undertow hands its grid over under that name.
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [1000, 300]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

beam = PVTrivialProducer(registrationName='input')
warp = WarpByVector(registrationName='deformed', Input=beam)
warp.Vectors = ['POINTS', 'displacement']
display = Show(warp, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'von_mises'))
stress = GetColorTransferFunction('von_mises')
stress.ApplyPreset('Jet', True)
stress.AutomaticRescaleRangeMode = 'Never'
bar = GetScalarBar(stress, view)
bar.Title = 'von Mises [Pa]'
bar.ComponentTitle = ''
bar.TitleColor = bar.LabelColor = [0.0, 0.0, 0.0]
display.SetScalarBarVisibility(view, True)

label = Text(registrationName='label')
label_display = Show(label, view)
label_display.Color = [0.0, 0.0, 0.0]
label_display.WindowLocation = 'Upper Left Corner'
label_display.FontSize = 14

png = CreateExtractor('PNG', view, registrationName='von_mises_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'von_mises_{timestep:06d}.png'
png.Writer.ImageResolution = [1000, 300]

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def place_camera(bounds, margin):
    """Frames the box x_min .. x_max, y_min .. y_max (the whole grid's, which undertow passes
    as the field data 'bounds': a piece's own bounds differ from rank to rank)."""
    width, height = bounds[1] - bounds[0], bounds[3] - bounds[2]
    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), 0.0]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], 10.0 * max(width, height)]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    aspect = view.ViewSize[0] / view.ViewSize[1]
    view.CameraParallelScale = margin * 0.5 * max(height, width / aspect)


def field_value(name, component=0):
    """A number undertow passes with the grid (the same on every rank)."""
    return beam.FieldData[name].GetRange(component)[0]


def catalyst_execute(info):
    beam.UpdatePipeline(info.time)
    bounds = [field_value('bounds', c) for c in range(6)]
    height = bounds[3] - bounds[2]
    largest = field_value('displacement_max')
    warp.ScaleFactor = 0.2 * height / largest if largest > 0 else 1.0
    top = max(field_value('von_mises_max'), 1e-30)
    stress.RescaleTransferFunction(0.0, top)
    label.Text = 'step %d, t = %.4g: displacement x %.3g, von Mises up to %.3g Pa' % (
        info.timestep, info.time, warp.ScaleFactor, top)
    place_camera([bounds[0], bounds[1], bounds[2] - 0.25 * height, bounds[3] + 0.25 * height],
                 1.15)
