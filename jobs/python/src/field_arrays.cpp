#include "field_arrays.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"

#include <cmath>
#include <mpi.h>

namespace undertow {
namespace python {

namespace {

std::string shape_text(const std::vector<long>& shape) {
  std::string s = "(";
  for (std::size_t a = 0; a < shape.size(); ++a)
    s += std::to_string(shape[a]) + (a + 1 < shape.size() ? ", " : shape.size() == 1 ? "," : "");
  return s + ")";
}

/// Throws ConfigError on every rank if `ok` is false on any; the message is the first failing
/// rank's. Collective.
void agree(const Communicator& comm, bool ok, const std::string& message) {
  const double failed = comm.max(ok ? 0.0 : 1.0);
  if (failed == 0)
    return;
  // The lowest failing rank's message, on every rank.
  int mine = ok ? comm.size() : comm.rank(), first = 0;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.raw());
  std::string text = comm.rank() == first ? message : std::string();
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, first, comm.raw());
  text.resize(static_cast<std::size_t>(length));
  MPI_Bcast(&text[0], length, MPI_CHAR, first, comm.raw());
  throw ConfigError(text);
}

/// Copies the owned box from a C-ordered host array of extents n, indexed by global points
/// (`global_index`) or by the owned box's; returns false at a non-finite value.
template <class Host>
bool copy_in(Host host, const FieldLayout& l, const double* data, const long n[3],
             bool global_index) {
  const IndexSpace& o = l.owned;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const long a = global_index ? i + l.global_offset[0] : i - o.begin[0];
        const long b = global_index ? j + l.global_offset[1] : j - o.begin[1];
        const long c = global_index ? k + l.global_offset[2] : k - o.begin[2];
        const long p = (a * n[1] + b) * n[2] + c;
        const double v = data[p];
        if (!std::isfinite(v))
          return false;
        host(i, j, k) = v;
      }
  return true;
}

} // namespace

Gather gather_from(const std::string& text, const std::string& what) {
  if (text == "local")
    return Gather::Local;
  if (text == "global")
    return Gather::Global;
  if (text == "root")
    return Gather::Root;
  throw ConfigError(what + " = '" + text +
                    "' is not one of: local (this rank's owned points), global (the whole grid "
                    "on every rank), root (the whole grid on rank 0, None elsewhere)");
}

std::vector<long> array_shape(const Domain& domain, const Field& field, Gather gather) {
  const IndexSpace& space = gather == Gather::Local ? field.owned() : field.layout().global;
  std::vector<long> shape;
  for (int a = 0; a < domain.dim(); ++a)
    shape.push_back(space.extent(a));
  return shape;
}

py::array owned_view(const Domain& domain, const Field& field, py::handle owner) {
  const std::vector<long> shape = array_shape(domain, field, Gather::Local);
  const FieldView& v = field.view();
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, FieldView::memory_space>::accessible;
  if (host) {
    const IndexSpace& o = field.owned();
    const double* first = &v(o.begin[0], o.begin[1], o.begin[2]);
    std::vector<long> strides;
    for (int a = 0; a < domain.dim(); ++a)
      strides.push_back(static_cast<long>(sizeof(double)) * static_cast<long>(v.stride(a)));
    return py::array(py::dtype::of<double>(), shape, strides, first, owner);
  }
  return py::cast<py::array>(field_array(domain, field, Gather::Local));
}

py::object field_array(const Domain& domain, const Field& field, Gather gather) {
  const std::vector<long> shape = array_shape(domain, field, gather);
  if (gather == Gather::Local) {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.view());
    py::array_t<double, py::array::f_style> out(shape);
    double* p = out.mutable_data();
    const IndexSpace& o = field.owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i)
          *p++ = host(i, j, k);
    return std::move(out);
  }
  const Communicator& comm = domain.comm();
  std::vector<double> all = gather_to_root(comm, field); // k fastest: C order
  if (gather == Gather::Root && !comm.is_root())
    return py::none();
  if (gather == Gather::Global) {
    all.resize(static_cast<std::size_t>(field.layout().global.size()));
    MPI_Bcast(all.data(), static_cast<int>(all.size()), MPI_DOUBLE, 0, comm.raw());
  }
  py::array_t<double> out(shape);
  std::copy(all.begin(), all.end(), out.mutable_data());
  return std::move(out);
}

void assign(const Domain& domain, Field& field, const py::object& values, Gather gather,
            const std::string& what) {
  const Communicator& comm = domain.comm();
  const std::vector<long> shape = array_shape(domain, field, gather);
  // Rank 0's array, broadcast (Root); or each rank's own.
  std::vector<double> flat;
  std::string problem;
  const bool mine = gather != Gather::Root || comm.is_root();
  if (mine) {
    py::array_t<double, py::array::forcecast> a;
    try {
      a = py::array_t<double, py::array::forcecast>::ensure(values);
    } catch (const py::error_already_set&) {
    }
    if (!a || a.ndim() != static_cast<py::ssize_t>(shape.size())) {
      problem = what + ": expected an array of shape " + shape_text(shape) + ", got " +
                (a ? "one of " + std::to_string(a.ndim()) + " dimensions"
                   : std::string(py::str(py::type::of(values).attr("__name__"))));
    } else {
      std::vector<long> given(a.shape(), a.shape() + a.ndim());
      if (given != shape) {
        problem = what + ": expected an array of shape " + shape_text(shape) + ", got " +
                  shape_text(given);
      } else {
        auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
        flat.assign(c.data(), c.data() + c.size());
      }
    }
  }
  if (gather == Gather::Root) {
    int ok = problem.empty() ? 1 : 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm.raw());
    agree(comm, ok == 1 || !comm.is_root(), problem);
    long size = static_cast<long>(flat.size());
    MPI_Bcast(&size, 1, MPI_LONG, 0, comm.raw());
    flat.resize(static_cast<std::size_t>(size));
    MPI_Bcast(flat.data(), static_cast<int>(size), MPI_DOUBLE, 0, comm.raw());
  } else {
    agree(comm, problem.empty(), problem);
  }
  long n[3] = {1, 1, 1};
  for (std::size_t a = 0; a < shape.size(); ++a)
    n[a] = shape[a];
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), field.view());
  const bool finite = copy_in(host, field.layout(), flat.data(), n, gather != Gather::Local);
  agree(comm, finite, what + " holds a value that is not finite (NaN or infinity)");
  Kokkos::deep_copy(field.view(), host);
}

std::array<double, 3> point_of(const std::vector<double>& x, int dim, const std::string& what) {
  if (static_cast<int>(x.size()) != dim)
    throw ConfigError(what + ": a point of a " + std::to_string(dim) + "D case has " +
                      std::to_string(dim) + " coordinates, not " + std::to_string(x.size()));
  std::array<double, 3> p{0, 0, 0};
  for (int a = 0; a < dim; ++a)
    p[a] = x[a];
  return p;
}

int velocity_component(const std::string& name, int dim, const std::string& what) {
  const int c = name == "u" ? 0 : name == "v" ? 1 : name == "w" ? 2 : -1;
  if (c < 0 || c >= dim)
    throw ConfigError(what + " '" + name + "': one of u, v" + (dim == 3 ? ", w" : "") +
                      " (a velocity component)");
  return c;
}

} // namespace python
} // namespace undertow
