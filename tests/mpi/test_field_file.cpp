// Fields in parallel HDF5 files: the file does not depend on the number of ranks that wrote it
// (written on all ranks, read back on one, and the other way round), attributes survive, a file
// is only visible once committed, and a wrong grid, a missing dataset or a missing file are clear
// errors; replicated series; a snapshot series continued after a restart.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/snapshot_series.hpp"
#include "undertow/io/xdmf.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <sstream>
#include <vector>

namespace {

using namespace undertow;
using undertow::testing::locations;
using undertow::testing::world;

DomainSpec spec(int dim, bool periodic_x) {
  DomainSpec s;
  s.dim = dim;
  s.cells = {11, 7, dim == 3 ? 5 : 1};
  s.periodic = {periodic_x, false, false};
  return s;
}

/// A value unique to each global point.
double value_at(long gi, long gj, long gk, int salt) {
  return double(gi) + 100.0 * double(gj) + 10000.0 * double(gk) + 0.25 * salt;
}

void fill_global_pattern(Field& f, int salt) {
  auto host = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(host, -1.0);
  const IndexSpace& o = f.owned();
  const auto& off = f.layout().global_offset;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        host(i, j, k) = value_at(i + off[0], j + off[1], k + off[2], salt);
  Kokkos::deep_copy(f.view(), host);
}

/// Number of owned points of `f` that differ from the pattern, summed over ranks.
long long mismatches(const Communicator& comm, const Field& f, int salt) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const IndexSpace& o = f.owned();
  const auto& off = f.layout().global_offset;
  long long bad = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        bad += host(i, j, k) != value_at(i + off[0], j + off[1], k + off[2], salt);
  return comm.sum(bad);
}

/// Overwrites the value at index `at` of dataset `name` in the file at `path`, leaving its
/// checksum attribute as it was (serial HDF5, one rank).
void overwrite_value(const std::string& path, const char* name, const std::vector<hsize_t>& at,
                     double value) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t set = H5Dopen2(file, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(set);
  const std::vector<hsize_t> one(at.size(), 1);
  H5Sselect_hyperslab(space, H5S_SELECT_SET, at.data(), nullptr, one.data(), nullptr);
  const hid_t memory = H5Screate_simple(static_cast<int>(at.size()), one.data(), nullptr);
  EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value), 0);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(file);
}

std::string shared_path(const Communicator& comm, const std::string& name) {
  // One name for all ranks, and different names for the np1/np2/np4 runs of this test.
  return comm.broadcast(
      (std::filesystem::temp_directory_path() /
       ("undertow_field_file_" + name + "_np" + std::to_string(comm.size()) + ".h5"))
          .string());
}

TEST(FieldFile, TheFileDoesNotDependOnTheRankCount) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  for (int dim : {2, 3})
    for (bool periodic : {false, true}) {
      const std::string path =
          shared_path(comm, "pattern" + std::to_string(dim) + (periodic ? "p" : "n"));
      {
        const Domain d(comm, spec(dim, periodic));
        io::FieldFile file(d, path, io::FieldFile::Mode::Create);
        for (int l = 0; l < int(locations(dim).size()); ++l) {
          Field f(d, locations(dim)[l], 1, "f");
          fill_global_pattern(f, l);
          file.write("field" + std::to_string(l), f);
        }
        file.set_attribute("time", 1.25);
        file.set_attribute("contents", "test pattern");
        file.commit();
      }
      if (comm.rank() == 0) { // read on one rank what all ranks wrote
        const Domain d(alone, spec(dim, periodic));
        io::FieldFile file(d, path, io::FieldFile::Mode::Read);
        EXPECT_EQ(file.real_attribute("time"), 1.25);
        for (int l = 0; l < int(locations(dim).size()); ++l) {
          Field f(d, locations(dim)[l], 1, "f");
          file.read("field" + std::to_string(l), f);
          EXPECT_EQ(mismatches(alone, f, l), 0) << "dim " << dim << " location " << l;
        }
      }
      { // and on all ranks again
        const Domain d(comm, spec(dim, periodic));
        io::FieldFile file(d, path, io::FieldFile::Mode::Read);
        Field f(d, Location::FaceX, 1, "f");
        file.read("field1", f);
        EXPECT_EQ(mismatches(comm, f, 1), 0);
      }
      comm.barrier();
      if (comm.is_root())
        std::filesystem::remove(path);
    }
}

TEST(FieldFile, AFileAppearsOnlyWhenCommitted) {
  const auto& comm = world();
  const Domain d(comm, spec(2, false));
  const std::string path = shared_path(comm, "commit");
  {
    io::FieldFile file(d, path, io::FieldFile::Mode::Create);
    Field f(d, Location::Cell, 1, "f");
    fill_global_pattern(f, 1);
    file.write("p", f);
    file.commit();
  }
  {
    // A second write that fails half-way (the exception leaves before commit).
    try {
      io::FieldFile file(d, path, io::FieldFile::Mode::Create);
      Field f(d, Location::Cell, 1, "f");
      fill_global_pattern(f, 2);
      file.write("p", f);
      throw CollectiveError("interrupted");
    } catch (const CollectiveError&) {
    }
  }
  comm.barrier();
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  io::FieldFile file(d, path, io::FieldFile::Mode::Read);
  Field f(d, Location::Cell, 1, "f");
  file.read("p", f);
  EXPECT_EQ(mismatches(comm, f, 1), 0) << "the committed file was not kept intact";
  comm.barrier();
  if (comm.is_root())
    std::filesystem::remove(path);
}

TEST(FieldFile, WrongGridMissingDatasetAndMissingFileAreClearErrors) {
  const auto& comm = world();
  const std::string path = shared_path(comm, "errors");
  {
    const Domain d(comm, spec(2, false));
    io::FieldFile file(d, path, io::FieldFile::Mode::Create);
    Field f(d, Location::Cell, 1, "f");
    file.write("p", f);
    file.commit();
  }
  DomainSpec other = spec(2, false);
  other.cells = {12, 7, 1};
  const Domain d(comm, other);
  io::FieldFile file(d, path, io::FieldFile::Mode::Read);
  Field f(d, Location::Cell, 1, "f");
  try {
    file.read("p", f);
    FAIL() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("has shape 7 x 11 but this run's grid needs 7 x 12"),
              std::string::npos)
        << e.what();
  }
  try {
    file.read("velocity", f);
    FAIL() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("has no dataset 'velocity'"), std::string::npos);
  }
  try {
    io::FieldFile missing(d, path + ".missing", io::FieldFile::Mode::Read);
    FAIL() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
  comm.barrier();
  if (comm.is_root())
    std::filesystem::remove(path);
}

TEST(FieldFile, ACorruptedValueIsDetectedByTheChecksum) {
  const auto& comm = world();
  const Domain d(comm, spec(3, false));
  const std::string path = shared_path(comm, "corrupt");
  {
    io::FieldFile file(d, path, io::FieldFile::Mode::Create);
    Field f(d, Location::FaceY, 1, "f");
    fill_global_pattern(f, 3);
    file.write("v", f);
    file.commit();
  }
  if (comm.is_root()) // change one value behind the file's back, as a bad disk or copy would
    overwrite_value(path, "v", {2, 3, 4}, 12345.0);
  comm.barrier();
  io::FieldFile file(d, path, io::FieldFile::Mode::Read);
  Field f(d, Location::FaceY, 1, "f");
  try {
    file.read("v", f);
    FAIL() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("does not match its checksum"), std::string::npos)
        << e.what();
  }
  comm.barrier();
  if (comm.is_root())
    std::filesystem::remove(path);
}

TEST(FieldFile, TheChecksumDoesNotDependOnTheRankCount) {
  const auto& comm = world();
  const Communicator alone = comm.split(comm.rank() == 0 ? 0 : 1, comm.rank());
  const std::string path = shared_path(comm, "checksum");
  std::uint64_t all = 0;
  {
    const Domain d(comm, spec(3, true));
    Field f(d, Location::FaceZ, 1, "f");
    fill_global_pattern(f, 4);
    io::FieldFile file(d, path, io::FieldFile::Mode::Create);
    all = file.checksum(f);
  }
  if (comm.rank() == 0) {
    const Domain d(alone, spec(3, true));
    Field f(d, Location::FaceZ, 1, "f");
    fill_global_pattern(f, 4);
    io::FieldFile file(d, path + ".one", io::FieldFile::Mode::Create);
    EXPECT_EQ(file.checksum(f), all);
  }
}

} // namespace

namespace {

using namespace undertow;
using undertow::testing::world;

// A replicated series (e.g. a probe's history in a restart file): written by rank 0, read back
// whole on every rank, bitwise; an empty one too; a changed value fails its checksum.
TEST(FieldFile, ASeriesRoundTripsAndItsChecksumCatchesAChange) {
  const auto& comm = world();
  const Domain d(comm, spec(2, false));
  const std::string path = shared_path(comm, "series");
  const std::vector<double> values = {0.1, -2.5e-7, 3.0 / 7.0, 1e300};
  {
    io::FieldFile file(d, path, io::FieldFile::Mode::Create);
    file.write_series("history", values);
    file.write_series("empty", {});
    file.commit();
  }
  {
    io::FieldFile file(d, path, io::FieldFile::Mode::Read);
    EXPECT_EQ(file.read_series("history"), values); // bitwise
    EXPECT_TRUE(file.read_series("empty").empty());
  }
  if (comm.is_root())
    overwrite_value(path, "history", {2}, 0.5);
  comm.barrier();
  {
    io::FieldFile file(d, path, io::FieldFile::Mode::Read);
    try {
      file.read_series("history");
      FAIL() << "no error";
    } catch (const CollectiveError& e) {
      EXPECT_NE(std::string(e.what()).find("dataset 'history' in " + path +
                                           " does not match its checksum"),
                std::string::npos)
          << e.what();
    }
  }
  comm.barrier();
  if (comm.is_root())
    std::filesystem::remove(path);
}

/// The times and files the XDMF file of a series lists, in order.
std::vector<std::string> listed(const std::string& xdmf) {
  std::ifstream in(xdmf);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    auto at = line.find("Time Value=\"");
    if (at != std::string::npos)
      out.push_back("t=" + line.substr(at + 12, line.find('"', at + 12) - at - 12));
    at = line.find("series/series_");
    if (at != std::string::npos && line.find("/c</DataItem>") != std::string::npos)
      out.push_back(line.substr(at, line.find(":/c") - at));
  }
  return out;
}

// A run continued from a restart file at step 10 into its earlier folder: the series keeps the
// earlier part's snapshots up to step 10 (not the one of step 20, written after the restart file
// and replaced by the continued run), lists them first, and adds the new ones; a snapshot of the
// restart step is not written again. An earlier snapshot that cannot be read is named.
TEST(SnapshotSeries, AContinuedSeriesKeepsTheEarlierSnapshotsUpToTheRestartStep) {
  const auto& comm = world();
  const Domain d(comm, spec(2, false));
  const std::string dir = comm.broadcast((std::filesystem::temp_directory_path() /
                                          ("undertow_series_np" + std::to_string(comm.size())))
                                             .string());
  if (comm.is_root())
    std::filesystem::remove_all(dir);
  comm.barrier();
  Field c(d, Location::Cell, 0, "c");
  fill_global_pattern(c, 1);
  auto snapshot = [&](io::SnapshotSeries& s, long step) {
    if (!s.begin(step, 0.5 * double(step)))
      return false;
    s.cell("c", c);
    s.commit();
    return true;
  };
  {
    io::SnapshotSeries first(d, dir, "series", {{"units", "none"}});
    for (long step : {0, 10, 20})
      EXPECT_TRUE(snapshot(first, step));
  }
  io::SnapshotSeries continued(d, dir, "series", {{"units", "none"}}, 10);
  EXPECT_EQ(continued.count(), 2);
  EXPECT_FALSE(snapshot(continued, 10)); // already there
  EXPECT_TRUE(snapshot(continued, 15));
  EXPECT_TRUE(snapshot(continued, 20));
  const std::vector<std::string> expected = {
      "t=0",   "series/series_000000000.h5", "t=5",  "series/series_000000010.h5",
      "t=7.5", "series/series_000000015.h5", "t=10", "series/series_000000020.h5"};
  EXPECT_EQ(comm.broadcast(comm.is_root() ? [&] {
              std::string all;
              for (const auto& s : listed(continued.xdmf_path()))
                all += s + " ";
              return all;
            }()
                                          : std::string()),
            [&] {
              std::string all;
              for (const auto& s : expected)
                all += s + " ";
              return all;
            }());

  if (comm.is_root()) { // an earlier snapshot damaged: not an HDF5 file any more
    std::ofstream(dir + "/series/series_000000010.h5") << "not HDF5\n";
  }
  comm.barrier();
  try {
    io::SnapshotSeries broken(d, dir, "series", {{"units", "none"}}, 10);
    FAIL() << "no error";
  } catch (const CollectiveError& e) {
    EXPECT_NE(std::string(e.what()).find("the earlier snapshot " + dir +
                                         "/series/series_000000010.h5 cannot be read"),
              std::string::npos)
        << e.what();
  }
  comm.barrier();
  if (comm.is_root())
    std::filesystem::remove_all(dir);
}

// A stretched grid is described as a rectilinear mesh whose vertex lists are the domain's faces
// (uniform axes listed too), as the XDMF format defines it; a uniform one keeps its
// CoRectMesh.
TEST(Xdmf, AStretchedGridListsItsVertices) {
  DomainSpec s = spec(3, false);
  for (long i = 0; i <= s.cells[0]; ++i) // x clustered towards 0: x = (i / n)^2
    s.faces[0].push_back(double(i * i) / double(s.cells[0] * s.cells[0]));
  const Domain d(world(), s);
  const std::string xml = io::xdmf_time_series(io::xdmf_grid(d), {"p"}, {{0.5, "a.h5"}});
  EXPECT_NE(xml.find("TopologyType=\"3DRectMesh\" Dimensions=\"6 8 12\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("GeometryType=\"VXVYVZ\""), std::string::npos);
  std::vector<std::vector<double>> lists;
  for (std::size_t at = xml.find("Dimensions=\"", xml.find("VXVYVZ")); lists.size() < 3;
       at = xml.find("Dimensions=\"", at + 1)) {
    std::istringstream values(xml.substr(xml.find('>', at) + 1));
    lists.emplace_back();
    double v = 0;
    while (values >> v)
      lists.back().push_back(v);
  }
  EXPECT_EQ(lists[0], s.faces[0]);
  ASSERT_EQ(lists[1].size(), 8u);
  EXPECT_DOUBLE_EQ(lists[1][7], 1.0);
  ASSERT_EQ(lists[2].size(), 6u);
  EXPECT_DOUBLE_EQ(lists[2][1], 0.2);
  const Domain uniform(world(), spec(2, false));
  EXPECT_NE(
      io::xdmf_time_series(io::xdmf_grid(uniform), {"p"}, {{0.5, "a.h5"}}).find("2DCoRectMesh"),
      std::string::npos);
}

} // namespace
