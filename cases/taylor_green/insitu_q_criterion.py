# script-version: 2.0
# ParaView Catalyst pipeline for 3D flows (docs/insitu.md): the vortex cores as the contour of
# the Q-criterion at a fifth of its largest value, coloured by the speed, seen from a corner of
# the box. Run it in situ with
#   undertow run cases/taylor_green/tg3d.ini --set catalyst.scripts=insitu_q_criterion.py \
#       --set catalyst.every=10
# (under xvfb-run -a where there is no X server). Into <output>/insitu it writes q_<step>.png
# and the contour surface as a parallel VTK file q_<step>.pvtp (open it in ParaView).
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [800, 800]
view.OrientationAxesVisibility = 1
view.UseColorPaletteForBackground = 0
view.Background = [1.0, 1.0, 1.0]

flow = PVTrivialProducer(registrationName='input')
box = Show(flow, view)
box.Representation = 'Outline'
box.AmbientColor = box.DiffuseColor = [0.0, 0.0, 0.0]

# Q at the points (through a calculator, which makes it the active scalars that the image
# contour filter needs), contoured where rotation clearly dominates strain.
points = CellDatatoPointData(registrationName='points', Input=flow)
points.CellDataArraytoprocess = ['q_criterion', 'velocity']
q = Calculator(registrationName='q', Input=points)
q.ResultArrayName = 'Q'
q.Function = 'q_criterion'
cores = Contour(registrationName='vortex_cores', Input=q)
cores.ContourBy = ['POINTS', 'Q']
cores.ComputeScalars = 1
cores.Isosurfaces = [1.0]
surface = Show(cores, view)
ColorBy(surface, ('POINTS', 'velocity', 'Magnitude'))
speed = GetColorTransferFunction('velocity')
speed.ApplyPreset('Cool to Warm', True)
speed.AutomaticRescaleRangeMode = 'Never'

label = Text(registrationName='label')
label_display = Show(label, view)
label_display.Color = [0.0, 0.0, 0.0]
label_display.WindowLocation = 'Upper Left Corner'
label_display.FontSize = 14

png = CreateExtractor('PNG', view, registrationName='q_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'q_{timestep:06d}.png'
png.Writer.ImageResolution = [800, 800]
vtp = CreateExtractor('VTP', cores, registrationName='q_vtp')
vtp.Trigger = 'TimeStep'
vtp.Writer.FileName = 'q_{timestep:06d}.pvtp'

options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def number(name):
    """A number undertow passes with the grid (the same on every rank)."""
    return flow.FieldData[name].GetRange(0)[0]


def catalyst_execute(info):
    flow.UpdatePipeline(info.time)
    q_max = number('q_criterion_max')
    cores.Isosurfaces = [0.2 * q_max if q_max > 0 else 1.0]
    speed.RescaleTransferFunction(0.0, max(number('velocity_max'), 1e-30))
    bounds = [flow.FieldData['bounds'].GetRange(c)[0] for c in range(6)]
    centre = [0.5 * (bounds[2 * a] + bounds[2 * a + 1]) for a in range(3)]
    size = max(bounds[2 * a + 1] - bounds[2 * a] for a in range(3))
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0] + 2.4 * size, centre[1] + 1.7 * size, centre[2] + 2.0 * size]
    view.CameraViewUp = [0.0, 0.0, 1.0]
    view.CameraViewAngle = 30
    label.Text = 'step %d, t = %.4g: Q = %.3g (a fifth of its largest)' % (
        info.timestep, info.time, cores.Isosurfaces[0])
