#include "undertow/solvers/navier_stokes/obstacles.hpp"

#include "undertow/core/error.hpp"

#include <cctype>

namespace undertow {
namespace navier_stokes {

std::string obstacle_section(int k) {
  return "obstacle" + std::to_string(k + 1);
}

void ObstacleSet::declare_keys(ConfigSchema& s) {
  s.add("obstacles.eta", ValueType::Real, "1e-6",
        "Brinkman penalty time scale eta [s]: smaller is stiffer (treated implicitly)")
      .above(0);
  s.add("obstacles.design", ValueType::String, "",
        "Brinkman design field, one value per cell added to the masks (0 fluid, 1 solid; fluid "
        "topology optimisation): empty for none, a number for a uniform field, or an HDF5 file "
        "with the cell dataset 'design' on this grid");
  s.add("obstacles.smoothing", ValueType::Real, "1",
        "width of the smooth mask, in cells of the smallest spacing (obstacles.mask = smooth)")
      .above(0);
  s.add("obstacles.mask", ValueType::Choice, "smooth",
        "how bodies enter the flow: smooth (a smooth step one cell wide each side of the "
        "surface, all of it solid: forces converge at first order) or interpolated (solid "
        "inside; the fluid faces next to the surface get the penalty of a second-order "
        "Dirichlet condition at the surface, Gibou et al. 2002)")
      .one_of({"smooth", "interpolated"});
  for (int k = 0; k < kMaxObstacles; ++k) {
    const std::string o = obstacle_section(k);
    s.add(o + ".shape", ValueType::Choice, "none", "shape of obstacle " + std::to_string(k + 1))
        .one_of(
            {"none", "circle", "sphere", "ellipse", "rectangle", "naca", "star", "cst", "spline"});
    s.add(o + ".centre", ValueType::RealList, "0 0 0",
          "centre (leading edge for naca) [m], one entry per axis")
        .items(2, 3);
    s.add(o + ".radius", ValueType::Real, "0.05",
          "radius (circle, sphere; mean radius of a star) [m]")
        .above(0);
    s.add(o + ".size", ValueType::RealList, "0.1 0.1",
          "rectangle edge lengths, or ellipse semi-axes a b [m]")
        .items(2, 3)
        .above(0);
    s.add(o + ".angle", ValueType::Real, "0",
          "rotation about z [deg]; for naca and cst the angle of attack (nose up)");
    s.add(o + ".chord", ValueType::Real, "1", "naca and cst chord length [m]").above(0);
    s.add(o + ".cst_upper", ValueType::RealList, "0.17 0.17 0.17",
          "cst: Bernstein weights A_0 ... A_N of the upper surface (dimensionless; N + 1 <= " +
              std::to_string(kMaxFourier) + ")")
        .items(2, kMaxFourier);
    s.add(o + ".cst_lower", ValueType::RealList, "0.17 0.17 0.17",
          "cst: Bernstein weights L_0 ... L_N of the lower surface, as many as cst_upper; "
          "positive puts the surface below the chord")
        .items(2, kMaxFourier);
    s.add(o + ".naca", ValueType::String, "0012", "NACA 4-digit designation (mpxx)");
    s.add(o + ".fourier", ValueType::RealList, "0 0",
          "star: a1 b1 a2 b2 ...: r(theta) = radius + sum_k a_k cos k theta + b_k sin k theta [m]")
        .items(2, 2 * kMaxFourier);
    s.add(o + ".radii", ValueType::RealList, "0.05 0.05 0.05 0.05",
          "spline: control radii c_0 ... c_{n-1} [m] of r(theta), theta from 0 (downstream, +x) "
          "to 180 deg (upstream), mirrored about the flow axis: a clamped cubic B-spline, so "
          "r(0) = c_0 and r(180) = c_{n-1}; c_1 != c_0 makes a corner (pointed end) at the rear, "
          "c_{n-2} != c_{n-1} at the front; equal radii give a circle (4 <= n <= " +
              std::to_string(kMaxSplineRadii) + ")")
        .items(4, kMaxSplineRadii)
        .above(0);
  }
}

ObstacleSet ObstacleSet::from_config(const Config& c, int dim) {
  ObstacleSet set;
  set.eta = c.get_real("obstacles.eta");
  set.smoothing = c.get_real("obstacles.smoothing");
  set.mask =
      c.get_string("obstacles.mask") == "interpolated" ? MaskKind::Interpolated : MaskKind::Smooth;
  for (int k = 0; k < kMaxObstacles; ++k) {
    const std::string o = obstacle_section(k);
    const std::string kind = c.get_string(o + ".shape");
    if (kind == "none")
      continue;
    Shape sh;
    sh.kind = kind == "circle"      ? ShapeKind::Circle
              : kind == "sphere"    ? ShapeKind::Sphere
              : kind == "ellipse"   ? ShapeKind::Ellipse
              : kind == "rectangle" ? ShapeKind::Rectangle
              : kind == "naca"      ? ShapeKind::Naca
              : kind == "cst"       ? ShapeKind::Cst
              : kind == "spline"    ? ShapeKind::Spline
                                    : ShapeKind::Star;
    if (sh.kind == ShapeKind::Sphere && dim != 3)
      throw ConfigError(o + ".shape = sphere needs domain.dim = 3; use circle in 2D.");
    const auto centre = c.get_real_list(o + ".centre");
    if (static_cast<int>(centre.size()) < dim && c.is_given(o + ".centre"))
      throw ConfigError(o + ".centre has " + std::to_string(centre.size()) +
                        " entries but domain.dim = " + std::to_string(dim) + ".");
    if (!c.is_given(o + ".centre"))
      throw ConfigError("missing " + o + ".centre for the " + kind + " of [" + o + "].");
    for (int a = 0; a < 3 && a < static_cast<int>(centre.size()); ++a)
      sh.centre[a] = centre[a];
    sh.radius = c.get_real(o + ".radius");
    const auto size = c.get_real_list(o + ".size");
    sh.size[2] = 0; // unbounded along z unless given
    for (int a = 0; a < static_cast<int>(size.size()); ++a)
      sh.size[a] = size[a];
    sh.angle = c.get_real(o + ".angle") * math::pi / 180.0;
    sh.chord = c.get_real(o + ".chord");
    if (sh.kind == ShapeKind::Naca) {
      const std::string digits = c.get_string(o + ".naca");
      bool ok = digits.size() == 4;
      for (char ch : digits)
        ok = ok && std::isdigit(static_cast<unsigned char>(ch));
      if (!ok)
        throw ConfigError(o + ".naca = '" + digits +
                          "' is not a NACA 4-digit designation such as 0012 or 2412.");
      sh.camber = (digits[0] - '0') / 100.0;
      sh.camber_position = (digits[1] - '0') / 10.0;
      sh.thickness = std::stoi(digits.substr(2)) / 100.0;
      if (sh.thickness <= 0)
        throw ConfigError(o + ".naca = " + digits + " has zero thickness.");
      if (sh.camber > 0 && sh.camber_position <= 0)
        throw ConfigError(o + ".naca = " + digits +
                          " has camber but no camber position (second digit).");
    }
    if (sh.kind == ShapeKind::Star) {
      const auto f = c.get_real_list(o + ".fourier");
      if (f.size() % 2)
        throw ConfigError(o + ".fourier needs pairs a_k b_k, got " + std::to_string(f.size()) +
                          " numbers.");
      sh.harmonics = static_cast<int>(f.size() / 2);
      for (int k2 = 0; k2 < sh.harmonics; ++k2) {
        sh.cos_coeff[k2] = f[2 * k2];
        sh.sin_coeff[k2] = f[2 * k2 + 1];
      }
    }
    if (sh.kind == ShapeKind::Cst) {
      const auto upper = c.get_real_list(o + ".cst_upper"),
                 lower = c.get_real_list(o + ".cst_lower");
      if (upper.size() != lower.size())
        throw ConfigError(o + ".cst_upper has " + std::to_string(upper.size()) + " weights and " +
                          o + ".cst_lower " + std::to_string(lower.size()) +
                          ": give both surfaces the same number");
      sh.harmonics = static_cast<int>(upper.size());
      for (int i = 0; i < sh.harmonics; ++i) {
        sh.cos_coeff[i] = upper[static_cast<std::size_t>(i)];
        sh.sin_coeff[i] = lower[static_cast<std::size_t>(i)];
        if (upper[static_cast<std::size_t>(i)] + lower[static_cast<std::size_t>(i)] <= 0)
          throw ConfigError(o + ".cst_upper and cst_lower: weight " + std::to_string(i) +
                            " gives the airfoil no thickness (A + L <= 0); the surfaces would "
                            "cross");
      }
    }
    if (sh.kind == ShapeKind::Spline) {
      const auto radii = c.get_real_list(o + ".radii");
      sh.harmonics = static_cast<int>(radii.size());
      for (int j = 0; j < sh.harmonics; ++j)
        shape_parameter(sh, 12 + j) = radii[static_cast<std::size_t>(j)];
    }
    set.shapes.push_back(sh);
  }
  return set;
}

MaskSpec ObstacleSet::mask_spec(const Domain& domain, double nu) const {
  MaskSpec m;
  m.kind = mask;
  m.dim = domain.dim();
  double h_min = domain.min_spacing(0);
  for (int a = 0; a < domain.dim(); ++a) {
    h_min = std::min(h_min, domain.min_spacing(a));
    m.inv_h2[a] = 1.0 / (domain.spacing(a) * domain.spacing(a));
    m.uniform[a] = domain.uniform(a);
  }
  // Interpolated: the kinks are rounded over a tenth of a cell, well inside the cell whose
  // surface crossing they locate.
  m.eps = mask == MaskKind::Smooth ? smoothing * h_min : 0.1 * h_min;
  m.eta_nu = eta * nu;
  return m;
}

std::vector<ShapeParameter> shape_parameters(const Shape& shape, int dim) {
  std::vector<ShapeParameter> out;
  const char* axis[3] = {"x", "y", "z"};
  const auto centre = [&](const std::string& name, int n) {
    for (int a = 0; a < n; ++a)
      out.push_back({name + "_" + axis[a], a});
  };
  switch (shape.kind) {
  case ShapeKind::Circle:
    centre("centre", 2);
    out.push_back({"radius", 3});
    break;
  case ShapeKind::Sphere:
    centre("centre", 3);
    out.push_back({"radius", 3});
    break;
  case ShapeKind::Ellipse:
    centre("centre", 2);
    out.push_back({"semi_axis_a", 4});
    out.push_back({"semi_axis_b", 5});
    out.push_back({"angle", 7});
    break;
  case ShapeKind::Rectangle:
    centre("centre", shape.size[2] > 0 ? dim : 2);
    for (int a = 0; a < (shape.size[2] > 0 ? dim : 2); ++a)
      out.push_back({std::string("size_") + axis[a], 4 + a});
    out.push_back({"angle", 7});
    break;
  case ShapeKind::Naca:
    centre("leading_edge", 2);
    out.push_back({"chord", 8});
    out.push_back({"camber", 9});
    if (shape.camber_position > 0)
      out.push_back({"camber_position", 10});
    out.push_back({"thickness", 11});
    out.push_back({"angle_of_attack", 7});
    break;
  case ShapeKind::Star:
    centre("centre", 2);
    out.push_back({"r0", 3});
    for (int k = 0; k < shape.harmonics; ++k) {
      out.push_back({"cos_coeff_" + std::to_string(k + 1), 12 + k});
      out.push_back({"sin_coeff_" + std::to_string(k + 1), 12 + kMaxFourier + k});
    }
    break;
  case ShapeKind::Cst:
    centre("leading_edge", 2);
    out.push_back({"chord", 8});
    out.push_back({"angle_of_attack", 7});
    for (int i = 0; i < shape.harmonics; ++i)
      out.push_back({"cst_upper_" + std::to_string(i), 12 + i});
    for (int i = 0; i < shape.harmonics; ++i)
      out.push_back({"cst_lower_" + std::to_string(i), 12 + kMaxFourier + i});
    break;
  case ShapeKind::Spline:
    centre("centre", 2);
    for (int j = 0; j < shape.harmonics; ++j)
      out.push_back({"spline_radius_" + std::to_string(j), 12 + j});
    break;
  }
  return out;
}

} // namespace navier_stokes
} // namespace undertow
