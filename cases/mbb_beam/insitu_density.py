# script-version: 2.0
# ParaView Catalyst pipeline for topology optimisation (docs/insitu.md): the densities of each
# design iteration, black where solid, white where void, on a fixed range [0, 1]. Run it in situ
# with, for example,
#   undertow run cases/mbb_beam/mbb_60x20.ini --set catalyst.scripts=insitu_density.py \
#       --set catalyst.every=10
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes, at each call,
# density_<iteration>.png. The producer is named 'input': undertow hands its grid over under that
# name.
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [900, 300]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

design = PVTrivialProducer(registrationName='input')
display = Show(design, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'density'))
density = GetColorTransferFunction('density')
density.ApplyPreset('Grayscale', True)
density.InvertTransferFunction()
density.AutomaticRescaleRangeMode = 'Never'
density.RescaleTransferFunction(0.0, 1.0)

label = Text(registrationName='label')
label_display = Show(label, view)
label_display.Color = [0.8, 0.1, 0.1]
label_display.WindowLocation = 'Upper Left Corner'
label_display.FontSize = 14

png = CreateExtractor('PNG', view, registrationName='density_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'density_{timestep:06d}.png'
png.Writer.ImageResolution = [900, 300]

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def catalyst_execute(info):
    design.UpdatePipeline(info.time)
    # The whole grid's box, which undertow passes as the field data 'bounds' (a piece's own
    # bounds differ from rank to rank).
    bounds = [design.FieldData['bounds'].GetRange(c)[0] for c in range(6)]
    width, height = bounds[1] - bounds[0], bounds[3] - bounds[2]
    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), 0.0]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], 10.0 * max(width, height)]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    aspect = view.ViewSize[0] / view.ViewSize[1]
    view.CameraParallelScale = 0.55 * max(height, width / aspect)
    label.Text = 'design iteration %d' % info.timestep
