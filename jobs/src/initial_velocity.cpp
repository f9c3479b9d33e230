#include "initial_velocity.hpp"

#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/solvers/navier_stokes/flow_keys.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace undertow {

namespace {

constexpr Location kFaces[3] = {Location::FaceX, Location::FaceY, Location::FaceZ};

/// Where a coordinate falls among one axis's points: the two points around it and the weight
/// of the upper one (0 at the lower point exactly).
struct Bracket {
  long lower = 0, upper = 0;
  double w = 0.0;
};

/// The points of one axis of one velocity component of the file's grid, increasing.
struct AxisPoints {
  std::vector<double> x;
  bool periodic = false;
  double origin = 0.0, period = 0.0;

  /// The bracket of coordinate `c`: interpolation between neighbours, across the wrap on a
  /// periodic axis, linear extrapolation from the outermost pair beyond the ends of another.
  Bracket locate(double c) const {
    const long n = static_cast<long>(x.size());
    if (n == 1)
      return {0, 0, 0.0};
    if (periodic && (c < origin || c >= origin + period)) {
      c = origin + std::fmod(c - origin, period);
      if (c < origin)
        c += period;
    }
    const long i = static_cast<long>(std::upper_bound(x.begin(), x.end(), c) - x.begin()) - 1;
    if (periodic && (i < 0 || i == n - 1)) { // between the last point and the first's image
      const double below = i < 0 ? x[n - 1] - period : x[n - 1];
      const double above = i < 0 ? x[0] : x[0] + period;
      return {n - 1, 0, (c - below) / (above - below)};
    }
    const long lower = std::min(std::max(i, 0L), n - 2);
    return {lower, lower + 1, (c - x[lower]) / (x[lower + 1] - x[lower])};
  }
};

/// Sorted, disjoint half-open ranges [first, second) of global indices along one axis.
using Ranges = std::vector<std::pair<long, long>>;

/// The ranges of the marked indices.
Ranges ranges_of(const std::vector<char>& marked) {
  Ranges out;
  const long n = static_cast<long>(marked.size());
  for (long i = 0; i < n; ++i)
    if (marked[static_cast<std::size_t>(i)]) {
      if (out.empty() || out.back().second != i)
        out.emplace_back(i, i + 1);
      else
        out.back().second = i + 1;
    }
  return out;
}

/// The parts of `ranges` inside [lo, hi).
Ranges clipped(const Ranges& ranges, long lo, long hi) {
  Ranges out;
  for (const auto& r : ranges) {
    const long a = std::max(r.first, lo), b = std::min(r.second, hi);
    if (a < b)
      out.emplace_back(a, b);
  }
  return out;
}

long count(const Ranges& ranges) {
  long n = 0;
  for (const auto& r : ranges)
    n += r.second - r.first;
  return n;
}

/// Calls visit(i, j, k) for every point of the product of three axes' ranges, k fastest.
template <class Visit>
void for_each_point(const std::array<Ranges, 3>& box, Visit&& visit) {
  for (const auto& ri : box[0])
    for (long i = ri.first; i < ri.second; ++i)
      for (const auto& rj : box[1])
        for (long j = rj.first; j < rj.second; ++j)
          for (const auto& rk : box[2])
            for (long k = rk.first; k < rk.second; ++k)
              visit(i, j, k);
}

/// One velocity component of the file: the coordinates of all its points along each axis, and
/// the values of the points this rank's interpolation touches (a product of per-axis index
/// sets, k fastest), not the whole field.
struct SourceComponent {
  std::array<AxisPoints, 3> axes;
  std::array<std::vector<long>, 3> slot; ///< per axis: a global index's place among the held, or -1
  std::array<long, 3> held{};            ///< per axis: how many indices are held
  std::vector<double> values;

  /// Where global point (i, j, k) of the file's grid is in `values`.
  std::size_t position(long i, long j, long k) const {
    const long si = slot[0][static_cast<std::size_t>(i)], sj = slot[1][static_cast<std::size_t>(j)],
               sk = slot[2][static_cast<std::size_t>(k)];
    if (si < 0 || sj < 0 || sk < 0)
      throw std::logic_error("initial.type = file: the velocity was asked for away from this "
                             "rank's points, whose neighbourhood alone it holds");
    return static_cast<std::size_t>((si * held[1] + sj) * held[2] + sk);
  }

  double at(long i, long j, long k) const { return values[position(i, j, k)]; }

  /// The multilinear interpolant at (x, y, z) [m/s].
  double interpolate(double x, double y, double z) const {
    const Bracket b[3] = {axes[0].locate(x), axes[1].locate(y), axes[2].locate(z)};
    double sum = 0.0;
    for (int corner = 0; corner < 8; ++corner) {
      const int ci = corner & 1, cj = (corner >> 1) & 1, ck = (corner >> 2) & 1;
      const double weight = (ci ? b[0].w : 1.0 - b[0].w) * (cj ? b[1].w : 1.0 - b[1].w) *
                            (ck ? b[2].w : 1.0 - b[2].w);
      if (weight != 0.0)
        sum += weight * at(ci ? b[0].upper : b[0].lower, cj ? b[1].upper : b[1].lower,
                           ck ? b[2].upper : b[2].lower);
    }
    return sum;
  }
};

/// The [domain] of the file's case text `ini`, for this communicator's ranks. Throws
/// CollectiveError naming a domain key the text does not validate.
DomainSpec file_domain(const std::string& ini, const std::string& path) {
  const RawConfig all = RawConfig::parse(ini, path + " (its case)", {});
  RawConfig domain_only;
  for (const auto& kv : all.values)
    if (kv.first.rfind("domain.", 0) == 0) {
      domain_only.values[kv.first] = kv.second;
      domain_only.origin[kv.first] = all.origin.count(kv.first) ? all.origin.at(kv.first) : path;
    }
  ConfigSchema schema;
  DomainSpec::declare_keys(schema);
  DomainSpec spec = DomainSpec::from_config(Config(schema, domain_only));
  spec.ranks = {0, 0, 0}; // the file's decomposition does not matter: datasets are global
  return spec;
}

/// Throws CollectiveError unless the file's grid `from` can give this domain's velocity: the
/// same dimension and periodicity, and a box that covers this one.
void check_covers(const DomainSpec& from, const Domain& to) {
  if (from.dim != to.dim())
    throw CollectiveError(format("its grid is %gD and this case's is %gD; ", from.dim, to.dim()) +
                          "initial.type = file maps between grids of one dimension");
  const DomainSpec& spec = to.spec();
  for (int a = 0; a < to.dim(); ++a) {
    const std::string axis(1, "xyz"[a]);
    if (from.periodic[a] != spec.periodic[a])
      throw CollectiveError("its grid is " + std::string(from.periodic[a] ? "" : "not ") +
                            "periodic along " + axis + " and this case's is " +
                            (spec.periodic[a] ? "" : "not ") +
                            "; domain.periodic must agree with the file's");
    const double tolerance = 1e-9 * std::max(from.length[a], spec.length[a]);
    const double from_hi = from.origin[a] + from.length[a], to_hi = spec.origin[a] + spec.length[a];
    if (spec.origin[a] < from.origin[a] - tolerance || to_hi > from_hi + tolerance)
      throw CollectiveError(
          "its grid spans " + format("[%g, %g] along ", from.origin[a], from_hi) + axis +
          format(", which does not cover this case's [%g, %g]: ", spec.origin[a], to_hi) +
          "the file's box must contain this one (domain.origin, domain.length)");
  }
}

/// The per-axis global index ranges of component `c` of the file's grid that interpolation at
/// this rank's owned points of the same component of `to` touches (both points of every
/// bracket, so the wrap of a periodic axis adds the far end's points).
std::array<Ranges, 3> touched_ranges(const SourceComponent& s, const Domain& to, int c) {
  const FieldLayout l = to.layout(kFaces[c], 0);
  std::array<Ranges, 3> out;
  for (int a = 0; a < 3; ++a) {
    std::vector<char> marked(s.axes[a].x.size(), 0);
    if (a >= to.dim())
      marked[0] = 1;
    else
      for (long i = l.owned.begin[a]; i < l.owned.end[a]; ++i) {
        const Bracket b = s.axes[a].locate(l.geometry.coordinate(a, i));
        marked[static_cast<std::size_t>(b.lower)] = marked[static_cast<std::size_t>(b.upper)] = 1;
      }
    out[a] = ranges_of(marked);
  }
  return out;
}

/// Every rank's ranges `mine`, in rank order. Collective.
std::vector<std::array<Ranges, 3>> all_ranges(const Communicator& comm,
                                              const std::array<Ranges, 3>& mine) {
  std::vector<long> flat;
  for (const Ranges& r : mine) {
    flat.push_back(static_cast<long>(r.size()));
    for (const auto& p : r) {
      flat.push_back(p.first);
      flat.push_back(p.second);
    }
  }
  const int size = comm.size(), length = static_cast<int>(flat.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm.raw());
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  std::vector<long> everyone(static_cast<std::size_t>(total));
  MPI_Allgatherv(flat.data(), length, MPI_LONG, everyone.data(), lengths.data(), displs.data(),
                 MPI_LONG, comm.raw());
  std::vector<std::array<Ranges, 3>> out(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) {
    std::size_t p = static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]);
    for (int a = 0; a < 3; ++a) {
      const long n = everyone[p++];
      for (long q = 0; q < n; ++q, p += 2)
        out[static_cast<std::size_t>(r)][a].emplace_back(everyone[p], everyone[p + 1]);
    }
  }
  return out;
}

/// Component `c` of the file's velocity on its grid `from`, read on this communicator in the
/// file grid's own decomposition (checksums checked), then redistributed so that each rank
/// holds the points around its own points of `to` (one all-to-all). Collective.
SourceComponent read_component(const io::FieldFile& file, const Domain& from, const Domain& to,
                               int c) {
  Field u(from, kFaces[c], 0, std::string("initial_file_") + "uvw"[c]);
  file.read(std::string(1, "uvw"[c]), u);
  SourceComponent s;
  const FieldLayout& l = u.layout();
  const GridGeometry g = u.geometry();
  for (int a = 0; a < 3; ++a) {
    AxisPoints& p = s.axes[a];
    const long n = l.global.extent(a);
    p.x.resize(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i)
      p.x[static_cast<std::size_t>(i)] =
          a < from.dim() ? g.coordinate(a, i - g.global_offset[a]) : 0.0;
    p.periodic = a < from.dim() && from.periodic(a);
    p.origin = from.spec().origin[a];
    p.period = from.spec().length[a];
  }
  const std::array<Ranges, 3> mine = touched_ranges(s, to, c);
  for (int a = 0; a < 3; ++a) {
    s.slot[a].assign(s.axes[a].x.size(), -1);
    for (const auto& r : mine[a])
      for (long i = r.first; i < r.second; ++i)
        s.slot[a][static_cast<std::size_t>(i)] = s.held[a]++;
  }
  s.values.assign(static_cast<std::size_t>(s.held[0] * s.held[1] * s.held[2]), 0.0);

  // Who owns what of the file's grid, and who needs what.
  const Communicator& comm = from.comm();
  const int size = comm.size();
  long box[6];
  for (int a = 0; a < 3; ++a) {
    box[a] = l.owned.begin[a] + l.global_offset[a];
    box[3 + a] = l.owned.end[a] + l.global_offset[a];
  }
  std::vector<long> boxes(6 * static_cast<std::size_t>(size));
  MPI_Allgather(box, 6, MPI_LONG, boxes.data(), 6, MPI_LONG, comm.raw());
  const std::vector<std::array<Ranges, 3>> needs = all_ranges(comm, mine);
  auto overlap = [](const std::array<Ranges, 3>& wanted, const long* owned) {
    std::array<Ranges, 3> o;
    for (int a = 0; a < 3; ++a)
      o[a] = clipped(wanted[a], owned[a], owned[3 + a]);
    return o;
  };

  // Send each rank the values it needs of this rank's box; receive this rank's needs from each.
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
  std::vector<double> sent;
  std::vector<int> send_counts(static_cast<std::size_t>(size)),
      send_displs(static_cast<std::size_t>(size)), recv_counts(static_cast<std::size_t>(size)),
      recv_displs(static_cast<std::size_t>(size));
  long received = 0;
  for (int r = 0; r < size; ++r) {
    const std::size_t ru = static_cast<std::size_t>(r);
    send_displs[ru] = static_cast<int>(sent.size());
    for_each_point(overlap(needs[ru], box), [&](long i, long j, long k) {
      sent.push_back(host(i - l.global_offset[0], j - l.global_offset[1], k - l.global_offset[2]));
    });
    send_counts[ru] = static_cast<int>(sent.size()) - send_displs[ru];
    const std::array<Ranges, 3> from_r = overlap(mine, &boxes[6 * ru]);
    recv_displs[ru] = static_cast<int>(received);
    recv_counts[ru] = static_cast<int>(count(from_r[0]) * count(from_r[1]) * count(from_r[2]));
    received += recv_counts[ru];
  }
  const bool too_many = sent.size() > static_cast<std::size_t>(INT_MAX) || received > INT_MAX;
  if (comm.max(too_many ? 1.0 : 0.0) > 0)
    throw CollectiveError("a rank's share of the file's velocity exceeds 2^31 values (MPI's "
                          "counts); run on more ranks");
  std::vector<double> got(static_cast<std::size_t>(received));
  MPI_Alltoallv(sent.data(), send_counts.data(), send_displs.data(), MPI_DOUBLE, got.data(),
                recv_counts.data(), recv_displs.data(), MPI_DOUBLE, comm.raw());
  std::size_t q = 0;
  for (int r = 0; r < size; ++r)
    for_each_point(overlap(mine, &boxes[6 * static_cast<std::size_t>(r)]),
                   [&](long i, long j, long k) { s.values[s.position(i, j, k)] = got[q++]; });
  return s;
}

} // namespace

navier_stokes::VelocityFunction velocity_from_file(const std::string& path, const Domain& domain,
                                                   FileVelocityInfo* info) {
  const std::string given_as = "initial.file = " + path;
  require_restart_file(domain.comm(), path, given_as);
  try {
    DomainSpec spec;
    std::string summary;
    {
      const io::FieldFile header(domain, path, io::FieldFile::Mode::Read);
      check_restart_format(header);
      const std::string model = header.string_attribute("model");
      if (model != "navier_stokes")
        throw CollectiveError("it is a restart file of model " + model +
                              "; initial.type = file takes the velocity of a Navier-Stokes run");
      spec = file_domain(header.string_attribute("config"), path);
      check_covers(spec, domain);
      summary =
          format("(a %g x %g", spec.cells[0], spec.cells[1]) +
          (spec.dim == 3 ? format(" x %g", spec.cells[2]) : std::string()) +
          (spec.uniform(0) && spec.uniform(1) && spec.uniform(2) ? " uniform" : " stretched") +
          format(" grid, step %g, t = %.6e)", header.real_attribute("step"),
                 header.real_attribute("time"));
    }
    const Domain from(domain.comm(), spec);
    const io::FieldFile file(from, path, io::FieldFile::Mode::Read);
    auto components = std::make_shared<std::vector<SourceComponent>>();
    for (int c = 0; c < from.dim(); ++c)
      components->push_back(read_component(file, from, domain, c));
    if (info) {
      info->values_held = info->values_in_file = 0;
      for (const SourceComponent& s : *components) {
        info->values_held += static_cast<long>(s.values.size());
        info->values_in_file +=
            static_cast<long>(s.axes[0].x.size() * s.axes[1].x.size() * s.axes[2].x.size());
      }
      info->description = "initial velocity interpolated from " + path + " " + summary +
                          ", then made divergence-free on this grid; times count from 0";
    }
    return [components](int c, double x, double y, double z, double) {
      return c < static_cast<int>(components->size()) ? (*components)[c].interpolate(x, y, z) : 0.0;
    };
  } catch (const CollectiveError& e) {
    throw ConfigError(given_as + ": " + e.what());
  }
}

navier_stokes::VelocityFunction initial_velocity(const Config& config, const Domain& domain,
                                                 double nu, bool& exact, const Log& log) {
  const std::string type = config.get_string("initial.type");
  const std::string file = config.get_string("initial.file");
  if (type == "file") {
    if (file.empty())
      throw ConfigError("initial.type = file needs initial.file: the restart file "
                        "(<output>/restart/restart_<step>.h5) whose velocity starts this run");
    exact = false;
    FileVelocityInfo info;
    navier_stokes::VelocityFunction f = velocity_from_file(file, domain, &info);
    log.info(info.description);
    return f;
  }
  if (!file.empty())
    throw ConfigError("initial.file = " + file + " is given but initial.type = " + type +
                      ": set initial.type = file to start from the file, or remove initial.file");
  return navier_stokes::initial_field(type, config.get_real("initial.amplitude"), domain, nu,
                                      exact);
}

} // namespace undertow
