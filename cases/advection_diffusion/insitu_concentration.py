# script-version: 2.0
# ParaView Catalyst pipeline for advection-diffusion cases (docs/insitu.md): the concentration,
# on a colour range fixed by the first call's largest |c| (the exact solutions decay from it).
# Run it in situ with
#   undertow run cases/advection_diffusion/periodic_mode.ini \
#       --set catalyst.scripts=insitu_concentration.py --set catalyst.every=50
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes
# concentration_<step>.png.
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [600, 600]
view.OrientationAxesVisibility = 0
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]
view.CameraParallelProjection = 1

scalar = PVTrivialProducer(registrationName='input')
display = Show(scalar, view)
display.Representation = 'Surface'
ColorBy(display, ('CELLS', 'concentration'))
colours = GetColorTransferFunction('concentration')
colours.ApplyPreset('Cool to Warm', True)
colours.AutomaticRescaleRangeMode = 'Never'

png = CreateExtractor('PNG', view, registrationName='concentration_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'concentration_{timestep:06d}.png'
png.Writer.ImageResolution = [600, 600]

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'
first = []


def catalyst_execute(info):
    scalar.UpdatePipeline(info.time)
    if not first:  # the range of the first call, over every rank (undertow's field data)
        first.append(max(scalar.FieldData['concentration_max'].GetRange(0)[0], 1e-30))
        colours.RescaleTransferFunction(-first[0], first[0])
    bounds = [scalar.FieldData['bounds'].GetRange(c)[0] for c in range(6)]
    centre = [0.5 * (bounds[0] + bounds[1]), 0.5 * (bounds[2] + bounds[3]), 0.0]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], 10.0]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 0.52 * max(bounds[1] - bounds[0], bounds[3] - bounds[2])
