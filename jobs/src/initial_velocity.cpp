#include "initial_velocity.hpp"

#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/solvers/navier_stokes/flow_keys.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
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

/// One velocity component of the file: its values at every point of its grid, in global
/// (i, j, k) order with k fastest, and the points' coordinates along each axis.
struct SourceComponent {
  std::array<AxisPoints, 3> axes;
  std::vector<double> values;

  double at(long i, long j, long k) const {
    const std::size_t n1 = axes[1].x.size(), n2 = axes[2].x.size();
    return values[(static_cast<std::size_t>(i) * n1 + static_cast<std::size_t>(j)) * n2 +
                  static_cast<std::size_t>(k)];
  }

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

/// The whole of `f` on every rank, in global (i, j, k) order with k fastest. Collective.
std::vector<double> gather_to_all(const Communicator& comm, const Field& f) {
  std::vector<double> all = gather_to_root(comm, f);
  long long n = static_cast<long long>(all.size());
  MPI_Bcast(&n, 1, MPI_LONG_LONG, 0, comm.raw());
  all.resize(static_cast<std::size_t>(n));
  MPI_Bcast(all.data(), static_cast<int>(n), MPI_DOUBLE, 0, comm.raw());
  return all;
}

/// Component `c` of the file's velocity on its grid `from`: read on this communicator (checksums
/// checked) and gathered on every rank. Collective.
SourceComponent read_component(const io::FieldFile& file, const Domain& from, int c) {
  Field u(from, kFaces[c], 0, std::string("initial_file_") + "uvw"[c]);
  file.read(std::string(1, "uvw"[c]), u);
  SourceComponent s;
  const GridGeometry g = u.geometry();
  for (int a = 0; a < 3; ++a) {
    AxisPoints& p = s.axes[a];
    const long n = u.layout().global.extent(a);
    p.x.resize(static_cast<std::size_t>(n));
    for (long i = 0; i < n; ++i)
      p.x[static_cast<std::size_t>(i)] =
          a < from.dim() ? g.coordinate(a, i - g.global_offset[a]) : 0.0;
    p.periodic = a < from.dim() && from.periodic(a);
    p.origin = from.spec().origin[a];
    p.period = from.spec().length[a];
  }
  s.values = gather_to_all(from.comm(), u);
  return s;
}

} // namespace

navier_stokes::VelocityFunction velocity_from_file(const std::string& path, const Domain& domain,
                                                   std::string* description) {
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
      components->push_back(read_component(file, from, c));
    if (description)
      *description = "initial velocity interpolated from " + path + " " + summary +
                     ", then made divergence-free on this grid; times count from 0";
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
    std::string description;
    navier_stokes::VelocityFunction f = velocity_from_file(file, domain, &description);
    log.info(description);
    return f;
  }
  if (!file.empty())
    throw ConfigError("initial.file = " + file + " is given but initial.type = " + type +
                      ": set initial.type = file to start from the file, or remove initial.file");
  return navier_stokes::initial_field(type, config.get_real("initial.amplitude"), domain, nu,
                                      exact);
}

} // namespace undertow
