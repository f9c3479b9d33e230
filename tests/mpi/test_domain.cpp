// Domain: uneven splits, automatic and user-given process grids, owned index spaces that
// partition the global points of every staggered location, and coordinates.

#include "test_support.hpp"

#include "undertow/core/config.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/stretching.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <gtest/gtest.h>

namespace {

using namespace undertow;
using undertow::testing::locations;
using undertow::testing::make_spec;
using undertow::testing::process_grids;
using undertow::testing::world;

TEST(Domain, UnevenSplitsCoverEveryCellOnce) {
  const auto& comm = world();
  for (const auto& grid : process_grids(2, comm.size())) {
    const Domain d(comm, make_spec(2, {37, 23, 1}, {false, true, false}, grid));
    for (int a = 0; a < 2; ++a) {
      long expected_offset = 0;
      for (int c = 0; c < d.ranks_along(a); ++c) {
        EXPECT_EQ(d.cell_offset(a, c), expected_offset);
        expected_offset += d.cell_count(a, c);
        // Balanced: counts differ by at most one.
        EXPECT_LE(std::abs(d.cell_count(a, c) - d.cell_count(a, 0)), 1);
      }
      EXPECT_EQ(expected_offset, d.global_cells(a));
    }
  }
}

TEST(Domain, OwnedSpacesPartitionEveryLocation) {
  const auto& comm = world();
  for (int dim = 2; dim <= 3; ++dim) {
    for (const auto& grid : process_grids(dim, comm.size())) {
      for (const bool periodic : {false, true}) {
        const Domain d(comm, make_spec(dim, {17, 13, 11}, {periodic, !periodic, periodic}, grid));
        for (const Location loc : locations(dim)) {
          const FieldLayout lay = d.layout(loc, 1);
          // Owned boxes of all ranks: disjoint, inside the global range, adding up to it.
          long box[6];
          for (int a = 0; a < 3; ++a) {
            box[a] = lay.owned.begin[a] + lay.global_offset[a];
            box[3 + a] = lay.owned.end[a] + lay.global_offset[a];
            EXPECT_GE(box[a], 0);
            EXPECT_LE(box[3 + a], lay.global.end[a]);
          }
          std::vector<long> all(6 * comm.size());
          MPI_Allgather(box, 6, MPI_LONG, all.data(), 6, MPI_LONG, comm.raw());
          long total = 0;
          for (int r = 0; r < comm.size(); ++r) {
            total += (all[6 * r + 3] - all[6 * r]) * (all[6 * r + 4] - all[6 * r + 1]) *
                     (all[6 * r + 5] - all[6 * r + 2]);
            for (int q = 0; q < r; ++q) {
              bool overlap = true;
              for (int a = 0; a < 3; ++a)
                overlap = overlap && std::max(all[6 * r + a], all[6 * q + a]) <
                                         std::min(all[6 * r + 3 + a], all[6 * q + 3 + a]);
              EXPECT_FALSE(overlap) << "ranks " << r << " and " << q << " overlap";
            }
          }
          EXPECT_EQ(total, lay.global.size()) << to_string(loc) << " dim " << dim;
          // N cells give N + 1 faces on a non-periodic axis, N on a periodic one.
          for (int a = 0; a < dim; ++a)
            if (d.staggered(loc, a)) {
              EXPECT_EQ(lay.global.extent(a), d.global_cells(a) + (d.periodic(a) ? 0 : 1));
            }
        }
      }
    }
  }
}

TEST(Domain, GhostedLayoutAndCoordinates) {
  const auto& comm = world();
  const Domain d(comm, make_spec(3, {17, 13, 11}, {true, false, false}));
  const FieldLayout cell = d.layout(Location::Cell, 2);
  const FieldLayout face = d.layout(Location::FaceY, 2);
  for (int a = 0; a < 3; ++a) {
    EXPECT_EQ(cell.extent[a], d.cell_count(a) + 4);
    EXPECT_EQ(face.extent[a], d.cell_count(a) + 4 + (a == 1 ? 1 : 0));
    EXPECT_EQ(cell.owned.begin[a], 2);
    // The lower face of a cell has the cell's local index when the ghost widths agree.
    EXPECT_EQ(cell.global_offset[a], face.global_offset[a]);
  }
  const double h0 = 1.0 / 17, h1 = 0.75 / 13;
  const long i = cell.owned.begin[0], j = cell.owned.begin[1];
  EXPECT_NEAR(cell.geometry.coordinate(0, i), -0.5 + (d.cell_offset(0) + 0.5) * h0, 1e-15);
  EXPECT_NEAR(face.geometry.coordinate(1, j), 0.25 + d.cell_offset(1) * h1, 1e-15);
  EXPECT_NEAR(face.geometry.coordinate(0, i), -0.5 + (d.cell_offset(0) + 0.5) * h0, 1e-15);
}

TEST(Domain, AutomaticGridMinimisesCuts) {
  DomainSpec wide = make_spec(2, {64, 16, 1}, {false, false, false});
  EXPECT_EQ(choose_process_grid(wide, 4), (std::array<int, 3>{4, 1, 1}));
  DomainSpec square = make_spec(2, {32, 32, 1}, {false, false, false});
  EXPECT_EQ(choose_process_grid(square, 4), (std::array<int, 3>{2, 2, 1}));
  DomainSpec cube = make_spec(3, {16, 16, 16}, {false, false, false});
  EXPECT_EQ(choose_process_grid(cube, 8), (std::array<int, 3>{2, 2, 2}));
  DomainSpec partly = make_spec(3, {16, 16, 16}, {false, false, false}, {0, 4, 0});
  EXPECT_EQ(choose_process_grid(partly, 8)[1], 4);
}

TEST(Domain, ImpossibleDecompositionsAreConfigErrors) {
  DomainSpec s = make_spec(2, {16, 16, 1}, {false, false, false}, {3, 1, 1});
  try {
    choose_process_grid(s, 4);
    FAIL() << "3x1 accepted for 4 ranks";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("domain.ranks"), std::string::npos) << e.what();
  }
  DomainSpec thin = make_spec(2, {2, 1, 1}, {false, false, false});
  try {
    choose_process_grid(thin, 3);
    FAIL() << "2x1 cells split over 3 ranks";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot split"), std::string::npos) << e.what();
  }
}

TEST(Domain, RanksAreNumberedXFastestLikePetscDmda) {
  const auto& comm = world();
  for (const auto& grid : process_grids(3, comm.size())) {
    const Domain d(comm, make_spec(3, {8, 8, 8}, {true, false, true}, grid));
    EXPECT_EQ(d.comm().rank(), d.coord(0) + grid[0] * (d.coord(1) + grid[1] * d.coord(2)));
    EXPECT_EQ(d.rank_of({d.coord(0), d.coord(1), d.coord(2)}), d.comm().rank());
    // Periodic axes wrap; non-periodic ones end.
    EXPECT_EQ(d.rank_of({-1, d.coord(1), d.coord(2)}),
              d.rank_of({grid[0] - 1, d.coord(1), d.coord(2)}));
    EXPECT_EQ(d.rank_of({d.coord(0), -1, d.coord(2)}), -1);
  }
}

TEST(Domain, FaceZDoesNotExistIn2D) {
  const Domain d(world(), make_spec(2, {8, 8, 1}, {false, false, false}));
  EXPECT_THROW(d.layout(Location::FaceZ, 1), Error);
}

TEST(Domain, ConfigKeysBuildTheSpec) {
  ConfigSchema schema;
  DomainSpec::declare_keys(schema);
  const Config c(schema, RawConfig::parse("[domain]\ndim = 3\ncells = 4 5 6\nperiodic = 1 0 1\n",
                                          "t.ini", {}));
  const DomainSpec s = DomainSpec::from_config(c);
  EXPECT_EQ(s.cells, (std::array<long, 3>{4, 5, 6}));
  EXPECT_EQ(s.periodic, (std::array<bool, 3>{true, false, true}));
  const Config bad(schema, RawConfig::parse("[domain]\ndim = 3\ncells = 4 5\n", "t.ini", {}));
  try {
    DomainSpec::from_config(bad);
    FAIL() << "2 cell counts accepted in 3D";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("domain.cells has 2 entries"), std::string::npos);
  }
}

DomainSpec stretched_spec(const std::string& keys) {
  ConfigSchema schema;
  DomainSpec::declare_keys(schema);
  return DomainSpec::from_config(
      Config(schema, RawConfig::parse("[domain]\n" + keys, "t.ini", {})));
}

std::string config_error(const std::string& keys) {
  try {
    stretched_spec(keys);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

// The DFG channel clustered around its cylinder: uniform cells of the asked width in the box,
// growing by at most the ratio outside it, ending exactly on the box and the domain's ends.
TEST(Stretching, TheBoxHasUniformCellsAndTheRestGrowsBoundedly) {
  const DomainSpec s = stretched_spec("length = 2.2 0.41\nbox = 0.1 0.1 0.6 0.3\n"
                                      "box_spacing = 0.005\ngrowth = 1.08\n");
  for (int a = 0; a < 2; ++a) {
    const std::vector<double>& f = s.faces[std::size_t(a)];
    ASSERT_EQ(long(f.size()), s.cells[a] + 1);
    EXPECT_EQ(f.front(), 0.0);
    EXPECT_EQ(f.back(), a == 0 ? 2.2 : 0.41);
    EXPECT_LE(largest_growth(f), 1.08 * (1 + 1e-12));
    const double lo = a == 0 ? 0.1 : 0.1, hi = a == 0 ? 0.6 : 0.3;
    long inside = 0;
    for (std::size_t i = 0; i + 1 < f.size(); ++i)
      if (f[i] >= lo - 1e-14 && f[i + 1] <= hi + 1e-14) {
        EXPECT_NEAR(f[i + 1] - f[i], 0.005, 1e-14);
        ++inside;
      }
    EXPECT_EQ(inside, a == 0 ? 100 : 40);
    EXPECT_TRUE(std::find(f.begin(), f.end(), lo) != f.end());
    EXPECT_TRUE(std::find(f.begin(), f.end(), hi) != f.end());
  }
  // Far from the box the cells have grown; max_spacing caps them.
  const DomainSpec capped = stretched_spec("length = 2.2 0.41\nbox = 0.1 0.1 0.6 0.3\n"
                                           "box_spacing = 0.005\ngrowth = 1.08\n"
                                           "max_spacing = 0.02\n");
  const std::vector<double>& f = s.faces[0];
  const std::vector<double>& g = capped.faces[0];
  EXPECT_GT(f[f.size() - 1] - f[f.size() - 2], 0.1);
  EXPECT_LE(g[g.size() - 1] - g[g.size() - 2], 0.02);
  EXPECT_GT(capped.cells[0], s.cells[0]);
  // A box over a whole axis leaves it uniform, with the cell count it implies.
  const DomainSpec whole = stretched_spec("length = 2.2 0.41\nbox = 0.1 0 0.6 0.41\n"
                                          "box_spacing = 0.01\n");
  EXPECT_TRUE(whole.uniform(1));
  EXPECT_EQ(whole.cells[1], 41);
  EXPECT_FALSE(whole.uniform(0));
}

TEST(Stretching, BadBoxesAreConfigErrorsNamingTheFix) {
  const std::string base = "length = 2.2 0.41\nbox_spacing = 0.01\n";
  EXPECT_NE(
      config_error(base + "box = 0.1 0.1 0.6 0.3\ncells = 10 10\n").find("remove domain.cells"),
      std::string::npos);
  EXPECT_NE(config_error("box = 0.1 0.1 0.6 0.3\n").find("needs domain.box_spacing"),
            std::string::npos);
  EXPECT_NE(config_error("cells = 8 8\ngrowth = 1.1\n").find("give domain.box"), std::string::npos);
  EXPECT_NE(config_error(base + "box = 0.1 0.1 3 0.3\n").find("inside the domain"),
            std::string::npos);
  EXPECT_NE(
      config_error(base + "box = 0.1 0.1 0.6 0.3 0.5\n").find("the lower corner, then the upper"),
      std::string::npos);
  EXPECT_NE(config_error(base + "box = 0.1 0.1 0.6 0.3\nperiodic = 1 0\n").find("periodic"),
            std::string::npos);
  // A gap to the end narrower than the cells can grow into.
  EXPECT_NE(config_error(base + "box = 0.015 0.1 0.6 0.3\n").find("too narrow"), std::string::npos);
}

// Every rank's layouts give the global faces' coordinates, ghosts included (mirrored widths
// beyond the walls): the geometry does not depend on the decomposition.
TEST(Stretching, LayoutsGiveTheFacesCoordinatesOnAnyNumberOfRanks) {
  const auto& comm = world();
  DomainSpec s = stretched_spec("dim = 3\nlength = 2 1 1\nbox = 0.5 0.25 0 1 0.5 1\n"
                                "box_spacing = 0.05\ngrowth = 1.1\n");
  ASSERT_FALSE(s.uniform(0));
  ASSERT_FALSE(s.uniform(1));
  ASSERT_TRUE(s.uniform(2));
  const Domain d(comm, s);
  EXPECT_NE(d.describe().find("x stretched"), std::string::npos);
  for (Location loc : {Location::Cell, Location::FaceX, Location::FaceY}) {
    const FieldLayout l = d.layout(loc, 2);
    for (int a = 0; a < 2; ++a) {
      const std::vector<double>& f = s.faces[std::size_t(a)];
      const long n = s.cells[a];
      for (long i = 0; i < l.extent[a]; ++i) {
        const long g = i + l.global_offset[a];
        // Beyond the ends the widths mirror: face -m at f[0] - (f[m] - f[0]).
        const auto face = [&](long q) {
          return q < 0   ? 2 * f[0] - f[std::size_t(-q)]
                 : q > n ? 2 * f[std::size_t(n)] - f[std::size_t(2 * n - q)]
                         : f[std::size_t(q)];
        };
        const double expected = d.staggered(loc, a) ? face(g) : 0.5 * (face(g) + face(g + 1));
        EXPECT_NEAR(l.geometry.coordinate(a, i), expected, 1e-14) << "axis " << a << " g " << g;
      }
    }
    // The uniform axis keeps the uniform formula, bitwise.
    const long k = l.owned.begin[2];
    EXPECT_EQ(l.geometry.coordinate(2, k),
              (double(k + l.global_offset[2]) + 0.5) * (1.0 / s.cells[2]));
  }
  EXPECT_NEAR(d.min_spacing(0), 0.05, 1e-14);
  const std::vector<double> w = d.cell_widths(1);
  EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 1.0, 1e-14);
}

} // namespace
