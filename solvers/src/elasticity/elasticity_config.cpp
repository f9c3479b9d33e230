/// Case-file keys of the elasticity solver (ElasticitySpec::declare_keys / from_config) and of
/// its Newmark dynamics (NewmarkSettings::declare_keys / from_config).

#include "undertow/core/error.hpp"
#include "undertow/solvers/elasticity/dynamics.hpp"
#include "undertow/solvers/elasticity/elasticity.hpp"

namespace undertow {
namespace elasticity {

namespace {

std::string support_section(int k) {
  return "support" + std::to_string(k + 1);
}
std::string load_section(int k) {
  return "load" + std::to_string(k + 1);
}

void declare_box(ConfigSchema& s, const std::string& section, const std::string& what) {
  s.add(section + ".box_lo", ValueType::RealList, "0 0 0",
        "lower corner of the box of " + what +
            " [m], one entry per axis; a degenerate box (lo = "
            "hi along an axis) selects a face, an edge or a point")
      .items(2, 3);
  s.add(section + ".box_hi", ValueType::RealList, "0 0 0",
        "upper corner of the box of " + what + " [m], one entry per axis")
      .items(2, 3);
}

Box box_from(const Config& c, const std::string& section, int dim) {
  Box b;
  for (const char* corner : {"box_lo", "box_hi"}) {
    const std::string key = section + "." + corner;
    if (!c.is_given(key))
      throw ConfigError("missing " + key + ": [" + section + "] needs box_lo and box_hi, " +
                        std::to_string(dim) + " numbers each [m]");
    const auto v = c.get_real_list(key);
    if (static_cast<int>(v.size()) != dim)
      throw ConfigError(key + " has " + std::to_string(v.size()) +
                        " entries but domain.dim = " + std::to_string(dim) + ": give one per axis");
    auto& out = std::string(corner) == "box_lo" ? b.lo : b.hi;
    for (int a = 0; a < dim; ++a)
      out[static_cast<std::size_t>(a)] = v[static_cast<std::size_t>(a)];
  }
  for (int a = 0; a < dim; ++a)
    if (b.lo[static_cast<std::size_t>(a)] > b.hi[static_cast<std::size_t>(a)])
      throw ConfigError(section + ".box_lo is above " + section + ".box_hi along axis " + "xyz"[a] +
                        ": swap them");
  return b;
}

std::array<double, 3> vector_from(const Config& c, const std::string& key, int dim) {
  const auto v = c.get_real_list(key);
  if (static_cast<int>(v.size()) != dim)
    throw ConfigError(key + " has " + std::to_string(v.size()) +
                      " entries but domain.dim = " + std::to_string(dim) + ": give one per axis");
  std::array<double, 3> out{0, 0, 0};
  for (int a = 0; a < dim; ++a)
    out[static_cast<std::size_t>(a)] = v[static_cast<std::size_t>(a)];
  return out;
}

} // namespace

void ElasticitySpec::declare_keys(ConfigSchema& s) {
  s.add("material.youngs_modulus", ValueType::Real, "1",
        "Young's modulus E0 of solid material [Pa]")
      .above(0);
  s.add("material.youngs_modulus_min", ValueType::Real, "1e-9",
        "Young's modulus of void (density 0) in SIMP, E_min [Pa]; keeps K regular")
      .above(0);
  s.add("material.simp_penalty", ValueType::Real, "3",
        "SIMP exponent p: E(rho) = E_min + rho^p (E0 - E_min)")
      .at_least(1);
  s.add("material.poisson_ratio", ValueType::Real, "0.3", "Poisson ratio nu").range(-0.999, 0.499);
  s.add("material.plane", ValueType::Choice, "stress",
        "2D only: plane stress (thin plate) or plane strain (long body)")
      .one_of({"stress", "strain"});
  s.add("material.mass_density", ValueType::Real, "1", "mass density [kg/m^3]").above(0);
  s.add("elasticity.linear_solver", ValueType::Choice, "cg_gamg",
        "cg_gamg: CG with smoothed-aggregation AMG (rigid-body near null space); direct: MUMPS "
        "LU (small problems, exact comparisons). PETSc options with the prefix elasticity_ "
        "override either")
      .one_of({"cg_gamg", "direct"});
  s.add("elasticity.rtol", ValueType::Real, "1e-10", "relative residual reduction of CG")
      .range(1e-16, 0.1);
  s.add("elasticity.max_iterations", ValueType::Integer, "5000",
        "most CG iterations per solve; more is a failed solve")
      .at_least(1);
  for (int k = 0; k < kMaxSupports; ++k) {
    const std::string sec = support_section(k);
    s.add(sec + ".fixed", ValueType::String, "",
          "components prescribed on the nodes of the box: letters of xyz (\"xy\": both in 2D); "
          "empty: no support " +
              std::to_string(k + 1));
    declare_box(s, sec, "supported nodes");
    s.add(sec + ".value", ValueType::RealList, "0 0 0",
          "prescribed displacement [m] of the fixed components, one entry per axis")
        .items(2, 3);
  }
  for (int k = 0; k < kMaxLoads; ++k) {
    const std::string sec = load_section(k);
    s.add(sec + ".kind", ValueType::Choice, "none",
          "point: a total force [N] shared by the nodes of the box; traction [Pa] on the "
          "boundary faces in the box; body [N/m^3] on the elements whose centres are in it")
        .one_of({"none", "point", "traction", "body"});
    declare_box(s, sec, "the load");
    s.add(sec + ".value", ValueType::RealList, "0 0 0",
          "the force [N], traction [Pa] or body force [N/m^3], one entry per axis")
        .items(2, 3);
  }
}

ElasticitySpec ElasticitySpec::from_config(const Config& c, int dim) {
  ElasticitySpec spec;
  spec.simp.E0 = c.get_real("material.youngs_modulus");
  spec.simp.E_min = c.get_real("material.youngs_modulus_min");
  spec.simp.penal = c.get_real("material.simp_penalty");
  if (spec.simp.E_min >= spec.simp.E0)
    throw ConfigError("material.youngs_modulus_min must be below material.youngs_modulus "
                      "(typically 1e-9 of it)");
  spec.poisson = c.get_real("material.poisson_ratio");
  spec.plane_stress = c.get_string("material.plane") == "stress";
  if (dim == 3 && c.is_given("material.plane"))
    throw ConfigError("material.plane applies to 2D only: remove it for domain.dim = 3");
  spec.mass_density = c.get_real("material.mass_density");
  spec.solver = c.get_string("elasticity.linear_solver") == "direct" ? LinearSolver::Direct
                                                                     : LinearSolver::CgGamg;
  spec.rtol = c.get_real("elasticity.rtol");
  spec.max_iterations = c.get_int("elasticity.max_iterations");
  for (int k = 0; k < kMaxSupports; ++k) {
    const std::string sec = support_section(k);
    const std::string fixed = c.get_string(sec + ".fixed");
    if (fixed.empty()) {
      for (const char* key : {".box_lo", ".box_hi", ".value"})
        if (c.is_given(sec + key))
          throw ConfigError(sec + key + " is given but " + sec +
                            ".fixed is empty: say which components it holds (e.g. fixed = xy)");
      continue;
    }
    Support sup;
    sup.fixed = {false, false, false};
    for (char ch : fixed) {
      const int a = ch == 'x' ? 0 : ch == 'y' ? 1 : ch == 'z' ? 2 : -1;
      if (a < 0 || a >= dim)
        throw ConfigError(sec + ".fixed = '" + fixed + "': use letters of " +
                          std::string("xyz").substr(0, static_cast<std::size_t>(dim)) +
                          " (the components to prescribe)");
      sup.fixed[static_cast<std::size_t>(a)] = true;
    }
    sup.box = box_from(c, sec, dim);
    if (c.is_given(sec + ".value"))
      sup.value = vector_from(c, sec + ".value", dim);
    spec.supports.push_back(sup);
  }
  if (spec.supports.empty())
    throw ConfigError("no support: add a [support1] section (fixed, box_lo, box_hi); a free "
                      "body has no static solution");
  for (int k = 0; k < kMaxLoads; ++k) {
    const std::string sec = load_section(k);
    const std::string kind = c.get_string(sec + ".kind");
    if (kind == "none") {
      for (const char* key : {".box_lo", ".box_hi", ".value"})
        if (c.is_given(sec + key))
          throw ConfigError(sec + key + " is given but " + sec +
                            ".kind is none: set kind = point, traction or body");
      continue;
    }
    Load load;
    load.kind = kind == "point"      ? LoadKind::Point
                : kind == "traction" ? LoadKind::Traction
                                     : LoadKind::Body;
    load.box = box_from(c, sec, dim);
    if (!c.is_given(sec + ".value"))
      throw ConfigError("missing " + sec + ".value: the " + kind + " load's vector");
    load.value = vector_from(c, sec + ".value", dim);
    spec.loads.push_back(load);
  }
  return spec;
}

void NewmarkSettings::declare_keys(ConfigSchema& s) {
  s.add("dynamics.beta", ValueType::Real, "0.25",
        "Newmark beta; beta = 1/4 with gamma = 1/2 (average acceleration) is second order and "
        "conserves energy; beta >= gamma / 4 is required");
  s.add("dynamics.gamma", ValueType::Real, "0.5",
        "Newmark gamma >= 1/2; above 1/2 the scheme damps high frequencies numerically (first "
        "order)");
  s.add("dynamics.rayleigh_mass", ValueType::Real, "0",
        "Rayleigh damping alpha [1/s] of C = alpha M + beta_R K")
      .at_least(0);
  s.add("dynamics.rayleigh_stiffness", ValueType::Real, "0",
        "Rayleigh damping beta_R [s] of C = alpha M + beta_R K")
      .at_least(0);
  s.add("dynamics.load_history", ValueType::Choice, "constant",
        "how the loads follow time: constant (applied suddenly at t = 0), ramp (linear from 0 "
        "to full over dynamics.load_period) or half_sine (a pulse sin(pi t / load_period) for "
        "t < load_period, then 0)")
      .one_of({"constant", "ramp", "half_sine"});
  s.add("dynamics.load_period", ValueType::Real, "0",
        "duration [s] of the ramp or the pulse of dynamics.load_history")
      .at_least(0);
}

NewmarkSettings NewmarkSettings::from_config(const Config& c) {
  NewmarkSettings n;
  n.beta = c.get_real("dynamics.beta");
  n.gamma = c.get_real("dynamics.gamma");
  n.rayleigh_mass = c.get_real("dynamics.rayleigh_mass");
  n.rayleigh_stiffness = c.get_real("dynamics.rayleigh_stiffness");
  const std::string history = c.get_string("dynamics.load_history");
  n.load.kind = history == "ramp"        ? LoadHistory::Kind::Ramp
                : history == "half_sine" ? LoadHistory::Kind::HalfSine
                                         : LoadHistory::Kind::Constant;
  n.load.period = c.get_real("dynamics.load_period");
  if (n.load.kind == LoadHistory::Kind::Constant && c.is_given("dynamics.load_period"))
    throw ConfigError("dynamics.load_period is given but dynamics.load_history = constant: set "
                      "load_history = ramp or half_sine, or remove load_period");
  n.validate();
  return n;
}

} // namespace elasticity
} // namespace undertow
