#include "undertow/solvers/navier_stokes/boundary.hpp"

#include "undertow/core/error.hpp"

namespace undertow {
namespace navier_stokes {

namespace {
const char* kFaceNames[6] = {"x_lo", "x_hi", "y_lo", "y_hi", "z_lo", "z_hi"};
} // namespace

std::string to_string(BoundaryKind kind) {
  switch (kind) {
  case BoundaryKind::Periodic:
    return "periodic";
  case BoundaryKind::Wall:
    return "wall";
  case BoundaryKind::Slip:
    return "slip";
  case BoundaryKind::Inflow:
    return "inflow";
  case BoundaryKind::Outflow:
    return "outflow";
  case BoundaryKind::Convective:
    return "convective";
  }
  return "?";
}

void BoundarySet::declare_keys(ConfigSchema& s) {
  for (int f = 0; f < 6; ++f) {
    const std::string face = kFaceNames[f];
    s.add("boundary." + face, ValueType::Choice, "wall",
          "condition on the " + face + " face; periodic axes are set by domain.periodic")
        .one_of({"wall", "slip", "inflow", "outflow", "convective", "periodic"});
    s.add("boundary." + face + "_velocity", ValueType::RealList, "0 0 0",
          "wall velocity (moving wall), peak inflow velocity (inflow) or convection speed in the "
          "normal component (convective) on the " +
              face + " face [m/s]")
        .items(2, 3);
    s.add("boundary." + face + "_profile", ValueType::Choice, "uniform",
          "inflow profile on the " + face + " face")
        .one_of({"uniform", "parabolic"});
    control::TimeSignal::declare_keys(s, "boundary." + face + "_signal",
                                      "the velocity of the " + face + " face (inflow or wall)");
  }
}

BoundarySet BoundarySet::from_config(const Config& c, const DomainSpec& d) {
  BoundarySet set;
  for (int f = 0; f < 6; ++f) {
    const int axis = f / 2;
    const std::string key = std::string("boundary.") + kFaceNames[f];
    FaceBoundary& b = set.face[f];
    if (axis >= d.dim) {
      b.kind = BoundaryKind::Periodic; // unused in 2D
      for (const auto& entry : c.entries())
        if (entry.first.rfind(key, 0) == 0 && c.is_given(entry.first))
          throw ConfigError(entry.first + " is given but domain.dim = 2, which has no " +
                            kFaceNames[f] + " face: remove the key (or set domain.dim = 3)");
      continue;
    }
    const std::string kind = c.get_string(key);
    if (d.periodic[axis]) {
      if (c.is_given(key) && kind != "periodic")
        throw ConfigError(key + " = " + kind + " contradicts domain.periodic, which makes axis " +
                          std::string(1, "xyz"[axis]) +
                          " periodic; remove the key or make the axis non-periodic.");
      b.kind = BoundaryKind::Periodic;
      continue;
    }
    if (kind == "periodic")
      throw ConfigError(key + " = periodic, but domain.periodic does not make axis " +
                        std::string(1, "xyz"[axis]) + " periodic; set it there instead.");
    b.kind = kind == "wall"         ? BoundaryKind::Wall
             : kind == "slip"       ? BoundaryKind::Slip
             : kind == "inflow"     ? BoundaryKind::Inflow
             : kind == "convective" ? BoundaryKind::Convective
                                    : BoundaryKind::Outflow;
    const auto v = c.get_real_list(key + "_velocity");
    if (c.is_given(key + "_velocity") && static_cast<int>(v.size()) != d.dim)
      throw ConfigError(key + "_velocity has " + std::to_string(v.size()) +
                        " entries but domain.dim = " + std::to_string(d.dim) + ".");
    for (int a = 0; a < d.dim && a < static_cast<int>(v.size()); ++a)
      b.velocity[a] = v[a];
    b.profile = c.get_string(key + "_profile") == "parabolic" ? InflowProfile::Parabolic
                                                              : InflowProfile::Uniform;
    if (b.kind == BoundaryKind::Wall && b.velocity[axis] != 0.0)
      throw ConfigError(key + "_velocity has a normal component " +
                        std::to_string(b.velocity[axis]) +
                        "; a wall only moves tangentially (use inflow for flow through a face).");
    if (b.kind == BoundaryKind::Convective && b.velocity[axis] == 0.0)
      throw ConfigError(key + " = convective needs the convection speed U_c: set the " +
                        std::string(1, "xyz"[axis]) + " component of " + key +
                        "_velocity (e.g. the mean outflow velocity).");
    if (b.kind == BoundaryKind::Inflow && b.velocity[axis] * (f % 2 == 0 ? 1.0 : -1.0) <= 0.0)
      throw ConfigError(key + "_velocity must point into the domain (normal component " +
                        std::string(f % 2 == 0 ? "> 0" : "< 0") + " on this face).");
    b.signal = control::TimeSignal::from_config(c, key + "_signal");
    const bool moves = b.velocity[0] != 0.0 || b.velocity[1] != 0.0 || b.velocity[2] != 0.0;
    if (b.signal.varies() &&
        !(moves && (b.kind == BoundaryKind::Inflow || b.kind == BoundaryKind::Wall)))
      throw ConfigError(key +
                        "_signal multiplies the velocity of an inflow face or a moving "
                        "wall, but " +
                        key + " = " + kind + (moves ? "" : " with no velocity") + ": set " + key +
                        " = inflow or wall with a non-zero " + key + "_velocity, or remove " + key +
                        "_signal.");
  }
  return set;
}

std::array<linear::PressureBoundary, 6> BoundarySet::pressure_faces() const {
  std::array<linear::PressureBoundary, 6> out;
  for (int f = 0; f < 6; ++f)
    out[f] = is_outflow(face[f].kind) ? linear::PressureBoundary::Dirichlet
                                      : linear::PressureBoundary::Neumann;
  return out;
}

bool BoundarySet::fixes_normal_velocity(int axis, int side) const {
  const BoundaryKind k = face[2 * axis + side].kind;
  return k == BoundaryKind::Wall || k == BoundaryKind::Slip || k == BoundaryKind::Inflow;
}

std::array<double, 6> BoundarySet::amplitudes(double t) const {
  std::array<double, 6> a;
  for (int f = 0; f < 6; ++f)
    a[f] = face[f].signal.value(t);
  return a;
}

Profile profile_of(const Domain& d, const FaceBoundary& b, int normal) {
  Profile p{};
  for (int t = 0; t < 3; ++t) {
    p.origin[t] = d.spec().origin[t];
    p.length[t] = d.spec().length[t];
    p.parabolic[t] =
        b.profile == InflowProfile::Parabolic && t != normal && t < d.dim() && !d.periodic(t);
  }
  return p;
}

namespace {

/// The Lagrange weights of the ghost of a no-slip wall on a stretched axis: the quadratic
/// through the wall (t = 0) and the first two cell centres inside (t = w0 / 2, w0 + w1 / 2),
/// evaluated at the ghost centre t = -w0 / 2 (its cell mirrors the first).
void no_slip_weights(const Domain& d, int a, int side, BoundaryRule& r) {
  const std::vector<double> w = d.cell_widths(a);
  const std::size_t n = w.size();
  const double w0 = side == 0 ? w[0] : w[n - 1], w1 = side == 0 ? w[1] : w[n - 2];
  const double t[3] = {0.0, 0.5 * w0, w0 + 0.5 * w1}, x = -0.5 * w0;
  for (int m = 0; m < 3; ++m) {
    double l = 1.0;
    for (int q = 0; q < 3; ++q)
      if (q != m)
        l *= (x - t[q]) / (t[m] - t[q]);
    r.weights[m] = l;
  }
  r.stretched = true;
}

} // namespace

std::vector<BoundaryRule> boundary_rules(const Domain& d, const BoundarySet& b, bool faces) {
  using Kind = BoundaryRule::Kind;
  std::vector<BoundaryRule> rules;
  const int dim = d.dim();
  for (int a = 0; a < dim; ++a) {
    if (d.periodic(a))
      continue;
    for (int side = 0; side < 2; ++side) {
      if (!d.touches_boundary(a, side))
        continue;
      const FaceBoundary& f = b.face[2 * a + side];
      const long inward = side == 0 ? 1 : -1;
      const bool inflow = f.kind == BoundaryKind::Inflow;
      const Profile profile = profile_of(d, f, a);
      if (faces) {
        if (b.fixes_normal_velocity(a, side))
          rules.push_back({Kind::NormalFace, a, side, a, inward, inflow ? f.velocity[a] : 0.0,
                           inflow, profile});
        continue;
      }
      const bool dirichlet = f.kind == BoundaryKind::Wall || inflow;
      for (int c = 0; c < dim; ++c)
        rules.push_back({c == a      ? Kind::NormalGhost
                         : dirichlet ? Kind::TangentialDirichlet
                                     : Kind::TangentialZeroGradient,
                         a, side, c, inward, f.velocity[c], inflow, profile});
      if (!d.uniform(a)) // the quadratic ghost's weights for the cells next to this wall
        for (BoundaryRule& r : rules)
          if (r.axis == a && r.side == side && r.kind == Kind::TangentialDirichlet)
            no_slip_weights(d, a, side, r);
    }
  }
  return rules;
}

} // namespace navier_stokes
} // namespace undertow
