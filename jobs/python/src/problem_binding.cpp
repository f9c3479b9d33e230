/// undertow.Problem: forward(params) -> y and vjp(ybar) -> ybar^T dy/dparams of a Navier-Stokes
/// case, for the adapters undertow.torch and undertow.jax.

#include "bindings.hpp"
#include "field_arrays.hpp"
#include "problem.hpp"

#include "undertow/core/error.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>

namespace undertow {
namespace python {

namespace {

class PyProblem : public Resource {
 public:
  PyProblem(const Case& c, std::vector<Sensor> sensors, const std::string& restart, bool verbose,
            Gather gather)
      : m_gather(gather) {
    m_problem = std::make_unique<Problem>(c.comm, c.loaded, c.case_file, std::move(sensors),
                                          restart, verbose);
  }
  void release() override {
    m_m = adjoint::Control();
    m_has_m = false;
    m_problem.reset();
  }
  Problem& problem() {
    require_runtime();
    if (!m_problem)
      throw CollectiveError("this Problem was released at exit");
    return *m_problem;
  }
  const Domain& domain() { return problem().domain(); }
  int dim() { return domain().dim(); }

  std::vector<std::string> scalar_names() {
    std::vector<std::string> names;
    for (const auto& p : problem().parameters())
      names.push_back(p.name);
    return names;
  }
  std::vector<std::string> field_names() {
    std::vector<std::string> names{"initial"};
    if (problem().case_control().flow.obstacles.has_design())
      names.push_back("design");
    return names;
  }
  std::string known() {
    std::string s;
    for (const auto& n : scalar_names())
      s += n + ", ";
    for (const auto& n : field_names())
      s += n + ", ";
    return s.substr(0, s.size() - 2);
  }

  /// m: the case's, with `params` replacing the entries they name.
  adjoint::Control control(const py::dict& params) {
    adjoint::Control m = problem().copy_of_case_control();
    const auto& list = problem().parameters();
    for (const auto& kv : params) {
      const std::string name = py::str(kv.first);
      if (name == "initial") {
        const py::sequence parts = py::reinterpret_borrow<py::sequence>(kv.second);
        if (!py::isinstance<py::sequence>(kv.second) || py::isinstance<py::array>(kv.second) ||
            static_cast<int>(py::len(parts)) != dim())
          throw ConfigError("parameter 'initial': give a list of " + std::to_string(dim()) +
                            " arrays, one per velocity component on its faces");
        for (int c = 0; c < dim(); ++c)
          assign(domain(), m.initial[c], parts[static_cast<std::size_t>(c)], m_gather,
                 std::string("parameter 'initial' component ") + "uvw"[c]);
      } else if (name == "design") {
        if (!m.flow.obstacles.has_design())
          throw ConfigError("parameter 'design': the case has no design field (set "
                            "obstacles.design)");
        assign(domain(), m.flow.obstacles.design, py::reinterpret_borrow<py::object>(kv.second),
               m_gather, "parameter 'design'");
      } else {
        bool found = false;
        for (const auto& p : list)
          if (p.name == name) {
            double v = 0;
            try {
              v = py::cast<double>(kv.second);
            } catch (const py::cast_error&) {
              throw ConfigError("parameter '" + name + "' is a number, not " +
                                std::string(py::str(py::type::of(kv.second).attr("__name__"))));
            }
            if (!std::isfinite(v))
              throw ConfigError("parameter '" + name + "' = " + std::to_string(v) +
                                " is not finite");
            adjoint::value_of(m, p) = v;
            found = true;
          }
        if (!found)
          throw ConfigError("unknown parameter '" + name + "'; this case's parameters are " +
                            known());
      }
    }
    return m;
  }

  py::object outputs_of(const std::vector<double>& y) {
    if (!problem().has_sensors())
      return py::float_(y[0]);
    return py::array_t<double>(static_cast<py::ssize_t>(y.size()), y.data());
  }

  /// The parameters of later vjp() calls.
  void remember(const py::dict& params) {
    m_m = control(params);
    m_wrt.clear();
    for (const auto& kv : params)
      m_wrt.push_back(py::str(kv.first));
    m_has_m = true;
  }

  py::object forward(const py::dict& params) {
    remember(params);
    return outputs_of(problem().outputs(m_m));
  }

  py::dict vjp(const py::object& cotangent, const py::object& params) {
    if (!params.is_none())
      remember(py::cast<py::dict>(params));
    if (!m_has_m)
      throw ConfigError("vjp() before forward(): call forward(params) first, or give params");
    std::vector<double> ybar;
    if (problem().has_sensors()) {
      auto a = py::array_t<double, py::array::forcecast>::ensure(cotangent);
      if (!a || a.ndim() != 1 || static_cast<std::size_t>(a.size()) != problem().output_count())
        throw ConfigError("vjp(cotangent): give " + std::to_string(problem().output_count()) +
                          " numbers, one per sensor");
      ybar.assign(a.data(), a.data() + a.size());
    } else {
      ybar = {py::cast<double>(cotangent)};
    }
    const adjoint::Gradient g = problem().gradient(m_m, ybar);
    const double scale = problem().has_sensors() ? 1.0 : ybar[0];
    return gradient_dict(g, scale, m_wrt);
  }

  py::tuple value_and_grad(const py::dict& params) {
    if (problem().has_sensors())
      throw ConfigError("value_and_grad() is for a scalar objective; with sensors use "
                        "forward() and vjp(cotangent)");
    remember(params);
    const adjoint::Gradient g = problem().gradient(m_m, {1.0});
    return py::make_tuple(py::float_(g.objective), gradient_dict(g, 1.0, m_wrt));
  }

  /// The entries `wrt` names (all scalar parameters if empty), times `scale`.
  py::dict gradient_dict(const adjoint::Gradient& g, double scale,
                         const std::vector<std::string>& wrt) {
    py::dict out;
    const auto names = wrt.empty() ? scalar_names() : wrt;
    for (const std::string& name : names) {
      if (name == "initial") {
        py::list parts;
        for (int c = 0; c < dim(); ++c)
          parts.append(scaled(field_array(domain(), g.initial[c], m_gather), scale));
        out["initial"] = parts;
      } else if (name == "design") {
        out["design"] = scaled(field_array(domain(), g.design, m_gather), scale);
      } else {
        for (const auto& p : problem().parameters())
          if (p.name == name)
            out[py::str(name)] = scale * adjoint::derivative_of(g, p);
      }
    }
    return out;
  }
  static py::object scaled(py::object a, double scale) {
    if (a.is_none() || scale == 1.0)
      return a;
    return a.attr("__mul__")(scale);
  }

  py::dict values() {
    const adjoint::Control& m = problem().case_control();
    py::dict out;
    for (const auto& p : problem().parameters())
      out[py::str(p.name)] = adjoint::value_of(const_cast<adjoint::Control&>(m), p);
    py::list parts;
    for (int c = 0; c < dim(); ++c)
      parts.append(field_array(domain(), m.initial[c], m_gather));
    out["initial"] = parts;
    if (m.flow.obstacles.has_design())
      out["design"] = field_array(domain(), m.flow.obstacles.design, m_gather);
    return out;
  }

  Gather gather() const { return m_gather; }

 private:
  std::unique_ptr<Problem> m_problem;
  Gather m_gather;
  adjoint::Control m_m;
  bool m_has_m = false;
  std::vector<std::string> m_wrt;
};

std::vector<Sensor> sensors_from(const py::object& spec, int dim) {
  std::vector<Sensor> out;
  if (spec.is_none())
    return out;
  for (const auto& item : spec) {
    const py::tuple t = py::cast<py::tuple>(item);
    if (py::len(t) != 2)
      throw ConfigError("a sensor is (component, point), e.g. ('u', (0.5, 0.2))");
    Sensor s;
    s.component = velocity_component(py::str(t[0]), dim, "sensor component");
    s.point = point_of(py::cast<std::vector<double>>(t[1]), dim, "sensor point");
    out.push_back(s);
  }
  if (out.empty())
    throw ConfigError("sensors is empty: give at least one (component, point), or None for the "
                      "case's objective");
  return out;
}

} // namespace

void bind_problem(py::module_& m) {
  using P = PyProblem;
  py::class_<P, std::shared_ptr<P>>(
      m, "Problem",
      "A Navier-Stokes case as a differentiable function y(params): y is the case's "
      "[objective] J (a float) or the values of `sensors` (an array), over time steps frozen "
      "when the Problem is made (time.dt, or time.cfl chosen by a run of the case's "
      "parameters), by the same driver and checkpointing ([checkpoint]) as `undertow "
      "gradient`. Every method is collective over the case's communicator.")
      .def(py::init([](const Case& c, const py::object& sensors,
                       const std::optional<std::string>& restart, bool verbose,
                       const std::string& fields) {
             const int dim = DomainSpec::from_config(c.loaded.config).dim;
             auto p = std::make_shared<P>(c, sensors_from(sensors, dim), restart.value_or(""),
                                          verbose, gather_from(fields, "fields"));
             track(p);
             return p;
           }),
           py::arg("case"), py::arg("sensors") = py::none(), py::arg("restart") = py::none(),
           py::arg("verbose") = false, py::arg("fields") = "global",
           "sensors: None (y = J of [objective]) or a list of (component, point), e.g. [('u', "
           "(1.0, 0.2)), ('v', (1.0, 0.2))]: the velocity at those cell centres, at the final "
           "time or averaged as objective.time says. restart: the initial velocity from this "
           "restart file. fields: how field-valued parameters and gradients are laid out: "
           "'global' (the whole grid on every rank), 'root' (rank 0's whole grid; None on the "
           "others), 'local' (this rank's owned points).")
      .def_property_readonly("parameters", &P::scalar_names,
                             "the scalar parameters, named as in the case file")
      .def_property_readonly("field_parameters", &P::field_names,
                             "'initial' (the initial velocity before projection, one array per "
                             "component on its faces) and 'design' (per cell) if the case has one")
      .def("values", &P::values,
           "The case's value of every parameter (fields laid out as `fields` says).")
      .def_property_readonly(
          "steps", [](P& p) { return p.problem().steps().to_vector(); },
          "the frozen time steps [s]")
      .def_property_readonly(
          "n_outputs", [](P& p) { return p.problem().output_count(); },
          "1 (J) or the number of sensors")
      .def_property_readonly(
          "scalar", [](P& p) { return !p.problem().has_sensors(); },
          "True if y is the scalar J of [objective] (no sensors)")
      .def_property_readonly(
          "outputs", [](P& p) { return p.problem().describe_outputs(); }, "what y is, in words")
      .def("forward", &P::forward, py::arg("params") = py::dict(),
           "y at the case's parameters with `params` ({name: value}) replacing those it names: "
           "numbers for scalar parameters, a list of arrays for 'initial', an array for "
           "'design'. Returns J (float) or the sensors' values (array).")
      .def("vjp", &P::vjp, py::arg("cotangent") = 1.0, py::arg("params") = py::none(),
           "ybar^T dy/dparams at `params` (default: the last forward()'s), by the discrete "
           "adjoint (a forward run with tapes and the reverse sweep): a dict over the names "
           "that params holds (every scalar parameter if none). "
           "cotangent: a float for J, an array with one entry per sensor.")
      .def("value_and_grad", &P::value_and_grad, py::arg("params") = py::dict(),
           "(J, dJ/dparams) in one forward and one reverse sweep (a scalar objective only).")
      .def("__repr__", [](P& p) {
        return "<undertow.Problem: " + p.problem().describe_outputs() + ", " +
               std::to_string(p.problem().steps().size()) + " steps>";
      });
}

} // namespace python
} // namespace undertow
