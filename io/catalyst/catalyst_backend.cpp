// The ParaView 5.11 legacy-Catalyst back end of undertow's in-situ seam (io/insitu_backend.hpp),
// built as the plugin undertow_catalyst.so when ParaView is found. Each rank's frame becomes a
// vtkImageData (or vtkRectilinearGrid) piece with the whole extent and a vtkGhostType array; the
// pipelines are Catalyst Python scripts of either version ParaView 5.11 reads
// (paraview.coprocessing, or the paraview.catalyst scripts its GUI saves). ParaView's messages are
// captured from its output window, so that a script's Python error reaches undertow's error
// message. On a stretched grid (the frame lists the coordinates of its stretched axes) the piece is
// a vtkRectilinearGrid.

#include "undertow/io/insitu_backend.hpp"

#include <vtkCPDataDescription.h>
#include <vtkCPInputDataDescription.h>
#include <vtkCPProcessor.h>
#include <vtkCPPythonPipeline.h>
#include <vtkCellData.h>
#include <vtkDataSetAttributes.h>
#include <vtkDoubleArray.h>
#include <vtkFieldData.h>
#include <vtkImageData.h>
#include <vtkMPI.h>
#include <vtkNew.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkPVVersion.h>
#include <vtkPointData.h>
#include <vtkPythonInterpreter.h>
#include <vtkRectilinearGrid.h>
#include <vtkRenderingOpenGLConfigure.h>
#include <vtkSmartPointer.h>
#include <vtkStringArray.h>
#include <vtkUnsignedCharArray.h>

#if defined(VTK_USE_X) && !defined(VTK_OPENGL_HAS_OSMESA) && !defined(VTK_OPENGL_HAS_EGL) &&       \
    !defined(VTK_DEFAULT_RENDER_WINDOW_OFFSCREEN)
#define UNDERTOW_CATALYST_NEEDS_X 1
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef UNDERTOW_CATALYST_NEEDS_X
/// XOpenDisplay with retries, in place of Xlib's for ParaView's libraries (they are loaded with
/// this plugin, which comes first in their symbol scope). An X server such as Xvfb refuses some
/// connections when several processes connect at the same moment, as every rank does at its
/// first render; a refused connection makes ParaView abort the run. Checked: 4 processes that
/// open 50 connections each at once saw 3 to 12 % of them refused.
extern "C" __attribute__((visibility("default"))) Display* XOpenDisplay(const char* name) {
  using Open = Display* (*)(const char*);
  static const Open xlib = reinterpret_cast<Open>(dlsym(RTLD_NEXT, "XOpenDisplay"));
  if (!xlib)
    return nullptr;
  // No display named at all: nothing to wait for.
  const char* display = name ? name : std::getenv("DISPLAY");
  const int attempts = display && *display ? 60 : 1;
  for (int attempt = 1;; ++attempt) {
    if (Display* display = xlib(name))
      return display;
    if (attempt >= attempts)
      return nullptr;
    usleep(static_cast<useconds_t>(5000 * attempt)); // 5 ms, 10 ms, ...: 9 s in all
  }
}
#endif

namespace {

/// Prints ParaView's messages as the default window does and keeps its errors.
class CapturingOutputWindow : public vtkOutputWindow {
 public:
  static CapturingOutputWindow* New();
  vtkTypeMacro(CapturingOutputWindow, vtkOutputWindow);

  void DisplayText(const char* text) override { std::fputs(text, stdout); }
  void DisplayErrorText(const char* text) override { keep(text); }
  void DisplayWarningText(const char* text) override { warn(text); }
  void DisplayGenericWarningText(const char* text) override { warn(text); }

  std::string take() {
    std::string out;
    out.swap(m_captured);
    return out;
  }

 private:
  /// Prints a warning, except the one vtkPVTrivialProducer gives for the first frame of a run
  /// at time 0 ("New time step is not after last time step": its last time starts at 0).
  void warn(const char* text) {
    if (!std::strstr(text, "New time step is not after last time step"))
      std::fputs(text, stderr);
  }
  void keep(const char* text) {
    std::fputs(text, stderr);
    m_captured += text;
  }
  std::string m_captured;
};
vtkStandardNewMacro(CapturingOutputWindow);

/// ParaView's messages on one line: the distinct lines of its tracebacks without their
/// "Traceback" headers, the last few (where the exception and its place are).
std::string condensed(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    line = line.substr(first);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
      line.pop_back();
    if (line.rfind("Traceback", 0) == 0 || line.rfind("^", 0) == 0)
      continue;
    if (std::find(lines.begin(), lines.end(), line) == lines.end())
      lines.push_back(line);
  }
  const std::size_t keep = 4;
  std::string out;
  for (std::size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

vtkSmartPointer<vtkDoubleArray> to_vtk(const undertow::io::InSituArray& a) {
  auto out = vtkSmartPointer<vtkDoubleArray>::New();
  out->SetName(a.name.c_str());
  out->SetNumberOfComponents(a.components);
  out->SetNumberOfTuples(static_cast<vtkIdType>(a.values.size() / std::size_t(a.components)));
  std::copy(a.values.begin(), a.values.end(), out->GetPointer(0));
  return out;
}

vtkSmartPointer<vtkUnsignedCharArray> ghosts(const std::vector<unsigned char>& flags,
                                             unsigned char value) {
  auto out = vtkSmartPointer<vtkUnsignedCharArray>::New();
  out->SetName(vtkDataSetAttributes::GhostArrayName());
  out->SetNumberOfTuples(static_cast<vtkIdType>(flags.size()));
  for (std::size_t i = 0; i < flags.size(); ++i)
    out->SetValue(static_cast<vtkIdType>(i), flags[i] ? value : 0);
  return out;
}

class CatalystBackend final : public undertow::io::InSituBackend {
 public:
  std::string name() const override {
    return std::string("ParaView ") + PARAVIEW_VERSION_FULL + " Catalyst (legacy API)";
  }

  std::string missing_prerequisite() override {
#ifdef UNDERTOW_CATALYST_NEEDS_X
    // This ParaView renders through X only, and aborts the whole run at the first render
    // without a display: check for one now. The connection stays open until finalize(): an X
    // server without clients resets (Xvfb's default), and refuses connections and fails GLX
    // set-ups meanwhile, which made other ranks abort at their first render.
    if (m_display)
      return "";
    m_display = XOpenDisplay(nullptr);
    if (!m_display) {
      const char* name = std::getenv("DISPLAY");
      return std::string("this ParaView renders through an X server, and none could be opened "
                         "(DISPLAY=") +
             (name ? name : "unset") +
             "): run under a virtual one, xvfb-run -a mpiexec ..., or use a ParaView built with "
             "EGL or OSMesa (docs/insitu.md)";
    }
#endif
    return "";
  }

  std::string initialize(MPI_Comm comm, const std::vector<std::string>& scripts,
                         const std::string& output_dir) override {

    m_processor = vtkSmartPointer<vtkCPProcessor>::New();
    m_comm = comm;
    vtkMPICommunicatorOpaqueComm opaque(&m_comm);
    if (!m_processor->Initialize(opaque, output_dir.c_str()))
      return "ParaView Catalyst failed to initialise (see its messages above)";
    // ParaView 5.11's Python log handler fails on messages below warnings (it asks for a
    // vtkLogger level that does not exist) and prints a traceback for each: its logger starts
    // at warnings.
    vtkPythonInterpreter::Initialize();
    vtkPythonInterpreter::RunSimpleString(
        "import logging, paraview\nparaview.logger.setLevel(logging.WARNING)\n");
    // After Initialize, which installs ParaView's own output window.
    m_window = vtkSmartPointer<CapturingOutputWindow>::New();
    vtkOutputWindow::SetInstance(m_window);
    for (const auto& script : scripts) {
      auto pipeline = vtkCPPythonPipeline::CreateAndInitializePipeline(script.c_str());
      const std::string said = condensed(m_window->take());
      if (!pipeline || !said.empty())
        return "pipeline script '" + script +
               "' failed to load; ParaView said: " + (said.empty() ? "nothing" : said);
      m_processor->AddPipeline(pipeline);
    }
    return "";
  }

  std::string execute(const undertow::io::InSituFrame& f) override {
    vtkNew<vtkCPDataDescription> description;
    description->AddInput("input");
    description->SetTimeData(f.time, f.step);
    description->ForceOutputOn(); // undertow's [catalyst] cadence decides when to call
    if (!m_processor->RequestDataDescription(description))
      return check("");
    vtkCPInputDataDescription* input = description->GetInputDescriptionByName("input");
    int extent[6], whole[6];
    for (int a = 0; a < 3; ++a) {
      const bool flat = a >= f.dim;
      extent[2 * a] = flat ? 0 : static_cast<int>(f.piece_begin[a]);
      extent[2 * a + 1] = flat ? 0 : static_cast<int>(f.piece_end[a]);
      whole[2 * a] = 0;
      whole[2 * a + 1] = flat ? 0 : static_cast<int>(f.whole_cells[a]);
    }
    const vtkSmartPointer<vtkDataSet> image = grid(f, extent);
    for (const auto& a : f.arrays)
      (a.on_points ? static_cast<vtkDataSetAttributes*>(image->GetPointData())
                   : static_cast<vtkDataSetAttributes*>(image->GetCellData()))
          ->AddArray(to_vtk(a));
    image->GetCellData()->AddArray(ghosts(f.ghost_cells, vtkDataSetAttributes::DUPLICATECELL));
    image->GetPointData()->AddArray(ghosts(f.ghost_points, vtkDataSetAttributes::DUPLICATEPOINT));
    vtkNew<vtkDoubleArray> bounds;
    bounds->SetName("bounds");
    bounds->SetNumberOfComponents(6);
    bounds->InsertNextTuple(f.bounds.data());
    image->GetFieldData()->AddArray(bounds);
    add_field(image, "step", static_cast<double>(f.step));
    add_field(image, "time", f.time);
    for (const auto& [key, value] : f.numbers)
      add_field(image, key, value);
    for (const auto& [key, value] : f.metadata) {
      vtkNew<vtkStringArray> text;
      text->SetName(key.c_str());
      text->InsertNextValue(value.c_str());
      image->GetFieldData()->AddArray(text);
    }
    input->SetGrid(image);
    input->SetWholeExtent(whole);
    return check(m_processor->CoProcess(description) ? "" : "CoProcess failed");
  }

  void finalize() override {
    if (m_processor) {
      m_processor->RemoveAllPipelines();
      m_processor->Finalize();
      m_processor = nullptr;
    }
    if (m_window) {
      vtkOutputWindow::SetInstance(nullptr);
      m_window = nullptr;
    }
#ifdef UNDERTOW_CATALYST_NEEDS_X
    if (m_display) {
      XCloseDisplay(m_display);
      m_display = nullptr;
    }
#endif
  }

  ~CatalystBackend() override {
    finalize();
  }

 private:
  /// The piece's grid: image data where every axis is uniform, else a rectilinear grid with
  /// each axis's point coordinates (from the frame on stretched axes).
  static vtkSmartPointer<vtkDataSet> grid(const undertow::io::InSituFrame& f, const int extent[6]) {
    bool uniform = true;
    for (int a = 0; a < f.dim; ++a)
      uniform = uniform && f.coordinates[a].empty();
    if (uniform) {
      vtkNew<vtkImageData> image;
      image->SetExtent(const_cast<int*>(extent));
      image->SetOrigin(f.origin[0], f.origin[1], f.dim == 3 ? f.origin[2] : 0.0);
      image->SetSpacing(f.spacing[0], f.spacing[1], f.dim == 3 ? f.spacing[2] : 1.0);
      return image.GetPointer();
    }
    vtkNew<vtkRectilinearGrid> rectilinear;
    rectilinear->SetExtent(const_cast<int*>(extent));
    vtkNew<vtkDoubleArray> axes[3];
    for (int a = 0; a < 3; ++a) {
      const long points = f.piece_points(a);
      axes[a]->SetNumberOfTuples(points);
      for (long i = 0; i < points; ++i)
        axes[a]->SetValue(i, a >= f.dim ? 0.0
                             : f.coordinates[a].empty()
                                 ? f.origin[a] + double(f.piece_begin[a] + i) * f.spacing[a]
                                 : f.coordinates[a][std::size_t(i)]);
    }
    rectilinear->SetXCoordinates(axes[0]);
    rectilinear->SetYCoordinates(axes[1]);
    rectilinear->SetZCoordinates(axes[2]);
    return rectilinear.GetPointer();
  }
  static void add_field(vtkDataSet* image, const std::string& name, double value) {
    vtkNew<vtkDoubleArray> a;
    a->SetName(name.c_str());
    a->InsertNextValue(value);
    image->GetFieldData()->AddArray(a);
  }
  /// `failure`, or ParaView's errors of this call (a Python exception in a pipeline).
  std::string check(const std::string& failure) {
    const std::string said = condensed(m_window->take());
    if (failure.empty() && said.empty())
      return "";
    return failure.empty() ? "ParaView said: " + said : failure + "; ParaView said: " + said;
  }

  MPI_Comm m_comm = MPI_COMM_NULL;
#ifdef UNDERTOW_CATALYST_NEEDS_X
  Display* m_display = nullptr; ///< held open while the pipelines live (see missing_prerequisite)
#endif
  vtkSmartPointer<CapturingOutputWindow> m_window;
  vtkSmartPointer<vtkCPProcessor> m_processor;
};

} // namespace

extern "C" __attribute__((visibility("default"))) undertow::io::InSituBackend*
undertow_insitu_backend() {
  return new CatalystBackend();
}
