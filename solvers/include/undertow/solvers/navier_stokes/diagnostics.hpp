#pragma once
/// \file
/// What is measured of a Navier-Stokes flow, apart from stepping it: divergence, kinetic energy
/// and enstrophy, the largest velocities and the Courant number, non-finite values, point
/// probes, and the cell-centred fields that output writes. Functions taking a NavierStokes& bring
/// the velocity's boundary values and ghosts up to date first (NavierStokes::prepare).

#include "undertow/solvers/navier_stokes/solver.hpp"

#include <string>

namespace undertow {
namespace navier_stokes {

/// max over cells of |div u| [1/s]. Collective.
double max_divergence(NavierStokes& ns);
/// Kinetic energy per unit mass and volume, 1/2 <|u|^2> [m^2/s^2]. Collective.
double kinetic_energy(const NavierStokes& ns);
/// The same of a velocity triple. Collective.
double kinetic_energy(const Domain& domain, const std::array<Field, 3>& u);
/// The sum of the control volumes of the owned points of `f` over every rank [m^dim]: the
/// weight of the volume-weighted means of a stretched grid. Collective.
double total_control_volume(const Domain& domain, const Field& f);
/// Enstrophy per unit volume, 1/2 <|curl u|^2> [1/s^2], from the vorticity on cell edges
/// (corners in 2D). Collective.
double enstrophy(NavierStokes& ns);
/// The same of a velocity triple whose ghosts are up to date (NavierStokes::prepare).
/// Collective.
double enstrophy(const Domain& domain, const std::array<Field, 3>& u);
/// max over faces of |u_c|, per component [m/s]. Collective.
std::array<double, 3> max_velocity(const NavierStokes& ns);
/// The largest speed per component that the boundaries prescribe [m/s] (walls, inflows), at
/// any time (their control signals' bounds): a flow at rest reaches them within a step. Not
/// collective.
std::array<double, 3> max_boundary_velocity(const NavierStokes& ns);
/// Advective Courant number dt * max_c |u_c| / h_c summed over axes (dt [s]). Collective.
double courant(const NavierStokes& ns, double dt);
/// The linear stability limit of RK3 advection in the Courant number dt sum_c |u_c| / h_c: sqrt 3.
constexpr double kAdvectiveCourantLimit = 1.7320508075688772;
/// The largest fixed dt [s] inside the linear stability limit of the explicit parts of the
/// scheme for the current field and the boundary velocities (a flow at rest reaches them within
/// a step): the advective limit sqrt 3 / sum_c (u_c / h_c), and with the explicit scheme also the
/// viscous one (stable_dt(1)). Collective.
double linear_stability_dt(const NavierStokes& ns);
/// "time.dt = ... exceeds the linear stability limit ... of <the scheme's explicit part> for
/// the initial field and the boundary velocities; expect the run to diverge" if `dt` [s] is
/// beyond linear_stability_dt(ns), else empty. Collective.
std::string unstable_dt_warning(const NavierStokes& ns, double dt);
/// True if any velocity value is NaN or infinite. Collective.
bool has_nonfinite(const NavierStokes& ns);
/// Value of the cell-centred field `f` in the cell containing the point x [m] (0 if outside the
/// box). Collective.
double probe(const Domain& domain, const Field& f, const std::array<double, 3>& x);

/// Cell-centred fields for output, written to the owned cells of `out` (a cell field with
/// ghosts >= 0). Velocity component c: the mean of the cell's two faces [m/s]. Vorticity
/// component a (2D: a = 2 only): the mean of the four edge values around the cell [1/s].
/// Collective (they fill the velocity ghosts).
void cell_velocity(NavierStokes& ns, int c, Field& out);
void cell_vorticity(NavierStokes& ns, int a, Field& out);
/// Cell means of a face field of component c (`faces` at Location FaceX/Y/Z for c = 0/1/2): the
/// mean of each cell's two faces, read from a halo-filled copy, so that cells at a rank's upper
/// side see their upper face too (an adjoint velocity, a sensitivity). Collective.
void cell_mean_of_faces(const Domain& domain, const Field& faces, int c, Field& out);
/// The Q-criterion at cell centres of a 3D flow [1/s^2] (cell_centre_q_criterion). Collective.
void cell_q_criterion(NavierStokes& ns, Field& out);
/// The Brinkman design field at cell centres, 0 without one. Not collective.
void cell_design(const NavierStokes& ns, Field& out);
/// The union of the obstacle masks at cell centres (mean over the cell's faces), 0 without
/// obstacles. Not collective.
void cell_mask(const NavierStokes& ns, Field& out);

} // namespace navier_stokes
} // namespace undertow
