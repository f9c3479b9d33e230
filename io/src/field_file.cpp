#include "undertow/io/field_file.hpp"

#include "hdf5_settings.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/hash.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <hdf5.h>
#include <vector>

namespace undertow {
namespace io {

struct FieldFile::Handles {
  hid_t file = -1;
  hid_t transfer = -1; ///< dataset transfer properties: collective MPI-IO
};

namespace {

std::string temporary(const std::string& path) {
  return path + ".tmp";
}

/// Global shape (slowest axis first) and this rank's owned block of `f` in it.
struct Block {
  int rank = 0;
  std::array<hsize_t, 3> shape{1, 1, 1}, start{0, 0, 0}, count{0, 0, 0};
};

Block block_of(const Field& f, int dim) {
  Block b;
  b.rank = dim;
  const FieldLayout& l = f.layout();
  for (int a = 0; a < dim; ++a) {
    const int d = dim - 1 - a; // x is the last (fastest) dimension of the dataset
    b.shape[d] = static_cast<hsize_t>(l.global.extent(a));
    b.start[d] = static_cast<hsize_t>(l.owned.begin[a] + l.global_offset[a] - l.global.begin[a]);
    b.count[d] = static_cast<hsize_t>(l.owned.extent(a));
  }
  return b;
}

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

void write_string_attribute(hid_t object, const std::string& name, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size() + 1);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, value.c_str());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

/// The string attribute `name` of `object`; false if it is missing or not a string.
bool read_string_attribute(hid_t object, const std::string& name, std::string& value) {
  if (H5Aexists(object, name.c_str()) <= 0)
    return false;
  const hid_t attr = H5Aopen(object, name.c_str(), H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  bool ok = H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type);
  if (ok) {
    std::vector<char> text(H5Tget_size(type) + 1, '\0');
    ok = H5Aread(attr, type, text.data()) >= 0;
    value = text.data();
  }
  H5Tclose(type);
  H5Aclose(attr);
  return ok;
}

std::vector<double> owned_values(const Field& f) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const IndexSpace& o = f.owned();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(o.size()));
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        out.push_back(host(i, j, k));
  return out;
}

} // namespace

FieldFile::FieldFile(const Domain& domain, const std::string& path, Mode mode)
    : m_domain(domain), m_path(path), m_mode(mode), m_h(std::make_unique<Handles>()) {
  const hid_t access = parallel_file_access(domain.comm());
  if (mode == Mode::Create)
    m_h->file = H5Fcreate(temporary(path).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access);
  else
    m_h->file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, access);
  H5Pclose(access);
  if (m_h->file < 0 && mode == Mode::Create)
    throw CollectiveError("cannot create " + temporary(path) +
                          " as an HDF5 file: check that the directory exists and is writable.");
  if (m_h->file < 0)
    throw CollectiveError("cannot open " + path +
                          " as an HDF5 file: it is missing, truncated, or not an HDF5 file.");
  m_h->transfer = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(m_h->transfer, H5FD_MPIO_COLLECTIVE);
}

FieldFile::~FieldFile() {
  if (m_h->transfer >= 0)
    H5Pclose(m_h->transfer);
  if (m_h->file >= 0) {
    H5Fclose(m_h->file);
    if (m_mode == Mode::Create && m_domain.comm().is_root())
      std::remove(temporary(m_path).c_str()); // never committed: the old file stays
  }
}

void FieldFile::write(const std::string& name, const Field& f) {
  const Block b = block_of(f, m_domain.dim());
  const std::vector<double> values = owned_values(f);
  const hid_t file_space = H5Screate_simple(b.rank, b.shape.data(), nullptr);
  const hid_t set = H5Dcreate2(m_h->file, name.c_str(), H5T_NATIVE_DOUBLE, file_space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
  const hid_t memory = H5Screate_simple(b.rank, b.count.data(), nullptr);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, b.start.data(), nullptr, b.count.data(), nullptr);
  const herr_t status =
      set < 0 ? -1
              : H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, file_space, m_h->transfer, values.data());
  H5Sclose(memory);
  H5Sclose(file_space);
  const std::uint64_t sum = checksum(f); // collective: every rank, before any may throw
  if (set >= 0) {
    write_string_attribute(set, "checksum", hex(sum));
    H5Dclose(set);
  }
  if (m_domain.comm().max(static_cast<long long>(status < 0)) > 0)
    throw CollectiveError("writing dataset '" + name + "' to " + temporary(m_path) +
                          " failed (disk full or quota?)");
}

void FieldFile::read(const std::string& name, Field& f) const {
  const Block b = block_of(f, m_domain.dim());
  const hid_t set = H5Dopen2(m_h->file, name.c_str(), H5P_DEFAULT);
  if (set < 0)
    throw CollectiveError(m_path + " has no dataset '" + name + "'");
  const hid_t file_space = H5Dget_space(set);
  std::array<hsize_t, 3> shape{1, 1, 1};
  const int rank = H5Sget_simple_extent_ndims(file_space);
  bool same = rank == b.rank;
  if (same) {
    H5Sget_simple_extent_dims(file_space, shape.data(), nullptr);
    for (int d = 0; d < rank; ++d)
      same = same && shape[d] == b.shape[d];
  }
  if (!same) {
    H5Sclose(file_space);
    H5Dclose(set);
    std::string found, expected;
    for (int d = 0; d < rank && d < 3; ++d)
      found += (d ? " x " : "") + std::to_string(shape[d]);
    for (int d = 0; d < b.rank; ++d)
      expected += (d ? " x " : "") + std::to_string(b.shape[d]);
    throw CollectiveError("dataset '" + name + "' in " + m_path + " has shape " + found +
                          " but this run's grid needs " + expected +
                          " (slowest axis first): the file is from another grid");
  }
  hsize_t owned = 1;
  for (int d = 0; d < b.rank; ++d)
    owned *= b.count[d];
  std::vector<double> values(static_cast<std::size_t>(owned));
  const hid_t memory = H5Screate_simple(b.rank, b.count.data(), nullptr);
  H5Sselect_hyperslab(file_space, H5S_SELECT_SET, b.start.data(), nullptr, b.count.data(), nullptr);
  const herr_t status =
      H5Dread(set, H5T_NATIVE_DOUBLE, memory, file_space, m_h->transfer, values.data());
  H5Sclose(memory);
  H5Sclose(file_space);
  std::string stored;
  const bool has_checksum = read_string_attribute(set, "checksum", stored);
  H5Dclose(set);
  if (m_domain.comm().max(static_cast<long long>(status < 0)) > 0)
    throw CollectiveError("reading dataset '" + name + "' from " + m_path +
                          " failed: the file is truncated or corrupted");
  auto host = Kokkos::create_mirror_view(f.view());
  Kokkos::deep_copy(host, f.view());
  const IndexSpace& o = f.owned();
  std::size_t p = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i)
        host(i, j, k) = values[p++];
  Kokkos::deep_copy(f.view(), host);
  if (has_checksum && hex(checksum(f)) != stored)
    throw CollectiveError("dataset '" + name + "' in " + m_path + " does not match its checksum (" +
                          stored + " stored, " + hex(checksum(f)) +
                          " read): the file is corrupted; use another restart file");
}

namespace {

/// A bitwise checksum of a replicated series (position-keyed, like field_checksum).
std::uint64_t series_checksum(const std::vector<double>& values) {
  std::uint64_t sum = 0;
  for (std::size_t n = 0; n < values.size(); ++n) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &values[n], sizeof bits);
    sum += mix64(bits ^ mix64(n + 0x9e3779b97f4a7c15ULL));
  }
  return sum;
}

} // namespace

void FieldFile::write_series(const std::string& name, const std::vector<double>& values) {
  const hsize_t size = values.size();
  const hid_t file_space = H5Screate_simple(1, &size, nullptr);
  const hid_t set = H5Dcreate2(m_h->file, name.c_str(), H5T_NATIVE_DOUBLE, file_space, H5P_DEFAULT,
                               H5P_DEFAULT, H5P_DEFAULT);
  // Rank 0 writes every value, the others none (the write is collective all the same).
  const bool writes = m_domain.comm().is_root() && size > 0;
  const hsize_t count = writes ? size : 0;
  const hid_t memory = H5Screate_simple(1, &size, nullptr);
  if (!writes) {
    H5Sselect_none(memory);
    H5Sselect_none(file_space);
  }
  // An empty series is a dataset of size 0, with nothing to write.
  const herr_t status = set < 0     ? -1
                        : size == 0 ? 0
                                    : H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, file_space,
                                               m_h->transfer, count > 0 ? values.data() : nullptr);
  H5Sclose(memory);
  H5Sclose(file_space);
  if (set >= 0) {
    write_string_attribute(set, "checksum", hex(series_checksum(values)));
    H5Dclose(set);
  }
  if (m_domain.comm().max(static_cast<long long>(status < 0)) > 0)
    throw CollectiveError("writing dataset '" + name + "' to " + temporary(m_path) +
                          " failed (disk full or quota?)");
}

std::vector<double> FieldFile::read_series(const std::string& name) const {
  const hid_t set = H5Dopen2(m_h->file, name.c_str(), H5P_DEFAULT);
  if (set < 0)
    throw CollectiveError(m_path + " has no dataset '" + name + "'");
  const hid_t file_space = H5Dget_space(set);
  hsize_t size = 0;
  const bool one_dimensional = H5Sget_simple_extent_ndims(file_space) == 1;
  if (one_dimensional)
    H5Sget_simple_extent_dims(file_space, &size, nullptr);
  std::vector<double> values(static_cast<std::size_t>(size));
  herr_t status = one_dimensional ? 0 : -1;
  if (one_dimensional && size > 0) {
    const hid_t memory = H5Screate_simple(1, &size, nullptr);
    status = H5Dread(set, H5T_NATIVE_DOUBLE, memory, file_space, m_h->transfer, values.data());
    H5Sclose(memory);
  }
  H5Sclose(file_space);
  std::string stored;
  const bool has_checksum = read_string_attribute(set, "checksum", stored);
  H5Dclose(set);
  if (!one_dimensional)
    throw CollectiveError("dataset '" + name + "' in " + m_path +
                          " is not a one-dimensional series: the file is not one this undertow "
                          "wrote");
  if (m_domain.comm().max(static_cast<long long>(status < 0)) > 0)
    throw CollectiveError("reading dataset '" + name + "' from " + m_path +
                          " failed: the file is truncated or corrupted");
  if (!has_checksum || hex(series_checksum(values)) != stored)
    throw CollectiveError("dataset '" + name + "' in " + m_path +
                          " does not match its checksum: the file is corrupted; use another "
                          "restart file");
  return values;
}

std::string checksum_text(std::uint64_t checksum) {
  return hex(checksum);
}

std::uint64_t field_checksum(const Communicator& comm, const Field& f) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.view());
  const IndexSpace& o = f.owned();
  const FieldLayout& l = f.layout();
  const auto& g = l.global;
  std::uint64_t sum = 0;
  for (long k = o.begin[2]; k < o.end[2]; ++k)
    for (long j = o.begin[1]; j < o.end[1]; ++j)
      for (long i = o.begin[0]; i < o.end[0]; ++i) {
        const std::uint64_t index =
            static_cast<std::uint64_t>(((k + l.global_offset[2] - g.begin[2]) * g.extent(1) +
                                        (j + l.global_offset[1] - g.begin[1])) *
                                           g.extent(0) +
                                       (i + l.global_offset[0] - g.begin[0]));
        std::uint64_t bits = 0;
        const double v = host(i, j, k);
        std::memcpy(&bits, &v, sizeof bits);
        sum += mix64(bits ^ mix64(index + 0x9e3779b97f4a7c15ULL));
      }
  std::uint64_t total = 0; // unsigned addition wraps: the sum is exact in any order
  MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, comm.raw());
  return total;
}

void FieldFile::set_attribute(const std::string& name, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr =
      H5Acreate2(m_h->file, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attr);
  H5Sclose(space);
}

void FieldFile::set_attribute(const std::string& name, const std::string& value) {
  write_string_attribute(m_h->file, name, value);
}

std::string FieldFile::string_attribute(const std::string& name) const {
  std::string value;
  if (!read_string_attribute(m_h->file, name, value))
    throw CollectiveError(m_path + " has no text attribute '" + name + "'");
  return value;
}

bool FieldFile::has_attribute(const std::string& name) const {
  return H5Aexists(m_h->file, name.c_str()) > 0;
}

double FieldFile::real_attribute(const std::string& name) const {
  const hid_t attr = H5Aopen(m_h->file, name.c_str(), H5P_DEFAULT);
  double value = 0;
  const herr_t status = attr < 0 ? -1 : H5Aread(attr, H5T_NATIVE_DOUBLE, &value);
  if (attr >= 0)
    H5Aclose(attr);
  if (status < 0)
    throw CollectiveError(m_path + " has no numeric attribute '" + name + "'");
  return value;
}

void FieldFile::commit() {
  if (m_mode != Mode::Create)
    return;
  H5Pclose(m_h->transfer);
  m_h->transfer = -1;
  const herr_t closed = H5Fclose(m_h->file);
  m_h->file = -1;
  int renamed = 0;
  if (m_domain.comm().is_root() && closed >= 0)
    renamed = std::rename(temporary(m_path).c_str(), m_path.c_str()) == 0 ? 1 : 0;
  if (m_domain.comm().max(static_cast<long long>(renamed)) == 0)
    throw CollectiveError("could not finish " + m_path + " (closing or renaming " +
                          temporary(m_path) + " failed)");
}

} // namespace io
} // namespace undertow
