/// \file
/// The elastodynamic adjoint (elastodynamics_gradient.hpp): Newmark as an AdjointModel of the
/// reverse sweep. Its forward state is (u, v, a) and the clock; a step's tape is the state after
/// the step, which both the misfit's derivative and the parameter terms read; its adjoint
/// variable is (ubar, vbar, abar) with the parameter sums gathered so far.

#include "undertow/adjoint/elastodynamics_gradient.hpp"

#include "undertow/core/error.hpp"

namespace undertow {
namespace adjoint {

using elasticity::combine;
using elasticity::LinearElasticity;
using elasticity::Newmark;
using elasticity::NewmarkSettings;
using elasticity::NodeVector;

namespace {

const char* kState[3] = {"u", "v", "a"};

/// Sensors resolved to nodes: this rank reads and seeds the ones it owns.
class SensorSet {
 public:
  SensorSet(const LinearElasticity& solver, const std::vector<Sensor>& sensors)
      : m_comm(solver.domain().comm()), m_sensors(sensors) {
    for (const Sensor& s : sensors) {
      if (s.component < 0 || s.component >= solver.dim())
        throw ConfigError(
            format("a sensor's component %d does not exist in %dD", s.component, solver.dim()));
      m_nodes.push_back(solver.locate_node(s.point)); // throws if it is not a node
    }
  }

  /// The readings of `u`, on every rank. Collective.
  std::vector<double> values(const NodeVector& u) const {
    std::vector<double> mine(m_sensors.size(), 0.0);
    for (std::size_t s = 0; s < m_sensors.size(); ++s)
      if (m_nodes[s].owned) {
        const auto& i = m_nodes[s].index;
        auto one = Kokkos::subview(u[m_sensors[s].component].view(), i[0], i[1], i[2]);
        mine[s] = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one)();
      }
    return m_comm.sum(mine);
  }

  /// g at sensor s += w[s] on the owning rank. Not collective.
  void add(NodeVector& g, const std::vector<double>& w) const {
    for (std::size_t s = 0; s < m_sensors.size(); ++s)
      if (m_nodes[s].owned) {
        const auto& i = m_nodes[s].index;
        auto one = Kokkos::subview(g[m_sensors[s].component].view(), i[0], i[1], i[2]);
        auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), one);
        host() += w[s];
        Kokkos::deep_copy(one, host);
      }
  }

 private:
  const Communicator& m_comm;
  std::vector<Sensor> m_sensors;
  std::vector<LinearElasticity::NodeLocation> m_nodes;
};

/// J's term of one step: 1/2 dt sum_s (reading_s - measured_s)^2.
double misfit_term(const std::vector<double>& readings, const std::vector<double>& measured,
                   double dt) {
  double sum = 0;
  for (std::size_t s = 0; s < readings.size(); ++s)
    sum += (readings[s] - measured[s]) * (readings[s] - measured[s]);
  return 0.5 * dt * sum;
}

/// Copies a node vector's dim components into fields of a snapshot (made on first use).
void keep(int dim, const NodeVector& v, const char* name, Snapshot& s, std::size_t& i) {
  for (int c = 0; c < dim; ++c, ++i) {
    if (s.fields.size() <= i)
      s.fields.emplace_back(std::string(name) + "_" + "xyz"[c],
                            Field(v[c].layout(), std::string("tape_") + name));
    copy(v[c], s.fields[i].second);
  }
}

void check_measurements(const DisplacementMisfit& misfit, std::size_t steps) {
  if (misfit.measured.size() != steps)
    throw ConfigError(format("the measurements hold %.0f steps but the run takes %.0f: give one "
                             "row of readings per time step",
                             double(misfit.measured.size()), double(steps)));
  for (const auto& row : misfit.measured)
    if (row.size() != misfit.sensors.size())
      throw ConfigError(format("a row of measurements holds %.0f readings for %.0f sensors",
                               double(row.size()), double(misfit.sensors.size())));
}

class ElastodynamicsModel : public AdjointModel {
 public:
  ElastodynamicsModel(LinearElasticity& solver, const NewmarkSettings& settings,
                      const DisplacementMisfit& misfit, DynamicGradient& out)
      : m_solver(solver), m_run(solver, settings), m_adjoint(m_run), m_misfit(misfit),
        m_sensors(solver, misfit.sensors), m_dim(solver.dim()), m_out(out),
        m_ubar(solver.make_node_vector("adj::ubar")), m_vbar(solver.make_node_vector("adj::vbar")),
        m_abar(solver.make_node_vector("adj::abar")), m_fbar(solver.make_node_vector("adj::fbar")),
        m_work(solver.make_node_vector("adj::work")), m_k_v(solver.make_node_vector("adj::Kv")),
        m_energy(solver.domain(), Location::Cell, 0, "adj::element_energy"),
        m_energy_sum(solver.domain(), Location::Cell, 0, "adj::element_energy_sum") {
    m_run.start();
  }

  const Communicator& comm() const override { return m_solver.domain().comm(); }
  long steps() const override { return m_run.steps(); }
  double time() const override { return m_run.time(); }

  Snapshot state() override {
    Snapshot s;
    s.step = m_run.steps();
    const NodeVector* parts[3] = {&m_run.displacement(), &m_run.velocity(), &m_run.acceleration()};
    for (int p = 0; p < 3; ++p)
      for (int c = 0; c < m_dim; ++c)
        s.fields.emplace_back(std::string(kState[p]) + "_" + "xyz"[c], (*parts[p])[c]);
    s.numbers["time"] = m_run.time();
    s.numbers["steps"] = double(m_run.steps());
    return s;
  }

  void restore(const Snapshot& s) override {
    NodeVector* parts[3] = {&m_run.displacement(), &m_run.velocity(), &m_run.acceleration()};
    std::size_t i = 0;
    for (int p = 0; p < 3; ++p)
      for (int c = 0; c < m_dim; ++c)
        copy(s.fields.at(i++).second, (*parts[p])[c]);
    m_run.restore_clock(s.numbers.at("time"), static_cast<long>(s.numbers.at("steps")));
  }

  void restart() override { m_run.start(); }

  long step(double dt, Snapshot* tape) override {
    const long iterations = m_run.step(dt).iterations;
    if (tape) {
      std::size_t i = 0;
      keep(m_dim, m_run.displacement(), "u", *tape, i);
      keep(m_dim, m_run.velocity(), "v", *tape, i);
      keep(m_dim, m_run.acceleration(), "a", *tape, i);
      tape->numbers["dt"] = dt;
      tape->numbers["time"] = m_run.time();
    }
    return iterations;
  }

  double objective_term(long step, double dt, bool) override {
    return misfit_term(m_sensors.values(m_run.displacement()),
                       m_misfit.measured[static_cast<std::size_t>(step - 1)], dt);
  }

  long reverse(long k, bool, Snapshot& tape) override {
    const double dt = tape.numbers.at("dt"), t = tape.numbers.at("time");
    NodeVector u, v, a; // the state after step k, from the tape (shared)
    for (int c = 0; c < m_dim; ++c) {
      u[c] = tape.fields.at(static_cast<std::size_t>(c)).second;
      v[c] = tape.fields.at(static_cast<std::size_t>(m_dim + c)).second;
      a[c] = tape.fields.at(static_cast<std::size_t>(2 * m_dim + c)).second;
    }
    // The misfit's derivative at x_{k+1}.
    const std::vector<double> readings = m_sensors.values(u);
    const std::vector<double>& measured = m_misfit.measured[static_cast<std::size_t>(k)];
    std::vector<double> seed(readings.size());
    for (std::size_t s = 0; s < seed.size(); ++s)
      seed[s] = dt * (readings[s] - measured[s]);
    m_sensors.add(m_ubar, seed);
    const long iterations = m_adjoint.step(dt, m_ubar, m_vbar, m_abar);
    add_parameter_terms(m_adjoint.multiplier(), u, v, a, t);
    return iterations;
  }

  long finish() override {
    // The start, M a_0 = g(0) f: M mu_0 = abar_0; u_0 = v_0 = 0 depend on nothing.
    long iterations = 0;
    const double g0 = m_run.settings().load.at(0.0);
    if (g0 != 0.0) {
      NodeVector mu = m_solver.make_node_vector("adj::mu0");
      m_solver.assemble_operator(0.0, 1.0);
      iterations =
          m_solver.solve_operator(m_abar, mu, "adjoint of the initial acceleration").iterations;
      for (int c = 0; c < m_dim; ++c)
        axpy(g0, mu[c], m_fbar[c]);
      // dR0/drho_m = M a_0 / rho_m, at the recomputed a_0.
      m_run.start();
      m_solver.apply_operator(nullptr, &m_run.acceleration(), m_work);
      m_mass_density -= m_solver.dot(mu, m_work) / m_solver.spec().mass_density;
    }
    const elasticity::Simp simp = m_solver.spec().simp;
    const FieldView rho = m_solver.density().view(), e = m_energy_sum.view();
    m_out.density = Field(m_solver.domain(), Location::Cell, 0, "dJ_drho");
    const FieldView g = m_out.density.view();
    for_each(
        "elastodynamics_adjoint::density_gradient", m_solver.density().owned(),
        KOKKOS_LAMBDA(long i, long j, long kk) {
          g(i, j, kk) = simp.modulus_derivative(rho(i, j, kk)) * e(i, j, kk);
        });
    m_out.youngs_modulus = comm().sum(local_sum(
        "elastodynamics_adjoint::modulus_gradient", m_solver.density().owned(),
        KOKKOS_LAMBDA(long i, long j, long kk, double& acc) {
          acc += simp.modulus_per_E0(rho(i, j, kk)) * e(i, j, kk);
        }));
    m_out.load = m_fbar;
    m_out.mass_density = m_mass_density;
    m_out.rayleigh_mass = m_rayleigh_mass;
    m_out.rayleigh_stiffness = m_rayleigh_stiffness;
    return iterations;
  }

  Snapshot adjoint_state() override {
    Snapshot r;
    const NodeVector* parts[4] = {&m_ubar, &m_vbar, &m_abar, &m_fbar};
    const char* names[4] = {"ubar", "vbar", "abar", "fbar"};
    for (int p = 0; p < 4; ++p)
      for (int c = 0; c < m_dim; ++c)
        r.fields.emplace_back(std::string(names[p]) + "_" + "xyz"[c], (*parts[p])[c]);
    r.fields.emplace_back("element_energy_sum", m_energy_sum);
    r.numbers["dJ_dmass_density"] = m_mass_density;
    r.numbers["dJ_drayleigh_mass"] = m_rayleigh_mass;
    r.numbers["dJ_drayleigh_stiffness"] = m_rayleigh_stiffness;
    return r;
  }

  void restore_adjoint_state(const Snapshot& r) override {
    NodeVector* parts[4] = {&m_ubar, &m_vbar, &m_abar, &m_fbar};
    std::size_t i = 0;
    for (int p = 0; p < 4; ++p)
      for (int c = 0; c < m_dim; ++c)
        copy(r.fields.at(i++).second, (*parts[p])[c]);
    copy(r.fields.at(i).second, m_energy_sum);
    m_mass_density = r.numbers.at("dJ_dmass_density");
    m_rayleigh_mass = r.numbers.at("dJ_drayleigh_mass");
    m_rayleigh_stiffness = r.numbers.at("dJ_drayleigh_stiffness");
  }

 private:
  /// -mu . dR/dp of the step that reached (u, v, a) at time t, R = M (a + alpha v) +
  /// K (u + beta_R v) - g(t) f.
  void add_parameter_terms(const NodeVector& mu, const NodeVector& u, const NodeVector& v,
                           const NodeVector& a, double t) {
    const NewmarkSettings& s = m_run.settings();
    combine(m_dim, 1.0, u, s.rayleigh_stiffness, &v, m_work);
    m_solver.element_energy(mu, m_work, m_energy);
    axpy(-1.0, m_energy, m_energy_sum);
    for (int c = 0; c < m_dim; ++c)
      axpy(s.load.at(t), mu[c], m_fbar[c]);
    combine(m_dim, 1.0, a, s.rayleigh_mass, &v, m_work);
    m_solver.apply_operator(nullptr, &m_work, m_k_v);
    m_mass_density -= m_solver.dot(mu, m_k_v) / m_solver.spec().mass_density;
    m_solver.apply_operator(&v, nullptr, m_k_v);
    m_rayleigh_stiffness -= m_solver.dot(mu, m_k_v);
    m_solver.apply_operator(nullptr, &v, m_k_v);
    m_rayleigh_mass -= m_solver.dot(mu, m_k_v);
  }

  LinearElasticity& m_solver;
  Newmark m_run;
  NewmarkAdjoint m_adjoint;
  const DisplacementMisfit& m_misfit;
  SensorSet m_sensors;
  int m_dim;
  DynamicGradient& m_out;
  NodeVector m_ubar, m_vbar, m_abar, m_fbar, m_work, m_k_v;
  Field m_energy, m_energy_sum;
  double m_mass_density = 0, m_rayleigh_mass = 0, m_rayleigh_stiffness = 0;
};

} // namespace

std::vector<std::vector<double>> record_sensors(LinearElasticity& solver,
                                                const NewmarkSettings& settings,
                                                const std::vector<Sensor>& sensors,
                                                const std::vector<double>& dts) {
  const SensorSet set(solver, sensors);
  Newmark run(solver, settings);
  run.start();
  std::vector<std::vector<double>> out;
  for (double dt : dts) {
    run.step(dt);
    out.push_back(set.values(run.displacement()));
  }
  return out;
}

double dynamic_objective(LinearElasticity& solver, const NewmarkSettings& settings,
                         const DisplacementMisfit& misfit, const std::vector<double>& dts) {
  check_measurements(misfit, dts.size());
  const auto readings = record_sensors(solver, settings, misfit.sensors, dts);
  double J = 0;
  for (std::size_t n = 0; n < dts.size(); ++n)
    J += misfit_term(readings[n], misfit.measured[n], dts[n]);
  if (!std::isfinite(J))
    throw CollectiveError("the elastodynamic objective is not finite: check the time steps and "
                          "the material parameters");
  return J;
}

DynamicGradient dynamic_gradient(LinearElasticity& solver, const NewmarkSettings& settings,
                                 const DisplacementMisfit& misfit, const std::vector<double>& dts,
                                 const Checkpointing& checkpointing, const Log& log,
                                 long progress_every) {
  check_measurements(misfit, dts.size());
  DynamicGradient g;
  ElastodynamicsModel model(solver, settings, misfit, g);
  static_cast<SweepStats&>(g) = reverse_sweep(model, checkpointing, dts, log, progress_every);
  return g;
}

} // namespace adjoint
} // namespace undertow
