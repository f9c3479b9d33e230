#pragma once
/// \file
/// Global reductions over the owned points of fields. All are collective over the domain's
/// communicator and return the same value on every rank.

#include "undertow/core/field.hpp"

#include <vector>

namespace undertow {

/// Sum of the owned values.
double global_sum(const Communicator& comm, const Field& f);
/// Maximum of the owned values.
double global_max(const Communicator& comm, const Field& f);
/// Maximum of |value| over owned points.
double global_max_abs(const Communicator& comm, const Field& f);
/// Sum over owned points of a * b (fields of the same layout).
double global_dot(const Communicator& comm, const Field& a, const Field& b);
/// Sum over every local point, ghosts included, of a * b, summed over ranks: the inner product
/// on the space of all local arrays, in which scatter_add is the transpose of fill.
double global_dot_with_ghosts(const Communicator& comm, const Field& a, const Field& b);

/// Owned values of `f` gathered to rank 0 in global (i, j, k) order, k fastest. Empty on other
/// ranks. Collective. For tests, diagnostics and small outputs: it holds the whole field on rank 0.
std::vector<double> gather_to_root(const Communicator& comm, const Field& f);

} // namespace undertow
