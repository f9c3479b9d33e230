#include "undertow/adjoint/objective.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"
#include "undertow/solvers/navier_stokes/transposes.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

namespace undertow {
namespace adjoint {

using navier_stokes::Velocity;
using navier_stokes::velocity_views;

double TimeWindow::weight(const StepState& s) const {
  if (!average)
    return s.last ? 1.0 : 0.0;
  // The rectangle rule on (t_n, t_{n+1}], clipped to the window.
  const double t0 = s.time - s.dt, t1 = s.time;
  const double overlap = std::min(t1, end) - std::max(t0, start);
  return overlap > 0 ? overlap / (end - start) : 0.0;
}

void ObjectiveSum::add(double weight, std::unique_ptr<Objective> term) {
  m_terms.emplace_back(weight, std::move(term));
}

void ObjectiveSum::set_weights(const std::vector<double>& weights) {
  if (weights.size() != m_terms.size())
    throw Error("ObjectiveSum::set_weights: " + std::to_string(weights.size()) + " weights for " +
                std::to_string(m_terms.size()) + " terms");
  for (std::size_t i = 0; i < weights.size(); ++i)
    m_terms[i].first = weights[i];
}

double ObjectiveSum::value(const StepState& state, std::vector<double>* terms) {
  if (terms && terms->size() < m_terms.size())
    terms->resize(m_terms.size(), 0.0);
  const double w = m_window.weight(state);
  if (w == 0.0)
    return 0.0;
  double sum = 0;
  for (std::size_t i = 0; i < m_terms.size(); ++i) {
    const double j = m_terms[i].second->value(state);
    sum += m_terms[i].first * j;
    if (terms)
      (*terms)[i] += w * j;
  }
  return w * sum;
}

void ObjectiveSum::derivative(const StepState& state, StepSeeds& seeds) {
  for (Field& f : seeds.velocity)
    if (f.view().data())
      fill_value(f, f.ghosted(), 0.0);
  for (auto& f : seeds.force)
    f = {0, 0, 0};
  fill_value(seeds.pressure, seeds.pressure.ghosted(), 0.0);
  seeds.has_velocity = seeds.has_force = seeds.has_pressure = false;
  const double w = m_window.weight(state);
  if (w == 0.0)
    return;
  for (auto& t : m_terms)
    t.second->add_derivative(state, w * t.first, seeds);
}

std::string ObjectiveSum::describe() const {
  std::string s;
  for (const auto& t : m_terms)
    s += (s.empty() ? "" : " + ") + (t.first == 1.0 ? std::string() : format("%g * ", t.first)) +
         t.second->describe();
  return s + (m_window.average
                  ? format(", averaged over t in [%g, %g]", m_window.start, m_window.end)
                  : std::string(", at the final time"));
}

namespace {

// Kernels live in free functions: CUDA's extended lambdas may not sit in private members.

/// out := a - b over the owned points.
void subtract(const Field& a, const Field& b, Field& out) {
  const FieldView av = a.view(), bv = b.view(), o = out.view();
  for_each(
      "adj::misfit", out.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) { o(i, j, k) = av(i, j, k) - bv(i, j, k); });
}

/// Force coefficient 2 F_a / (U^2 L) of one obstacle along one axis (drag, lift, side force).
/// C = scale F_axis of one obstacle, or C^2 (`squared`: averaged over a window, the mean
/// square, whose root is the RMS of a fluctuation about zero).
class ForceCoefficient : public Objective {
 public:
  ForceCoefficient(int obstacle, int axis, double scale, std::string name, bool squared = false)
      : m_k(obstacle), m_axis(axis), m_scale(scale), m_name(std::move(name)), m_squared(squared) {}
  std::string describe() const override {
    return m_name + (m_squared ? " (the square of the coefficient)" : " coefficient") +
           " of obstacle " + std::to_string(m_k + 1);
  }
  double value(const StepState& s) override {
    const double c = m_scale * (*s.forces)[m_k][m_axis];
    return m_squared ? c * c : c;
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    const double c = m_scale * (*s.forces)[m_k][m_axis];
    seeds.force[m_k][m_axis] += weight * m_scale * (m_squared ? 2.0 * c : 1.0);
    seeds.has_force = true;
  }

 private:
  int m_k, m_axis;
  double m_scale;
  std::string m_name;
  bool m_squared;
};

/// seed += scale u dV over the owned points (dV the control volume of each).
void add_volume_weighted(double scale, const Field& u, int dim, Field& seed) {
  const FieldView uv = u.view(), sv = seed.view();
  const GridGeometry g = u.geometry();
  for_each(
      "adj::kinetic_energy_stretched", u.owned(), KOKKOS_LAMBDA(long i, long j, long k) {
        sv(i, j, k) += scale * uv(i, j, k) * g.control_volume(dim, i, j, k);
      });
}

/// weights.u[a] := scale dV omega_a at the lower corner of every owned cell, 0 elsewhere (dV
/// the cell's volume on a stretched grid, 1 on a uniform one): the adjoint of each edge value.
template <class S>
void enstrophy_weights(const Velocity& v, const Velocity3& weights, const S& sp, int dim,
                       bool uniform, double scale) {
  for (int a = (dim == 2 ? 2 : 0); a < 3; ++a) {
    const Field& out = weights[a];
    const FieldView w = out.view();
    const GridGeometry g = out.geometry();
    const KernelBox owned(out.owned());
    for_each(
        "adj::enstrophy_weights", out.ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
          const bool in = owned.contains(i, j, k);
          const double volume = uniform ? 1.0 : g.control_volume(dim, i, j, k);
          w(i, j, k) = in ? scale * volume * navier_stokes::edge_vorticity(v, a, sp, i, j, k) : 0.0;
        });
  }
}

/// lam_T += the transpose of every edge vorticity, weighted by `weights`, in gather form.
template <class S>
void add_enstrophy_derivative(const Velocity& weights, const Velocity3& lam, const S& sp, int dim) {
  for (int t = 0; t < dim; ++t) {
    const FieldView l = lam[t].view();
    for_each(
        "adj::enstrophy_derivative", lam[t].ghosted(), KOKKOS_LAMBDA(long i, long j, long k) {
          l(i, j, k) += navier_stokes::edge_vorticity_gather(weights, t, sp, i, j, k);
        });
  }
}

/// Kinetic energy 1/2 <|u|^2>, as NavierStokes::kinetic_energy.
class KineticEnergy : public Objective {
 public:
  explicit KineticEnergy(const Domain& d) : m_domain(d) {}
  std::string describe() const override { return "kinetic energy"; }
  double value(const StepState& s) override {
    return navier_stokes::kinetic_energy(m_domain, *s.velocity);
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    for (int c = 0; c < m_domain.dim(); ++c) {
      const Field& u = (*s.velocity)[c];
      if (m_domain.all_uniform())
        axpy(weight / double(u.layout().global.size()), u, seeds.velocity[c]);
      else // the volume-weighted mean
        add_volume_weighted(weight / navier_stokes::total_control_volume(m_domain, u), u,
                            m_domain.dim(), seeds.velocity[c]);
    }
    seeds.has_velocity = true;
  }

 private:
  const Domain& m_domain;
};

/// Enstrophy 1/2 <|curl u|^2>, as NavierStokes::enstrophy (edge vorticity, cell average).
class Enstrophy : public Objective {
 public:
  explicit Enstrophy(const Domain& d)
      : m_domain(d), m_spacing(grid_spacing(d, d.layout(Location::Cell, 1))) {
    for (int a = (d.dim() == 2 ? 2 : 0); a < 3; ++a)
      m_weights[a] = Field(d, Location::Cell, 1, "adj::enstrophy_weights");
  }
  std::string describe() const override { return "enstrophy"; }
  double value(const StepState& s) override {
    return navier_stokes::enstrophy(m_domain, *s.velocity);
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    const Velocity v = velocity_views(*s.velocity);
    const int dim = m_domain.dim();
    const bool uniform = m_domain.all_uniform();
    // A stretched grid's enstrophy is the volume integral over the box's volume.
    const double scale =
        weight / (uniform ? double(m_weights[2].layout().global.size()) : m_domain.box_volume());
    Velocity weights;
    for (int a = (dim == 2 ? 2 : 0); a < 3; ++a)
      weights.u[a] = m_weights[a].view();
    with_spacing(m_spacing, [&](const auto& sp) {
      enstrophy_weights(v, m_weights, sp, dim, uniform, scale);
      add_enstrophy_derivative(weights, seeds.velocity, sp, dim);
    });
    seeds.has_velocity = true;
  }

 private:
  const Domain& m_domain;
  GridSpacing m_spacing;
  Velocity3 m_weights; ///< the adjoint of each edge vorticity component, per cell
};

/// Local indices of the cell containing x on this rank, or false if another rank owns it.
bool owned_cell(const Domain& d, const Field& cells, const std::array<double, 3>& x, long idx[3]) {
  bool inside = true;
  for (int a = 0; a < 3; ++a) {
    const long global = a < d.dim() ? d.cell_containing(a, x[a]) : 0;
    idx[a] = global - cells.layout().global_offset[a];
    inside = inside && idx[a] >= cells.owned().begin[a] && idx[a] < cells.owned().end[a];
  }
  return inside;
}

std::array<double, 3> point(const std::vector<double>& v, int dim, std::size_t first) {
  std::array<double, 3> p{0, 0, 0};
  for (int a = 0; a < dim; ++a)
    p[a] = v[first + a];
  return p;
}

/// Pressure difference p(x1) - p(x2) between two probe cells.
class PressureDrop : public Objective {
 public:
  PressureDrop(const Domain& d, std::array<double, 3> x1, std::array<double, 3> x2)
      : m_domain(d), m_weights(d, Location::Cell, 1, "adj::pressure_probes") {
    auto host = Kokkos::create_mirror_view(m_weights.view());
    Kokkos::deep_copy(host, 0.0);
    long idx[3];
    if (owned_cell(d, m_weights, x1, idx))
      host(idx[0], idx[1], idx[2]) += 1.0;
    if (owned_cell(d, m_weights, x2, idx))
      host(idx[0], idx[1], idx[2]) -= 1.0;
    Kokkos::deep_copy(m_weights.view(), host);
  }
  std::string describe() const override { return "pressure drop"; }
  double value(const StepState& s) override {
    if (!s.pressure)
      throw Error("PressureDrop::value needs the pressure of the step");
    return global_dot(m_domain.comm(), *s.pressure, m_weights);
  }
  void add_derivative(const StepState&, double weight, StepSeeds& seeds) override {
    axpy(weight, m_weights, seeds.pressure);
    seeds.has_pressure = true;
  }

 private:
  const Domain& m_domain;
  Field m_weights;
};

/// 1/2 <|u - u_target|^2> with the target velocity on the MAC faces from an HDF5 file (a restart
/// file of another run, datasets u, v, w).
class VelocityMisfit : public Objective {
 public:
  VelocityMisfit(navier_stokes::NavierStokes& ns, const std::string& path) : m_domain(ns.domain()) {
    m_target = ns.make_velocity("adj::target");
    m_difference = ns.make_velocity("adj::misfit");
    const io::FieldFile file(m_domain, path, io::FieldFile::Mode::Read);
    for (int c = 0; c < m_domain.dim(); ++c)
      file.read(std::string(1, "uvw"[c]), m_target[c]);
  }
  std::string describe() const override { return "velocity misfit"; }
  double value(const StepState& s) override {
    difference(s);
    double sum = 0;
    for (int c = 0; c < m_domain.dim(); ++c)
      sum += global_dot(m_domain.comm(), m_difference[c], m_difference[c]) /
             double(m_difference[c].layout().global.size());
    return 0.5 * sum;
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    difference(s);
    for (int c = 0; c < m_domain.dim(); ++c)
      axpy(weight / double(m_difference[c].layout().global.size()), m_difference[c],
           seeds.velocity[c]);
    seeds.has_velocity = true;
  }

 private:
  void difference(const StepState& s) {
    for (int c = 0; c < m_domain.dim(); ++c)
      subtract((*s.velocity)[c], m_target[c], m_difference[c]);
  }
  const Domain& m_domain;
  Velocity3 m_target, m_difference;
};

/// 1/2 (u_c(x_p, t) - d(t))^2: the cell-centred velocity component at a probe against a
/// measured time series d (CSV rows "time,value", interpolated linearly in time).
/// u_c at the centre of the cell containing x: a velocity sensor (navier_stokes/sensors.hpp).
class ProbePoint {
 public:
  ProbePoint(navier_stokes::NavierStokes& ns, std::array<double, 3> x, int component)
      : m_domain(ns.domain()), m_c(component) {
    m_sensor.add(m_c,
                 navier_stokes::probe_faces(m_domain, x, m_c, ns.velocity(m_c).layout().ghost));
  }
  int component() const { return m_c; }
  /// u_c(x) in the state. Collective.
  double value(const StepState& s) const {
    return m_sensor.read(m_domain.comm(), *s.velocity).at(0);
  }
  /// Adds weight * du_c(x)/du to the seeds. Not collective.
  void add_derivative(double weight, StepSeeds& seeds) const {
    m_sensor.add_transpose({weight}, seeds.velocity);
    seeds.has_velocity = true;
  }

 private:
  const Domain& m_domain;
  int m_c;
  navier_stokes::VelocitySensors m_sensor;
};

class ProbeValue : public Objective {
 public:
  ProbeValue(navier_stokes::NavierStokes& ns, std::array<double, 3> x, int component)
      : m_probe(ns, x, component) {}
  std::string describe() const override {
    return std::string("probe of ") + "uvw"[m_probe.component()];
  }
  double value(const StepState& s) override { return m_probe.value(s); }
  void add_derivative(const StepState&, double weight, StepSeeds& seeds) override {
    m_probe.add_derivative(weight, seeds);
  }

 private:
  ProbePoint m_probe;
};

class ProbeMisfit : public Objective {
 public:
  ProbeMisfit(navier_stokes::NavierStokes& ns, std::array<double, 3> x, int component,
              std::vector<double> times, std::vector<double> values)
      : m_probe(ns, x, component), m_times(std::move(times)), m_values(std::move(values)) {
    if (m_times.empty() || m_times.size() != m_values.size())
      throw ConfigError("probe_misfit: the data needs as many values as times, at least one");
  }
  std::string describe() const override {
    return std::string("probe misfit of ") + "uvw"[m_probe.component()];
  }
  double value(const StepState& s) override {
    const double r = m_probe.value(s) - data(s.time);
    return 0.5 * r * r;
  }
  void add_derivative(const StepState& s, double weight, StepSeeds& seeds) override {
    m_probe.add_derivative(weight * (m_probe.value(s) - data(s.time)), seeds);
  }

 private:
  double data(double t) const {
    if (t <= m_times.front())
      return m_values.front();
    if (t >= m_times.back())
      return m_values.back();
    const std::size_t i = static_cast<std::size_t>(
        std::upper_bound(m_times.begin(), m_times.end(), t) - m_times.begin());
    const double f = (t - m_times[i - 1]) / (m_times[i] - m_times[i - 1]);
    return (1 - f) * m_values[i - 1] + f * m_values[i];
  }
  ProbePoint m_probe;
  std::vector<double> m_times, m_values;
};

/// Rows "time,value" of a CSV file (a header line and '#' comments are skipped). Collective.
void read_series(const Communicator& comm, const std::string& path, std::vector<double>& times,
                 std::vector<double>& values) {
  std::string text;
  run_on_root(comm, [&] { text = io::read_file(path); });
  text = comm.broadcast(text);
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#' || std::isalpha(static_cast<unsigned char>(line[0])))
      continue;
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream row(line);
    double t, v;
    if (!(row >> t >> v))
      throw ConfigError("objective.probe_data: line " + std::to_string(number) + " of " + path +
                        " is not 'time,value'");
    if (!times.empty() && t <= times.back())
      throw ConfigError("objective.probe_data: times in " + path + " must increase (line " +
                        std::to_string(number) + ")");
    times.push_back(t);
    values.push_back(v);
  }
  if (times.empty())
    throw ConfigError("objective.probe_data: no 'time,value' rows in " + path);
}

struct Registered {
  std::string description;
  ObjectiveFactory factory;
};

double force_scale(const ObjectiveContext& ctx) {
  const double U = ctx.config.get_real("forces.reference_velocity");
  return 2.0 / (U * U *
                (ctx.ns.domain().dim() == 2 ? ctx.config.get_real("forces.reference_length")
                                            : ctx.config.get_real("forces.reference_area")));
}

ObjectiveFactory force_factory(int axis, const std::string& name, bool squared = false) {
  return [axis, name, squared](const ObjectiveContext& ctx) -> std::unique_ptr<Objective> {
    const long k = ctx.config.get_int("objective.obstacle");
    if (k < 1 || k > static_cast<long>(ctx.ns.obstacle_count()))
      throw ConfigError("objective.obstacle = " + std::to_string(k) + ": the case has " +
                        std::to_string(ctx.ns.obstacle_count()) + " obstacle(s); " + name +
                        " needs one ([obstacle1] ...)");
    if (axis >= ctx.ns.domain().dim())
      throw ConfigError("objective term '" + name + "' needs a 3D domain");
    return std::make_unique<ForceCoefficient>(static_cast<int>(k - 1), axis, force_scale(ctx), name,
                                              squared);
  };
}

std::map<std::string, Registered>& registry() {
  static std::map<std::string, Registered> r = {
      {"drag",
       {"force coefficient along x of obstacle objective.obstacle (forces.*)",
        force_factory(0, "drag")}},
      {"lift",
       {"force coefficient along y of obstacle objective.obstacle", force_factory(1, "lift")}},
      {"lift_squared",
       {"the square of the lift coefficient of obstacle objective.obstacle; with objective.time "
        "= average its mean square (the squared RMS of a lift that oscillates about zero)",
        force_factory(1, "lift", true)}},
      {"side_force",
       {"force coefficient along z of obstacle objective.obstacle (3D)",
        force_factory(2, "side_force")}},
      {"kinetic_energy",
       {"1/2 <|u|^2> [m^2/s^2]",
        [](const ObjectiveContext& c) -> std::unique_ptr<Objective> {
          return kinetic_energy(c.ns.domain());
        }}},
      {"enstrophy",
       {"1/2 <|curl u|^2> [1/s^2]",
        [](const ObjectiveContext& c) -> std::unique_ptr<Objective> {
          return enstrophy(c.ns.domain());
        }}},
      {"pressure_drop",
       {"p(x1) - p(x2) at diagnostics.pressure_probes [m^2/s^2]",
        [](const ObjectiveContext& c) -> std::unique_ptr<Objective> {
          const Domain& d = c.ns.domain();
          if (!c.config.is_given("diagnostics.pressure_probes"))
            throw ConfigError("objective term 'pressure_drop' needs the two points "
                              "diagnostics.pressure_probes = x1 y1 [z1] x2 y2 [z2]");
          const auto p = c.config.get_real_list("diagnostics.pressure_probes");
          if (static_cast<int>(p.size()) != 2 * d.dim())
            throw ConfigError("diagnostics.pressure_probes needs 2 points of " +
                              std::to_string(d.dim()) + " coordinates");
          const auto x1 = point(p, d.dim(), 0), x2 = point(p, d.dim(), d.dim());
          require_inside(d, x1, "diagnostics.pressure_probes");
          require_inside(d, x2, "diagnostics.pressure_probes");
          return pressure_drop(d, x1, x2);
        }}},
      {"velocity_misfit",
       {"1/2 <|u - u_target|^2> against objective.target_file [m^2/s^2]",
        [](const ObjectiveContext& c) -> std::unique_ptr<Objective> {
          std::string path = c.config.get_string("objective.target_file");
          if (path.empty())
            throw ConfigError("objective term 'velocity_misfit' needs objective.target_file (an "
                              "HDF5 restart file with datasets u, v[, w] on this grid)");
          path = io::path_near_case(c.case_file, path);
          try {
            return velocity_misfit(c.ns, path);
          } catch (const ConfigError&) {
            throw;
          } catch (const std::exception& e) {
            throw ConfigError("objective.target_file = " + path + ": " + e.what() +
                              " It must be an HDF5 file with the datasets u, v[, w] on this "
                              "grid's MAC faces (a restart file of the same case).");
          }
        }}},
      {"probe_misfit",
       {"1/2 (u_c(probe) - data(t))^2 against objective.probe_data [m^2/s^2]",
        [](const ObjectiveContext& c) -> std::unique_ptr<Objective> {
          const Domain& d = c.ns.domain();
          std::string path = c.config.get_string("objective.probe_data");
          if (path.empty())
            throw ConfigError("objective term 'probe_misfit' needs objective.probe_data (a CSV "
                              "file of 'time,value' rows)");
          path = io::path_near_case(c.case_file, path);
          const auto x = point(c.config.get_real_list("objective.probe"), d.dim(), 0);
          require_inside(d, x, "objective.probe");
          const long comp = c.config.get_int("objective.probe_component");
          if (comp >= d.dim())
            throw ConfigError("objective.probe_component = " + std::to_string(comp) +
                              " is not a velocity component of a " + std::to_string(d.dim()) +
                              "D run (0, 1" + (d.dim() == 3 ? ", 2)" : ")"));
          std::vector<double> times, values;
          read_series(d.comm(), path, times, values);
          return probe_misfit(c.ns, x, static_cast<int>(comp), times, values);
        }}},
  };
  return r;
}

} // namespace

std::unique_ptr<Objective> force_coefficient(int obstacle, int axis, double scale,
                                             const std::string& name) {
  return std::make_unique<ForceCoefficient>(obstacle, axis, scale, name);
}
std::unique_ptr<Objective> kinetic_energy(const Domain& domain) {
  return std::make_unique<KineticEnergy>(domain);
}
std::unique_ptr<Objective> enstrophy(const Domain& domain) {
  return std::make_unique<Enstrophy>(domain);
}
std::unique_ptr<Objective> pressure_drop(const Domain& domain, std::array<double, 3> x1,
                                         std::array<double, 3> x2) {
  return std::make_unique<PressureDrop>(domain, x1, x2);
}
std::unique_ptr<Objective> velocity_misfit(navier_stokes::NavierStokes& ns,
                                           const std::string& path) {
  return std::make_unique<VelocityMisfit>(ns, path);
}
std::unique_ptr<Objective> probe_misfit(navier_stokes::NavierStokes& ns, std::array<double, 3> x,
                                        int component, std::vector<double> times,
                                        std::vector<double> values) {
  return std::make_unique<ProbeMisfit>(ns, x, component, std::move(times), std::move(values));
}
std::unique_ptr<Objective> probe_value(navier_stokes::NavierStokes& ns, std::array<double, 3> x,
                                       int component) {
  return std::make_unique<ProbeValue>(ns, x, component);
}

void register_objective(const std::string& name, const std::string& description,
                        ObjectiveFactory factory) {
  registry()[name] = {description, std::move(factory)};
}

std::vector<std::pair<std::string, std::string>> objective_names() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& kv : registry())
    out.emplace_back(kv.first, kv.second.description);
  return out;
}

void declare_objective_keys(ConfigSchema& s) {
  std::string names;
  for (const auto& kv : registry())
    names += (names.empty() ? "" : ", ") + kv.first;
  s.add("objective.terms", ValueType::String, "drag",
        "what `undertow gradient` differentiates: a space-separated list of terms, summed with "
        "objective.weights; one of " +
            names);
  s.add("objective.weights", ValueType::RealList, "1",
        "weight of each term of objective.terms (one per term)")
      .items(1, 16);
  s.add("objective.time", ValueType::Choice, "final",
        "final: the terms at the final time; average: their mean over objective.window")
      .one_of({"final", "average"});
  s.add("objective.window", ValueType::RealList, "0 0",
        "time window [start end] of objective.time = average [s]; 0 0: the whole run")
      .items(2, 2);
  s.add("objective.obstacle", ValueType::Integer, "1",
        "obstacle whose forces drag, lift and side_force measure")
      .at_least(1);
  s.add("objective.target_file", ValueType::String, "",
        "velocity_misfit: HDF5 file with the target velocity (datasets u, v[, w] on the MAC "
        "faces, e.g. a restart file), relative to the working directory or the case file");
  s.add("objective.probe", ValueType::RealList, "0 0 0", "probe_misfit: the probe point [m]")
      .items(2, 3);
  s.add("objective.probe_component", ValueType::Integer, "0",
        "probe_misfit: velocity component (0: u, 1: v, 2: w)")
      .at_least(0);
  s.add("objective.probe_data", ValueType::String, "",
        "probe_misfit: CSV file of 'time,value' rows, the measured series (interpolated "
        "linearly in time)");
}

TimeWindow objective_window(const Config& cfg) {
  TimeWindow window;
  window.average = cfg.get_string("objective.time") == "average";
  const auto w = cfg.get_real_list("objective.window");
  const double t_end = cfg.get_real("time.t_end");
  const bool whole_run = w[0] == 0 && w[1] == 0;
  window.start = w[0];
  window.end = whole_run ? t_end : w[1];
  if (window.average && !whole_run) {
    if (!(w[1] > w[0]))
      throw ConfigError(format("objective.window = %g %g is empty or inverted; give start < end "
                               "[s] (0 0 for the whole run)",
                               w[0], w[1]));
    if (std::isfinite(t_end) && w[1] > t_end * (1 + 1e-12))
      throw ConfigError(format("objective.window = %g %g ends after time.t_end = ", w[0], w[1]) +
                        format("%g: the run never reaches it; end the window by t_end or run "
                               "longer",
                               t_end));
  }
  return window;
}

ObjectiveSum make_objective(const ObjectiveContext& ctx) {
  const Config& cfg = ctx.config;
  const TimeWindow window = objective_window(cfg);
  ObjectiveSum sum(window);
  const std::vector<std::string> names = cfg.get_words("objective.terms");
  if (names.empty())
    throw ConfigError("objective.terms is empty; name at least one term (e.g. drag)");
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto it = registry().find(names[i]);
    if (it == registry().end()) {
      std::string known;
      for (const auto& kv : registry())
        known += (known.empty() ? "" : ", ") + kv.first;
      throw ConfigError("objective.terms: unknown term '" + names[i] + "'; known terms: " + known);
    }
  }
  const auto weights = cfg.get_real_list("objective.weights");
  if (weights.size() != names.size() && !(weights.size() == 1 && weights[0] == 1.0))
    throw ConfigError("objective.weights has " + std::to_string(weights.size()) + " entries for " +
                      std::to_string(names.size()) +
                      " terms in objective.terms; give one weight per term");
  for (std::size_t i = 0; i < names.size(); ++i)
    sum.add(weights.size() == names.size() ? weights[i] : 1.0,
            registry().find(names[i])->second.factory(ctx));
  return sum;
}

} // namespace adjoint
} // namespace undertow
