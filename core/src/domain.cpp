#include "undertow/core/domain.hpp"

#include "undertow/core/config.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/stretching.hpp"

#include <algorithm>
#include <cmath>

#include <limits>
#include <sstream>

namespace undertow {

namespace {

/// Area of the cuts between subdomains: a proxy for halo traffic.
double cut_area(const DomainSpec& spec, const std::array<int, 3>& p) {
  double area = 0;
  for (int a = 0; a < spec.dim; ++a) {
    double face = 1;
    for (int b = 0; b < spec.dim; ++b)
      if (b != a)
        face *= double(spec.cells[b]);
    const int cuts = spec.periodic[a] ? (p[a] > 1 ? p[a] : 0) : p[a] - 1;
    area += face * cuts;
  }
  return area;
}

MPI_Comm make_cartesian(const Communicator& comm, const std::array<int, 3>& dims,
                        const DomainSpec& spec) {
  // MPI numbers Cartesian ranks with the last axis fastest; PETSc's DMDA numbers them with x
  // fastest. Handing MPI the axes in reverse order makes rank = cx + px * (cy + py * cz), so a
  // DMDA on this communicator owns exactly our boxes, rank for rank.
  int periods[3] = {spec.periodic[2], spec.periodic[1], spec.periodic[0]};
  int d[3] = {dims[2], dims[1], dims[0]};
  MPI_Comm cart = MPI_COMM_NULL;
  if (MPI_Cart_create(comm.raw(), 3, d, periods, /*reorder=*/0, &cart) != MPI_SUCCESS)
    throw Error("MPI_Cart_create failed for a " + std::to_string(dims[0]) + "x" +
                std::to_string(dims[1]) + "x" + std::to_string(dims[2]) + " process grid");
  return cart;
}

} // namespace

void DomainSpec::declare_keys(ConfigSchema& s) {
  s.add("domain.dim", ValueType::Integer, "2", "spatial dimension").range(2, 3);
  s.add("domain.cells", ValueType::IntegerList, "32 32", "cells per axis (one entry per dimension)")
      .items(2, 3)
      .at_least(1);
  s.add("domain.origin", ValueType::RealList, "0 0 0", "lower corner of the box [length]")
      .items(2, 3);
  s.add("domain.length", ValueType::RealList, "1 1 1", "box size per axis [length]")
      .items(2, 3)
      .above(0);
  s.add("domain.periodic", ValueType::BooleanList, "false false false", "periodicity per axis")
      .items(2, 3);
  s.add("domain.ranks", ValueType::IntegerList, "0 0 0",
        "MPI ranks per axis; 0 lets undertow choose (minimal cut area)")
      .items(2, 3)
      .at_least(0);
  s.add("domain.box", ValueType::RealList, "0 0 0 0",
        "a stretched grid: the lower and upper corners (x0 y0 [z0] x1 y1 [z1]) of the box of "
        "uniform cells of width domain.box_spacing, with cells growing by domain.growth away "
        "from it; replaces domain.cells. All zero: uniform cells (domain.cells)")
      .items(4, 6);
  s.add("domain.box_spacing", ValueType::Real, "0",
        "cell width inside domain.box [length] (rounded so that whole cells fill the box)")
      .at_least(0);
  s.add("domain.growth", ValueType::Real, "1.05",
        "largest ratio between neighbouring cell widths outside domain.box")
      .range(1, 1.5);
  s.add("domain.max_spacing", ValueType::Real, "0",
        "widest cell outside domain.box [length]; 0: no limit")
      .at_least(0);
}

namespace {

/// Fills spec.cells and spec.faces from the [domain] box keys.
void read_stretching(const Config& c, DomainSpec& spec) {
  const bool box = c.is_given("domain.box");
  if (!box) {
    for (const char* key : {"domain.box_spacing", "domain.growth", "domain.max_spacing"})
      if (c.is_given(key))
        throw ConfigError(std::string(key) +
                          " shapes a stretched grid, which domain.box asks for; give domain.box "
                          "(the box of uniform cells) or remove " +
                          key + ".");
    return;
  }
  const auto corners = c.get_real_list("domain.box");
  if (static_cast<int>(corners.size()) != 2 * spec.dim)
    throw ConfigError("domain.box has " + std::to_string(corners.size()) +
                      " entries but domain.dim = " + std::to_string(spec.dim) + "; give " +
                      std::to_string(2 * spec.dim) + ": the lower corner, then the upper one.");
  if (c.is_given("domain.cells"))
    throw ConfigError("domain.cells and domain.box are both given: a stretched grid's cell "
                      "counts follow from domain.box_spacing and domain.growth; remove "
                      "domain.cells (or domain.box, for uniform cells).");
  if (!c.is_given("domain.box_spacing"))
    throw ConfigError("domain.box needs domain.box_spacing, the cell width inside the box.");
  for (int a = 0; a < spec.dim; ++a) {
    AxisClustering axis;
    axis.box_lo = corners[static_cast<std::size_t>(a)];
    axis.box_hi = corners[static_cast<std::size_t>(a + spec.dim)];
    axis.spacing = c.get_real("domain.box_spacing");
    axis.growth = c.get_real("domain.growth");
    axis.max_spacing = c.get_real("domain.max_spacing");
    const double lo = spec.origin[a], hi = lo + spec.length[a];
    const std::string key = std::string("domain.box along ") + "xyz"[a];
    const bool whole = axis.box_lo <= lo && axis.box_hi >= hi;
    if (whole) {
      if (!(axis.spacing > 0.0))
        throw ConfigError("domain.box_spacing must be positive.");
      spec.cells[a] = std::max(1L, std::lround(spec.length[a] / axis.spacing));
      continue;
    }
    if (spec.periodic[a])
      throw ConfigError(key + ": the axis is periodic, and its cells must then be uniform; make "
                              "the box span the whole axis.");
    std::vector<double> faces = clustered_faces(lo, hi, axis, key);
    spec.cells[a] = static_cast<long>(faces.size()) - 1;
    spec.faces[static_cast<std::size_t>(a)] = std::move(faces);
  }
}

} // namespace

DomainSpec DomainSpec::from_config(const Config& c) {
  DomainSpec spec;
  spec.dim = static_cast<int>(c.get_int("domain.dim"));
  // A stretched grid's cell counts follow from domain.box (read_stretching).
  const bool derived = c.is_given("domain.box") && !c.is_given("domain.cells");
  auto cells = c.get_int_list("domain.cells");
  if (derived)
    cells.assign(static_cast<std::size_t>(spec.dim), 1);
  if (static_cast<int>(cells.size()) != spec.dim)
    throw ConfigError("domain.cells has " + std::to_string(cells.size()) +
                      " entries but domain.dim = " + std::to_string(spec.dim) +
                      "; give one cell count per axis.");
  const auto check_length = [&](const std::string& key, std::size_t n) {
    if (c.is_given(key) && static_cast<int>(n) != spec.dim)
      throw ConfigError(key + " has " + std::to_string(n) + " entries but domain.dim = " +
                        std::to_string(spec.dim) + "; give one entry per axis.");
  };
  const auto origin = c.get_real_list("domain.origin");
  const auto length = c.get_real_list("domain.length");
  const auto periodic = c.get_bool_list("domain.periodic");
  const auto ranks = c.get_int_list("domain.ranks");
  check_length("domain.origin", origin.size());
  check_length("domain.length", length.size());
  check_length("domain.periodic", periodic.size());
  check_length("domain.ranks", ranks.size());
  for (int a = 0; a < 3; ++a) {
    const bool active = a < spec.dim;
    spec.cells[a] = active ? cells[a] : 1;
    spec.origin[a] = a < static_cast<int>(origin.size()) ? origin[a] : 0.0;
    spec.length[a] = a < static_cast<int>(length.size()) ? length[a] : 1.0;
    spec.periodic[a] = active && a < static_cast<int>(periodic.size()) && periodic[a];
    spec.ranks[a] = active ? (a < static_cast<int>(ranks.size()) ? int(ranks[a]) : 0) : 1;
  }
  read_stretching(c, spec);
  return spec;
}

std::array<int, 3> choose_process_grid(const DomainSpec& spec, int size) {
  std::array<int, 3> best{0, 0, 0};
  double best_area = std::numeric_limits<double>::infinity();
  std::array<int, 3> want = spec.ranks;
  if (spec.dim == 2)
    want[2] = 1;
  long fixed = 1;
  for (int a = 0; a < 3; ++a)
    if (want[a] > 0)
      fixed *= want[a];
  const bool all_fixed = want[0] > 0 && want[1] > 0 && want[2] > 0;
  if ((all_fixed && fixed != size) || size % fixed != 0)
    throw ConfigError("domain.ranks = " + std::to_string(spec.ranks[0]) + " " +
                      std::to_string(spec.ranks[1]) +
                      (spec.dim == 3 ? " " + std::to_string(spec.ranks[2]) : std::string()) +
                      " does not fit the " + std::to_string(size) +
                      " MPI ranks of this run; give entries whose product is " +
                      std::to_string(size) + ", or 0 to let undertow choose.");
  for (int px = 1; px <= size; ++px) {
    if (size % px || (want[0] > 0 && px != want[0]))
      continue;
    for (int py = 1; py <= size / px; ++py) {
      if ((size / px) % py || (want[1] > 0 && py != want[1]))
        continue;
      const int pz = size / px / py;
      if (want[2] > 0 && pz != want[2])
        continue;
      const std::array<int, 3> p{px, py, pz};
      bool fits = true;
      for (int a = 0; a < 3; ++a)
        fits = fits && p[a] <= spec.cells[a];
      if (!fits)
        continue;
      const double area = cut_area(spec, p);
      if (area < best_area) {
        best_area = area;
        best = p;
      }
    }
  }
  if (best[0] == 0)
    throw ConfigError("cannot split " + std::to_string(spec.cells[0]) + "x" +
                      std::to_string(spec.cells[1]) + "x" + std::to_string(spec.cells[2]) +
                      " cells (domain.cells) over " + std::to_string(size) +
                      " MPI ranks with at least one cell per rank and axis; use fewer ranks, a "
                      "finer grid, or another domain.ranks.");
  return best;
}

Domain::Domain(const Communicator& comm, const DomainSpec& spec)
    : m_spec(spec), m_dims(choose_process_grid(spec, comm.size())),
      m_cart(Communicator::adopt(make_cartesian(comm, m_dims, spec))) {
  for (int a = 0; a < 3; ++a) {
    const std::vector<long>& given = spec.splits[static_cast<std::size_t>(a)];
    if (given.empty())
      continue;
    bool valid = given.size() == static_cast<std::size_t>(m_dims[a]) + 1 && given.front() == 0 &&
                 given.back() == spec.cells[a];
    for (std::size_t c = 0; valid && c + 1 < given.size(); ++c)
      valid = given[c] < given[c + 1];
    if (!valid)
      throw Error("Domain: the split along axis " + std::to_string(a) +
                  " must give each of its ranks at least one of its cells, in order");
  }
  int coords[3];
  MPI_Cart_coords(m_cart.raw(), m_cart.rank(), 3, coords);
  for (int a = 0; a < 3; ++a)
    m_coords[a] = coords[2 - a];
  for (int a = 0; a < 3; ++a) {
    const std::vector<double>& f = spec.faces[static_cast<std::size_t>(a)];
    if (f.empty())
      continue;
    bool valid = a < spec.dim && f.size() == static_cast<std::size_t>(spec.cells[a]) + 1 &&
                 f.front() == spec.origin[a] && f.back() == spec.origin[a] + spec.length[a];
    for (std::size_t i = 1; valid && i < f.size(); ++i)
      valid = f[i] > f[i - 1];
    if (!valid)
      throw Error(std::string("Domain: the faces of stretched axis ") + "xyz"[a] +
                  " must be cells + 1 increasing coordinates from the origin to origin + length");
    // Padded by mirrored (or wrapped) widths, so that ghost cells have coordinates too.
    const long n = spec.cells[a], pad = StretchedFaces::pad;
    Kokkos::View<double*, Kokkos::HostSpace> host("stretched faces", std::size_t(n + 1 + 2 * pad));
    for (long g = 0; g <= n; ++g)
      host(g + pad) = f[std::size_t(g)];
    const auto width = [&](long cell) {
      const long c =
          spec.periodic[a] ? ((cell % n) + n) % n : (cell < 0 ? -1 - cell : 2 * n - 1 - cell);
      return f[std::size_t(c + 1)] - f[std::size_t(c)];
    };
    for (long g = -1; g >= -pad; --g)
      host(g + pad) = host(g + 1 + pad) - width(g);
    for (long g = n + 1; g <= n + pad; ++g)
      host(g + pad) = host(g - 1 + pad) + width(g - 1);
    auto device = Kokkos::create_mirror_view_and_copy(MemorySpace(), host);
    m_stretched.host[a] = host;
    m_stretched.device[a] = device;
  }
  for (int a = 0; a < 3; ++a) {
    const std::vector<double> w = spec.uniform(a) ? std::vector<double>() : spec.cell_widths(a);
    m_min_spacing[a] = w.empty() ? spacing(a) : *std::min_element(w.begin(), w.end());
  }
}

std::vector<double> DomainSpec::cell_widths(int a) const {
  const std::vector<double>& f = faces[static_cast<std::size_t>(a)];
  std::vector<double> w(static_cast<std::size_t>(cells[a]), length[a] / double(cells[a]));
  for (std::size_t i = 0; !f.empty() && i < w.size(); ++i)
    w[i] = f[i + 1] - f[i];
  return w;
}

long Domain::cell_containing(int axis, double x) const {
  const std::vector<double>& f = m_spec.faces[static_cast<std::size_t>(axis)];
  if (f.empty())
    return static_cast<long>(std::floor((x - m_spec.origin[axis]) / spacing(axis)));
  return static_cast<long>(std::upper_bound(f.begin(), f.end(), x) - f.begin()) - 1;
}

int Domain::rank_of(std::array<int, 3> coords) const {
  for (int a = 0; a < 3; ++a) {
    if (coords[a] < 0 || coords[a] >= m_dims[a]) {
      if (!m_spec.periodic[a])
        return -1;
      coords[a] = ((coords[a] % m_dims[a]) + m_dims[a]) % m_dims[a];
    }
  }
  return coords[0] + m_dims[0] * (coords[1] + m_dims[1] * coords[2]);
}

long split_offset(long cells, int parts, int c) {
  const long base = cells / parts, extra = cells % parts;
  return c * base + (c < extra ? c : extra);
}

long Domain::cell_offset(int axis, int c) const {
  const std::vector<long>& given = m_spec.splits[static_cast<std::size_t>(axis)];
  return given.empty() ? split_offset(m_spec.cells[axis], m_dims[axis], c)
                       : given[static_cast<std::size_t>(c)];
}

long Domain::cell_count(int axis, int c) const {
  return cell_offset(axis, c + 1) - cell_offset(axis, c);
}

long Domain::global_points(Location loc, int axis) const {
  const long n = m_spec.cells[axis];
  return (staggered(loc, axis) && !m_spec.periodic[axis]) ? n + 1 : n;
}

std::pair<long, long> Domain::owned_interval(Location loc, int axis, int c) const {
  const long begin = cell_offset(axis, c);
  long end = begin + cell_count(axis, c);
  if (staggered(loc, axis) && !m_spec.periodic[axis] && c == m_dims[axis] - 1)
    end += 1;
  return {begin, end};
}

std::pair<long, long> Domain::ghosted_interval(Location loc, int axis, int c, int ghost) const {
  const long g = ghost_along(axis, ghost);
  const long begin = cell_offset(axis, c);
  const long end = begin + cell_count(axis, c) + (staggered(loc, axis) ? 1 : 0);
  return {begin - g, end + g};
}

FieldLayout Domain::layout(Location loc, int ghost) const {
  if (normal_axis(loc) >= m_spec.dim)
    throw Error("location " + to_string(loc) + " does not exist in a " +
                std::to_string(m_spec.dim) + "D domain");
  require(ghost >= 0, "ghost width must be >= 0");
  FieldLayout l;
  l.location = loc;
  l.ghost = ghost;
  for (int a = 0; a < 3; ++a) {
    const auto ghosted = ghosted_interval(loc, a, m_coords[a], ghost);
    const auto owned = owned_interval(loc, a, m_coords[a]);
    l.extent[a] = ghosted.second - ghosted.first;
    l.global_offset[a] = ghosted.first;
    l.owned.begin[a] = owned.first - ghosted.first;
    l.owned.end[a] = owned.second - ghosted.first;
    l.ghosted.begin[a] = 0;
    l.ghosted.end[a] = l.extent[a];
    l.global.begin[a] = 0;
    l.global.end[a] = global_points(loc, a);
    l.geometry.origin[a] = m_spec.origin[a];
    l.geometry.h[a] = spacing(a);
    l.geometry.global_offset[a] = ghosted.first;
    l.geometry.shift[a] = staggered(loc, a) ? 0.0 : 0.5;
    l.geometry.uniform[a] = uniform(a);
  }
  l.geometry.stretched = m_stretched;
  return l;
}

std::string Domain::describe() const {
  std::ostringstream out;
  out << m_spec.dim << "D, " << m_spec.cells[0] << "x" << m_spec.cells[1];
  if (m_spec.dim == 3)
    out << "x" << m_spec.cells[2];
  out << " cells on " << m_dims[0] << "x" << m_dims[1];
  if (m_spec.dim == 3)
    out << "x" << m_dims[2];
  out << " ranks, periodic ";
  for (int a = 0; a < m_spec.dim; ++a)
    out << (m_spec.periodic[a] ? "y" : "n");
  for (int a = 0; a < m_spec.dim; ++a) {
    if (uniform(a))
      continue;
    const std::vector<double> w = cell_widths(a);
    out << "; "
        << "xyz"[a] << " stretched: widths " << *std::min_element(w.begin(), w.end()) << " to "
        << *std::max_element(w.begin(), w.end())
        << ", neighbour ratio <= " << largest_growth(m_spec.faces[static_cast<std::size_t>(a)]);
  }
  return out.str();
}

void require_uniform_cells(const Domain& domain, const std::string& what) {
  if (!domain.all_uniform())
    throw ConfigError("domain.box: " + what +
                      " does not run on stretched grids yet (the Navier-Stokes runs and "
                      "their gradients do); use uniform cells (domain.cells instead of "
                      "domain.box).");
}

void require_inside(const Domain& domain, const std::array<double, 3>& x, const std::string& key) {
  const DomainSpec& spec = domain.spec();
  for (int a = 0; a < domain.dim(); ++a)
    if (!(x[a] >= spec.origin[a] && x[a] < spec.origin[a] + spec.length[a])) {
      std::ostringstream point;
      point << "(" << x[0] << ", " << x[1];
      if (domain.dim() == 3)
        point << ", " << x[2];
      point << ")";
      std::ostringstream box;
      box << "[" << spec.origin[a] << ", " << spec.origin[a] + spec.length[a] << ")";
      throw ConfigError(key + ": the point " + point.str() + " is outside the domain: its " +
                        "xyz"[a] + " must be in " + box.str() + " (domain.origin, domain.length)");
    }
}

} // namespace undertow
