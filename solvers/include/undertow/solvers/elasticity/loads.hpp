#pragma once
/// \file
/// The load vector of an elasticity case: point loads shared by the nodes of a box, uniform
/// tractions on boundary faces and body forces on elements, each turned into consistent nodal
/// forces [N].

#include "undertow/core/halo.hpp"
#include "undertow/solvers/elasticity/node_vector.hpp"
#include "undertow/solvers/elasticity/spec.hpp"

#include <vector>

namespace undertow {
namespace elasticity {

/// Adds the nodal forces of `loads` to f [N]: each rank sums its elements' and nodes' shares on
/// its local nodes, ghosts included, then the halo plan's scatter_add adds them into their
/// owners and fill copies the totals back to the ghosts. `cells` gives the element layout.
/// Throws ConfigError for a box that holds no node (point load), no boundary face (traction, or
/// a box that is not flat on the boundary) or no element centre (body force). Collective.
void add_loads(const Domain& domain, const std::vector<Load>& loads, const Field& cells,
               HaloPlan& node_halo, NodeVector& f);

} // namespace elasticity
} // namespace undertow
