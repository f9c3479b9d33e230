#pragma once
/// \file
/// Fields as NumPy arrays, and the points and velocity components that Python names. Arrays are
/// indexed [i, j] in 2D and [i, j, k] in 3D (x first; the storage is x-fastest, so the arrays are
/// Fortran-ordered views) and hold this rank's owned points alone ("local") or every global
/// point ("global": gathered onto every rank; "root": onto rank 0 only, None elsewhere).
/// Staggered fields have one more point than cells along their normal (non-periodic axes).

#include "undertow/core/domain.hpp"
#include "undertow/core/field.hpp"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <array>
#include <string>
#include <vector>

namespace undertow {
namespace python {

namespace py = pybind11;

/// Where field arrays live: local (owned points of this rank), global (every rank gets the
/// whole grid), root (rank 0 gets it, the others None).
enum class Gather { Local, Global, Root };
/// "local", "global" or "root"; throws ConfigError naming `what` otherwise. Not collective.
Gather gather_from(const std::string& text, const std::string& what);

/// A NumPy view of `field`'s owned points, sharing its memory (zero-copy) where the field
/// lives in host memory; `owner` keeps the memory alive while the array is. A copy where it
/// does not (a GPU build). Not collective.
py::array owned_view(const Domain& domain, const Field& field, py::handle owner);
/// A copy of the field's points where `gather` says (see above). Collective except Local.
py::object field_array(const Domain& domain, const Field& field, Gather gather);
/// The shape field_array gives for `gather` (Local: this rank's owned box). Not collective.
std::vector<long> array_shape(const Domain& domain, const Field& field, Gather gather);
/// Writes `values` into the field's owned points: the whole grid (Global, the same on every
/// rank), rank 0's whole grid (Root, scattered from rank 0), or this rank's owned box (Local).
/// Throws ConfigError naming `what` on every rank for a wrong shape or a non-finite value.
/// Collective.
void assign(const Domain& domain, Field& field, const py::object& values, Gather gather,
            const std::string& what);

/// A point [m] of a `dim`-dimensional case from Python's coordinates; throws ConfigError naming
/// `what` for a wrong count. Not collective.
std::array<double, 3> point_of(const std::vector<double>& x, int dim, const std::string& what);
/// 0, 1, 2 for "u", "v", "w" (the velocity components of a `dim`-dimensional case); throws
/// ConfigError naming `what` and the choices otherwise. Not collective.
int velocity_component(const std::string& name, int dim, const std::string& what);

} // namespace python
} // namespace undertow
