# script-version: 2.0
# A generic 2D in-situ pipeline for bench/insitu_cost.py: the vorticity as a 1024 x 1024 PNG,
# its colour range the largest |vorticity| over every rank, the camera framing the box.
from paraview.simple import *
from paraview import catalyst

view = CreateView('RenderView')
view.ViewSize = [1024, 1024]
view.OrientationAxesVisibility = 0
view.CameraParallelProjection = 1
flow = PVTrivialProducer(registrationName='input')
display = Show(flow, view)
ColorBy(display, ('CELLS', 'vorticity'))
vorticity = GetColorTransferFunction('vorticity')
vorticity.ApplyPreset('Cool to Warm', True)
vorticity.AutomaticRescaleRangeMode = 'Never'
png = CreateExtractor('PNG', view, registrationName='vorticity_png')
png.Trigger = 'TimeStep'
png.Writer.FileName = 'vorticity_{timestep:06d}.png'
png.Writer.ImageResolution = [1024, 1024]
options = catalyst.Options()
options.GlobalTrigger = 'TimeStep'
options.ExtractsOutputDirectory = '.'


def catalyst_execute(info):
    flow.UpdatePipeline(info.time)
    top = max(flow.FieldData['vorticity_max'].GetRange(0)[0], 1e-30)
    vorticity.RescaleTransferFunction(-top, top)
    b = [flow.FieldData['bounds'].GetRange(c)[0] for c in range(6)]
    centre = [0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.0]
    view.CameraFocalPoint = centre
    view.CameraPosition = [centre[0], centre[1], 10.0 * (b[1] - b[0])]
    view.CameraViewUp = [0.0, 1.0, 0.0]
    view.CameraParallelScale = 0.5 * max(b[1] - b[0], b[3] - b[2])
