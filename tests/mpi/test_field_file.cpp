// Fields in parallel HDF5 files: the file does not depend on the number of ranks that wrote it
// (written on all ranks, read back on one, and the other way round), attributes survive, a file
// is only visible once committed, and a wrong grid, a missing dataset or a missing file are clear
// errors.

#include "test_support.hpp"

#include "undertow/core/error.hpp"
#include "undertow/io/field_file.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>

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
  if (comm.is_root()) { // change one value behind the file's back, as a bad disk or copy would
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t set = H5Dopen2(file, "v", H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    const hsize_t at[3] = {2, 3, 4}, one[3] = {1, 1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, at, nullptr, one, nullptr);
    const hid_t memory = H5Screate_simple(3, one, nullptr);
    const double bad = 12345.0;
    EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &bad), 0);
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(set);
    H5Fclose(file);
  }
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
