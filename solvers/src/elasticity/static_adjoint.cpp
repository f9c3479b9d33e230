#include "undertow/solvers/elasticity/static_adjoint.hpp"

namespace undertow {
namespace elasticity {

namespace {

bool has_weights(const StaticObjective& objective) {
  return objective.displacement_weights[0].view().data() != nullptr;
}

/// True if every prescribed displacement is zero.
bool homogeneous_supports(const elasticity::ElasticitySpec& spec) {
  for (const auto& support : spec.supports)
    for (int c = 0; c < 3; ++c)
      if (support.fixed[static_cast<std::size_t>(c)] &&
          support.value[static_cast<std::size_t>(c)] != 0.0)
        return false;
  return true;
}

/// grad_e := -E'(rho_e) energy_e, and returns -sum_e rho_e^p energy_e (this rank's part of
/// dJ/dE0).
double chain_through_simp(const Field& density, const Simp& simp, const Field& energy,
                          Field& grad) {
  const FieldView rho = density.view(), e = energy.view(), g = grad.view();
  for_each(
      "elasticity::adjoint_density_gradient", density.owned(),
      KOKKOS_LAMBDA(long i, long j, long k) {
        g(i, j, k) = -simp.modulus_derivative(rho(i, j, k)) * e(i, j, k);
      });
  return local_sum(
      "elasticity::adjoint_modulus_gradient", density.owned(),
      KOKKOS_LAMBDA(long i, long j, long k, double& acc) {
        acc -= simp.modulus_per_E0(rho(i, j, k)) * e(i, j, k);
      });
}

} // namespace

double static_objective(const LinearElasticity& solver, const StaticObjective& objective) {
  double value = objective.compliance_weight * solver.compliance();
  if (has_weights(objective))
    value += solver.dot(objective.displacement_weights, solver.displacement());
  return value;
}

StaticGradient static_gradient(LinearElasticity& solver, const StaticObjective& objective) {
  const int dim = solver.dim();
  StaticGradient out;
  out.value = static_objective(solver, objective);
  // Right-hand side of the adjoint: dJ/du = w f + g.
  NodeVector rhs = solver.make_node_vector("adjoint::rhs");
  combine(dim, objective.compliance_weight, solver.load(), 1.0,
          has_weights(objective) ? &objective.displacement_weights : nullptr, rhs);
  NodeVector lambda = solver.make_node_vector("adjoint::lambda");
  if (!has_weights(objective) && homogeneous_supports(solver.spec())) {
    // Compliance alone with u = 0 on the supports is self-adjoint: K lambda = w f is solved by
    // lambda = w u, exactly (the same system), so the transposed solve is skipped.
    combine(dim, objective.compliance_weight, solver.displacement(), 0.0, nullptr, lambda);
  } else {
    out.adjoint_iterations = solver.solve_adjoint(rhs, lambda).iterations;
  }

  const Domain& d = solver.domain();
  Field energy(d, Location::Cell, 0, "adjoint::element_energy");
  solver.element_energy(lambda, solver.displacement(), energy);
  out.density = Field(d, Location::Cell, 0, "adjoint::dJ_drho");
  out.youngs_modulus =
      d.comm().sum(chain_through_simp(solver.density(), solver.spec().simp, energy, out.density));
  out.load = solver.make_node_vector("adjoint::dJ_df");
  combine(dim, objective.compliance_weight, solver.displacement(), 1.0, &lambda, out.load);
  return out;
}

} // namespace elasticity
} // namespace undertow
