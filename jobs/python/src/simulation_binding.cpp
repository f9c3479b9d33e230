/// undertow.Simulation: a Navier-Stokes case stepped from Python, its fields as NumPy arrays and
/// its sensors. The solver is the one `undertow gradient` starts from (initial.* or a restart
/// file, projected), stepped at time.dt or time.cfl.

#include "bindings.hpp"
#include "field_arrays.hpp"

#include "navier_stokes_setup.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"
#include "undertow/core/simulation.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"

#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

namespace undertow {
namespace python {

namespace {

class FlowSimulation : public Resource {
 public:
  FlowSimulation(const Case& c, const std::string& restart, bool verbose)
      : m_case(c), m_log(c.comm) {
    if (c.loaded.model->name != "navier_stokes")
      throw ConfigError("case.model = " + c.loaded.model->name +
                        ": undertow.Simulation steps navier_stokes cases (run the others with "
                        "the CLI, undertow run)");
    m_log.set_echo(verbose);
    m_every = verbose ? c.loaded.config.get_int("output.progress_every") : 0;
    m_domain = std::make_unique<Domain>(c.comm, DomainSpec::from_config(c.loaded.config));
    const adjoint::Control m = jobs::control_from_case(c.loaded.config, *m_domain, restart, m_log);
    adjoint::GradientDriver start(
        *m_domain,
        [this](navier_stokes::NavierStokes& ns) {
          return adjoint::make_objective({m_case.loaded.config, m_case.case_file, ns});
        },
        m_log, 0);
    m_ns = start.start(m);
  }
  void release() override {
    m_ns.reset();
    m_domain.reset();
  }

  navier_stokes::NavierStokes& ns() {
    require_runtime();
    if (!m_ns)
      throw CollectiveError("this Simulation was released at exit");
    return *m_ns;
  }
  const Domain& domain() {
    ns();
    return *m_domain;
  }
  const Config& config() const { return m_case.loaded.config; }

  /// The dt of the next step: time.dt, or time.cfl times the stable step.
  double next_dt() {
    const double dt = config().get_real("time.dt");
    return dt > 0 ? dt : ns().stable_dt(config().get_real("time.cfl"));
  }

  double step(double dt) {
    if (!(dt > 0) || !std::isfinite(dt))
      throw ConfigError("dt = " + std::to_string(dt) + " is not a positive time step [s]");
    ns().step(dt);
    m_dt = dt;
    require_finite();
    return dt;
  }

  /// Throws CollectiveError naming the step if the velocity is not finite.
  void require_finite() {
    if (navier_stokes::has_nonfinite(ns()))
      throw CollectiveError(format("the flow diverged at step %.0f (t = %.6g s, dt = %.3g s): ",
                                   double(ns().steps()), ns().time(), m_dt) +
                            "the velocity is not finite; reduce time.dt or time.cfl");
  }

  /// Steps to `until` [s] (the last step shortened to land on it) or `steps` steps.
  void run(double until, long steps) {
    SteppedModel<navier_stokes::NavierStokes> model(ns());
    Clock clock;
    clock.t_end = until;
    clock.max_steps = steps;
    clock.fixed_dt = config().get_real("time.dt");
    clock.cfl = config().get_real("time.cfl");
    if (std::isfinite(until) && until <= ns().time() * (1 + 1e-12))
      throw ConfigError(
          format("run(until=%g): the simulation is already at t = %g s", until, ns().time()));
    Simulation sim(m_case.comm, model, clock, ns().steps());
    Progress progress(m_log, std::isfinite(until) ? until : ns().time(), m_every, ns().time(),
                      ns().steps());
    const auto check = [this, &progress](Simulation& s) {
      m_dt = s.dt();
      require_finite();
      if (m_every > 0 && (s.step() % m_every == 0 || s.last_step()))
        progress.update(s.step(), s.time(), s.dt(),
                        format("CFL %.3f, pressure iterations %.0f",
                               navier_stokes::courant(*m_ns, s.dt()),
                               double(m_ns->poisson_iterations())),
                        s.last_step());
    };
    sim.add_callback("divergence check", Cadence::steps(10) | Cadence::last_step(), check);
    sim.run();
  }

  const Field& field(const std::string& name) {
    for (auto& kv : ns().state_fields())
      if (kv.first == name && (name != "w" || domain().dim() == 3))
        return *kv.second;
    throw ConfigError("no field '" + name + "': the fields are " +
                      (domain().dim() == 3 ? "u, v, w" : "u, v") +
                      " (velocity on the MAC faces), p (kinematic pressure on cells) and psi "
                      "(the last projection's potential)");
  }
  std::vector<std::string> field_names() {
    std::vector<std::string> names{"u", "v"};
    if (domain().dim() == 3)
      names.push_back("w");
    names.push_back("p");
    names.push_back("psi");
    return names;
  }
  double dt() const { return m_dt; }

 private:
  Case m_case;
  Log m_log;
  long m_every = 0;
  std::unique_ptr<Domain> m_domain;
  std::unique_ptr<navier_stokes::NavierStokes> m_ns;
  double m_dt = 0;
};

std::string location_name(Location loc) {
  switch (loc) {
  case Location::Cell:
    return "cell";
  case Location::FaceX:
    return "face_x";
  case Location::FaceY:
    return "face_y";
  case Location::FaceZ:
    return "face_z";
  default:
    return "node";
  }
}

} // namespace

void bind_simulation(py::module_& m) {
  using Sim = FlowSimulation;
  py::class_<Sim, std::shared_ptr<Sim>>(
      m, "Simulation",
      "A Navier-Stokes case stepped from Python. Fields are NumPy arrays indexed [i, j(, k)] "
      "(x first) at their staggered locations: u on the faces normal to x, v on those normal to "
      "y (w: z), p and psi on cells. Every method is collective over the case's communicator "
      "unless it says otherwise.")
      .def(py::init([](const Case& c, const std::optional<std::string>& restart, bool verbose) {
             auto sim = std::make_shared<Sim>(c, restart.value_or(""), verbose);
             track(sim);
             return sim;
           }),
           py::arg("case"), py::arg("restart") = py::none(), py::arg("verbose") = false,
           "The case's flow at t = 0 (initial.*, or the velocity of a restart file of the same "
           "case), with the boundary conditions imposed and projected. verbose: progress lines "
           "on rank 0 every output.progress_every steps of run().")
      .def_property_readonly(
          "time", [](Sim& s) { return s.ns().time(); }, "t [s]")
      .def_property_readonly(
          "step_count", [](Sim& s) { return s.ns().steps(); }, "steps taken")
      .def_property_readonly("dt", &Sim::dt, "the last step's dt [s] (0 before any)")
      .def_property_readonly(
          "dim", [](Sim& s) { return s.domain().dim(); }, "2 or 3")
      .def_property_readonly(
          "rank", [](Sim& s) { return s.domain().comm().rank(); },
          "this rank in the case's communicator")
      .def(
          "step", [](Sim& s, std::optional<double> dt) { return s.step(dt ? *dt : s.next_dt()); },
          py::arg("dt") = py::none(),
          "One time step of dt [s] (default: time.dt, or time.cfl times the stable step). "
          "Returns the dt taken. RunError if the flow diverges.")
      .def(
          "run",
          [](Sim& s, std::optional<double> until, std::optional<long> steps) {
            if (!until && !steps)
              until = s.config().get_real("time.t_end");
            if (steps && *steps <= 0)
              throw ConfigError("run(steps=" + std::to_string(*steps) + "): give steps >= 1");
            s.run(until ? *until : std::numeric_limits<double>::infinity(), steps ? *steps : -1);
          },
          py::arg("until") = py::none(), py::arg("steps") = py::none(),
          "Steps to the time `until` [s] (the last step shortened to land on it), or `steps` "
          "steps, whichever comes first; with neither, to time.t_end. RunError if the flow "
          "diverges (checked every 10 steps and at the end).")
      .def_property_readonly("field_names", &Sim::field_names,
                             "the fields field() and gather() know: u, v(, w), p, psi")
      .def(
          "field",
          [](py::object self, const std::string& name) {
            Sim& s = self.cast<Sim&>();
            return owned_view(s.domain(), s.field(name), self);
          },
          py::arg("name"),
          "This rank's owned points of the field `name` (u, v, w, p, psi) as a NumPy array "
          "sharing the solver's memory (zero-copy on host builds): it changes as the "
          "simulation steps, and writing into it changes the state. Not collective.")
      .def(
          "gather",
          [](Sim& s, const std::string& name, const std::string& where) {
            return field_array(s.domain(), s.field(name), gather_from(where, "where"));
          },
          py::arg("name"), py::arg("where") = "root",
          "A copy of the field's values on every global point: on rank 0 (where='root'; None "
          "on the others), on every rank ('global'), or this rank's owned points ('local').")
      .def(
          "location",
          [](Sim& s, const std::string& name) { return location_name(s.field(name).location()); },
          py::arg("name"), "cell, face_x, face_y or face_z. Not collective.")
      .def(
          "axes",
          [](Sim& s, const std::string& name) {
            const Field& f = s.field(name);
            py::list axes;
            for (int a = 0; a < s.domain().dim(); ++a) {
              const long n = f.layout().global.extent(a);
              std::vector<double> x(static_cast<std::size_t>(n));
              for (long g = 0; g < n; ++g)
                x[static_cast<std::size_t>(g)] =
                    f.geometry().coordinate(a, g - f.layout().global_offset[a]);
              axes.append(py::array_t<double>(static_cast<py::ssize_t>(n), x.data()));
            }
            return py::tuple(axes);
          },
          py::arg("name"),
          "The coordinates [m] of the field's global points along each axis (staggered where "
          "the field is). Not collective.")
      .def(
          "owned_slices",
          [](Sim& s, const std::string& name) {
            const Field& f = s.field(name);
            py::list out;
            for (int a = 0; a < s.domain().dim(); ++a) {
              const long begin = f.owned().begin[a] + f.layout().global_offset[a];
              out.append(py::slice(begin, begin + f.owned().extent(a), 1));
            }
            return py::tuple(out);
          },
          py::arg("name"),
          "Where field(name) sits in the global array: gathered[sim.owned_slices(name)] == "
          "sim.field(name). Not collective.")
      .def(
          "probe",
          [](Sim& s, const std::vector<double>& x, const std::string& name) {
            const auto p = point_of(x, s.domain().dim(), "probe point");
            require_inside(s.domain(), p, "probe point");
            if (name == "p")
              return navier_stokes::probe(s.domain(), s.ns().pressure(), p);
            const int c = velocity_component(name, s.domain().dim(), "probe: name (or p)");
            Field cells(s.domain(), Location::Cell, 0, "python::probe");
            navier_stokes::cell_velocity(s.ns(), c, cells);
            return navier_stokes::probe(s.domain(), cells, p);
          },
          py::arg("point"), py::arg("name") = "u",
          "The value of u, v, w (the mean of the cell's two faces) or p at the centre of the "
          "cell that contains `point` [m].")
      .def(
          "forces",
          [](Sim& s) {
            std::vector<std::vector<double>> out;
            for (const auto& f : s.ns().forces())
              out.emplace_back(f.begin(), f.begin() + s.domain().dim());
            return out;
          },
          "The force of the fluid on each obstacle over the last step, per unit density (and "
          "span in 2D) [m^3/s^2 in 2D]. Not collective.")
      .def(
          "kinetic_energy", [](Sim& s) { return navier_stokes::kinetic_energy(s.ns()); },
          "1/2 <|u|^2> [m^2/s^2]")
      .def(
          "max_divergence", [](Sim& s) { return navier_stokes::max_divergence(s.ns()); },
          "max over cells of |div u| [1/s]")
      .def(
          "courant", [](Sim& s) { return navier_stokes::courant(s.ns(), s.next_dt()); },
          "the advective Courant number of the next step's dt")
      .def("__repr__", [](Sim& s) {
        return format("<undertow.Simulation at t = %g s, step %.0f, %.0f rank(s)>", s.ns().time(),
                      double(s.ns().steps()), double(s.domain().comm().size()));
      });
}

} // namespace python
} // namespace undertow
