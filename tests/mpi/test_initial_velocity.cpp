// initial.type = file: a Navier-Stokes restart file written on one grid gives the initial
// velocity on another. On the file's own grid the values come back bit for bit (uniform and
// stretched); fields linear in each coordinate are reproduced exactly on finer, coarser,
// stretched and smaller grids (2D and 3D), the wall-adjacent points included; a smooth periodic
// field converges at second order across the periodic wrap; and every unusable file is a
// ConfigError that names the problem. On 1, 2 and 4 ranks (the file written on one count is
// read on that count, its grid decomposed as this one's is not), each rank holding only about
// its share of the file.

#include "test_support.hpp"

#include "initial_velocity.hpp"
#include "models.hpp"
#include "restart.hpp"

#include "undertow/core/error.hpp"
#include "undertow/solvers/navier_stokes/flow_keys.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>

namespace {

using namespace undertow;
using navier_stokes::NavierStokes;
using navier_stokes::VelocityFunction;
using undertow::testing::world;

/// A Navier-Stokes case with walls all round (periodic along x if asked) and the given [domain]
/// lines.
jobs::LoadedCase flow_case(const std::string& domain_lines, bool periodic_x = false) {
  std::string text = "[case]\nmodel = navier_stokes\n[domain]\n" + domain_lines + "\n" +
                     "[fluid]\nnu = 0.01\n[boundary]\n";
  text += periodic_x ? "x_lo = periodic\nx_hi = periodic\n" : "x_lo = wall\nx_hi = wall\n";
  text += "y_lo = wall\ny_hi = wall\n";
  if (domain_lines.find("dim = 3") != std::string::npos)
    text += "z_lo = wall\nz_hi = wall\n";
  return jobs::load_case_text(world(), text, "initial_velocity_test.ini", {}, "");
}

struct Flow {
  jobs::LoadedCase loaded;
  Domain domain;
  NavierStokes ns;
  explicit Flow(const std::string& domain_lines, bool periodic_x = false)
      : loaded(flow_case(domain_lines, periodic_x)),
        domain(world(), DomainSpec::from_config(loaded.config)),
        ns(domain, navier_stokes::flow_parameters(loaded.config, domain)) {}
};

/// A scratch folder, the same name on every rank, removed at the end.
struct Scratch {
  std::string dir;
  explicit Scratch(const std::string& name)
      : dir((std::filesystem::temp_directory_path() /
             ("undertow_initial_velocity_" + name + "_np" + std::to_string(world().size())))
                .string()) {
    world().barrier();
    if (world().is_root()) {
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
    }
    world().barrier();
  }
  ~Scratch() {
    world().barrier();
    if (world().is_root())
      std::filesystem::remove_all(dir);
  }
};

/// Writes `flow` with velocity `f` as a restart file in `dir`; returns its path.
std::string write_file(Flow& flow, const VelocityFunction& f, const std::string& dir) {
  navier_stokes::set_velocity(flow.ns, f, 0.0);
  return write_restart(dir, restart_state(flow.ns), flow.domain, flow.loaded.config, 7, 1, 0.01);
}

/// Every owned velocity value of `ns`, in order.
std::vector<double> owned_velocity(const NavierStokes& ns) {
  std::vector<double> out;
  for (int c = 0; c < ns.domain().dim(); ++c) {
    const Field& u = ns.velocity(c);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.view());
    const IndexSpace& o = u.owned();
    for (long k = o.begin[2]; k < o.end[2]; ++k)
      for (long j = o.begin[1]; j < o.end[1]; ++j)
        for (long i = o.begin[0]; i < o.end[0]; ++i)
          out.push_back(host(i, j, k));
  }
  return out;
}

/// Not a linear field: what the identity tests write.
double pattern(int c, double x, double y, double z) {
  return std::sin(3.1 * x + 1.3 * c) * std::cos(2.3 * y) + 0.1 * z * z;
}

/// Linear in each coordinate, with cross terms (multilinear): reproduced exactly.
double multilinear(int c, double x, double y, double z) {
  return 0.5 + c + (1.5 - c) * x - 2.0 * y + 0.7 * x * y + (0.3 + c) * z - 0.4 * y * z;
}

VelocityFunction multilinear_field() {
  return [](int c, double x, double y, double z, double) {
    return multilinear(c, x, y, z);
  };
}

std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no ConfigError)";
}

/// Whether `message` contains `fragment`; a failure shows the whole message.
::testing::AssertionResult says(const std::string& message, const std::string& fragment) {
  if (message.find(fragment) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << message << "' lacks '" << fragment << "'";
}

TEST(InitialVelocityFromFile, TheFilesOwnGridGivesItsValuesBitForBit) {
  const Scratch scratch("identity");
  for (const std::string& lines :
       {std::string("dim = 2\ncells = 13 9\nlength = 1.3 0.9"),
        std::string("dim = 2\nlength = 2.2 0.41\nbox = 0.1 0.1 0.6 0.3\nbox_spacing = 0.01"),
        std::string("dim = 3\ncells = 7 5 4\nlength = 0.7 0.5 0.4")}) {
    SCOPED_TRACE(lines);
    Flow source(lines);
    const std::string path = write_file(
        source, [](int c, double x, double y, double z, double) { return pattern(c, x, y, z); },
        scratch.dir);
    Flow target(lines);
    navier_stokes::set_velocity(target.ns, velocity_from_file(path, target.domain), 0.0);
    const std::vector<double> a = owned_velocity(source.ns), b = owned_velocity(target.ns);
    ASSERT_EQ(a.size(), b.size());
    long differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
      differing += a[i] != b[i];
    EXPECT_EQ(world().sum(double(differing)), 0.0);
  }
}

TEST(InitialVelocityFromFile, MultilinearFieldsAreExactOnOtherGrids) {
  const Scratch scratch("linear");
  const VelocityFunction f = multilinear_field();
  struct Pair {
    std::string from, to;
  };
  const Pair pairs[] = {
      // refined, with its wall-adjacent centres nearer the walls than the file's
      {"dim = 2\ncells = 12 9\nlength = 1.2 0.9", "dim = 2\ncells = 31 22\nlength = 1.2 0.9"},
      // coarsened
      {"dim = 2\ncells = 24 18\nlength = 1.2 0.9", "dim = 2\ncells = 7 5\nlength = 1.2 0.9"},
      // stretched onto uniform, and a smaller box inside the file's
      {"dim = 2\nlength = 2.2 0.41\nbox = 0.1 0.1 0.6 0.3\nbox_spacing = 0.01",
       "dim = 2\ncells = 40 10\norigin = 0.2 0.05\nlength = 1.6 0.3"},
      // uniform onto stretched
      {"dim = 2\ncells = 22 5\nlength = 2.2 0.41",
       "dim = 2\nlength = 2.2 0.41\nbox = 0.1 0.1 0.6 0.3\nbox_spacing = 0.005"},
      // 3D, stretched along every axis
      {"dim = 3\ncells = 6 5 4\nlength = 0.6 0.5 0.4",
       "dim = 3\nlength = 0.6 0.5 0.4\nbox = 0.2 0.2 0.1 0.4 0.3 0.3\nbox_spacing = 0.01"}};
  for (const Pair& p : pairs) {
    SCOPED_TRACE(p.from + "  ->  " + p.to);
    Flow source(p.from);
    const std::string path = write_file(source, f, scratch.dir);
    Flow target(p.to);
    navier_stokes::set_velocity(target.ns, velocity_from_file(path, target.domain), 0.0);
    const auto error = navier_stokes::velocity_error(target.ns, f, 0.0);
    EXPECT_LT(error.second, 1e-13);
  }
}

TEST(InitialVelocityFromFile, EachRankHoldsOnlyThePointsAroundItsOwn) {
  const Scratch scratch("share");
  const VelocityFunction f = multilinear_field();
  Flow source("dim = 2\ncells = 40 30\nlength = 1.2 0.9");
  const std::string path = write_file(source, f, scratch.dir);
  Flow target("dim = 2\ncells = 50 37\nlength = 1.2 0.9");
  FileVelocityInfo info;
  navier_stokes::set_velocity(target.ns, velocity_from_file(path, target.domain, &info), 0.0);
  EXPECT_LT(navier_stokes::velocity_error(target.ns, f, 0.0).second, 1e-13);
  EXPECT_EQ(info.values_in_file, 41 * 30 + 40 * 31);
  const double share = world().max(double(info.values_held) / double(info.values_in_file));
  // One rank: the finer grid's points touch every point of the file's. More: each rank's share
  // of the box, and a point or two more along each cut.
  if (world().size() == 1)
    EXPECT_EQ(share, 1.0);
  else
    EXPECT_LT(share, 1.0 / world().size() + 0.2) << "the largest share held: " << share;
}

TEST(InitialVelocityFromFile, SmoothPeriodicFieldsConvergeAtSecondOrderAcrossTheWrap) {
  const Scratch scratch("periodic");
  // Periodic along x: every component's points wrap (u's faces start at x = 0, v's centres at
  // h / 2, so the target's first centres fall between the file's last and first).
  const VelocityFunction f = [](int c, double x, double y, double, double) {
    const double k = 2 * 3.141592653589793;
    return c == 0 ? std::cos(k * x + 0.3) * (1 + y) : std::sin(k * x) * y;
  };
  double errors[2];
  for (int level = 0; level < 2; ++level) {
    const long n = 16 << level;
    Flow source("dim = 2\ncells = " + std::to_string(n) + " 4\nlength = 1 1\nperiodic = true false",
                true);
    const std::string path = write_file(source, f, scratch.dir);
    Flow target("dim = 2\ncells = 101 4\nlength = 1 1\nperiodic = true false", true);
    navier_stokes::set_velocity(target.ns, velocity_from_file(path, target.domain), 0.0);
    errors[level] = navier_stokes::velocity_error(target.ns, f, 0.0).second;
  }
  const double order = std::log2(errors[0] / errors[1]);
  EXPECT_GT(errors[1], 0.0);
  EXPECT_NEAR(order, 2.0, 0.1) << "errors " << errors[0] << ", " << errors[1];
}

TEST(InitialVelocityFromFile, UnusableFilesAreConfigErrorsThatSayWhy) {
  const Scratch scratch("errors");
  const VelocityFunction f = multilinear_field();
  Flow source("dim = 2\ncells = 12 9\nlength = 1.2 0.9");
  const std::string path = write_file(source, f, scratch.dir);
  auto read_into = [&](const std::string& lines, bool periodic_x, const std::string& file) {
    Flow target(lines, periodic_x);
    return error_of([&] { velocity_from_file(file, target.domain); });
  };
  EXPECT_TRUE(
      says(read_into("dim = 2\ncells = 12 9\nlength = 1.2 0.9", false, scratch.dir + "/none.h5"),
           "initial.file = " + scratch.dir + "/none.h5: no such file"));
  EXPECT_TRUE(says(read_into("dim = 2\ncells = 12 9\nlength = 1.2 0.9", false, scratch.dir),
                   "not a regular file"));
  EXPECT_TRUE(says(read_into("dim = 2\ncells = 12 9\nlength = 1.3 0.9", false, path),
                   "does not cover this case's [0, 1.3]"));
  EXPECT_TRUE(
      says(read_into("dim = 2\ncells = 12 9\norigin = -0.1 0\nlength = 1.2 0.9", false, path),
           "does not cover"));
  EXPECT_TRUE(says(read_into("dim = 3\ncells = 12 9 3\nlength = 1.2 0.9 0.3", false, path),
                   "its grid is 2D and this case's is 3D"));
  EXPECT_TRUE(
      says(read_into("dim = 2\ncells = 12 9\nlength = 1.2 0.9\nperiodic = true false", true, path),
           "periodic along x"));
  // Another model's restart file.
  RestartState other = restart_state(source.ns);
  other.model = "advection_diffusion";
  const std::string other_path =
      write_restart(scratch.dir + "/other", other, source.domain, source.loaded.config, 3, 1, 0.1);
  EXPECT_TRUE(says(read_into("dim = 2\ncells = 12 9\nlength = 1.2 0.9", false, other_path),
                   "a restart file of model advection_diffusion"));
}

TEST(InitialVelocityFromFile, TheKeysAskForEachOther) {
  Flow flow("dim = 2\ncells = 8 8\nlength = 1 1");
  const Log log(world());
  bool exact = true;
  auto with = [&](const std::vector<std::string>& overrides) {
    const std::string text = "[case]\nmodel = navier_stokes\n[domain]\ncells = 8 8\n";
    const jobs::LoadedCase c = jobs::load_case_text(world(), text, "keys.ini", overrides, "");
    return error_of([&] { initial_velocity(c.config, flow.domain, 0.01, exact, log); });
  };
  EXPECT_TRUE(says(with({"initial.type=file"}), "initial.type = file needs initial.file"));
  EXPECT_TRUE(
      says(with({"initial.file=x.h5"}), "initial.file = x.h5 is given but initial.type = rest"));
}

} // namespace
