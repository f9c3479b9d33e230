#pragma once
/// \file
/// Fields in parallel HDF5 files: one global dataset per field, written and read with collective
/// hyperslab transfers, so that a file does not depend on the number of ranks that wrote it.
///
/// Dataset layout: C order with x fastest, shape (nz, ny, nx) in 3D and (ny, nx) in 2D, where n
/// counts the distinct global points of the field's location (N cells give N + 1 faces along a
/// non-periodic axis, N along a periodic one). The HDF5 settings (MPI-IO driver, collective
/// transfers, collective metadata) are set here and nowhere else.
///
/// Files are created under a temporary name and renamed by commit(); a file that is never
/// committed (a crash, an exception) is removed, and a previous file of the same name stays as it
/// was.

#include "undertow/core/field.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace undertow {
namespace io {

/// A checksum of the owned values of `f` that does not depend on the decomposition: the sum
/// modulo 2^64 of a 64-bit mix of each value's bits and its global index. Bitwise-equal fields
/// give equal checksums on any number of ranks. Collective.
std::uint64_t field_checksum(const Communicator& comm, const Field& f);

/// The checksum as 16 hex digits.
std::string checksum_text(std::uint64_t checksum);

class FieldFile {
 public:
  enum class Mode { Create, Read };

  /// Opens `path` on every rank of the domain's communicator, for fields of that domain: Create
  /// writes to `path` + ".tmp" until commit(); Read opens an existing file. Throws Error naming
  /// the file and the cause. Collective.
  FieldFile(const Domain& domain, const std::string& path, Mode mode);
  /// Closes the file; an uncommitted Create is removed. Collective.
  ~FieldFile();
  FieldFile(const FieldFile&) = delete;
  FieldFile& operator=(const FieldFile&) = delete;

  /// Writes the owned values of `f` as the global dataset `name`, with its checksum (see
  /// checksum()) as the dataset's attribute "checksum". Collective.
  void write(const std::string& name, const Field& f);
  /// Reads the dataset `name` into the owned values of `f` (ghosts untouched). Throws Error
  /// naming the file and dataset if it is missing, its shape differs from f's global shape, or
  /// the values do not match the stored checksum (a corrupted file). Collective.
  void read(const std::string& name, Field& f) const;

  /// field_checksum over this file's communicator. Collective.
  std::uint64_t checksum(const Field& f) const { return field_checksum(m_domain.comm(), f); }

  /// Writes `values` (the same on every rank: a record that is not a grid field, e.g. a probe's
  /// history) as the one-dimensional dataset `name`, with its checksum. Collective.
  void write_series(const std::string& name, const std::vector<double>& values);
  /// Reads the dataset `name` written by write_series, on every rank. Throws Error naming the
  /// file and dataset if it is missing, not one-dimensional, unreadable or does not match its
  /// checksum. Collective.
  std::vector<double> read_series(const std::string& name) const;

  /// Scalar attributes of the file's root group (same value on every rank). Collective.
  void set_attribute(const std::string& name, double value);
  void set_attribute(const std::string& name, const std::string& value);
  /// Throw Error naming the file if the attribute is missing or of another type. Collective.
  double real_attribute(const std::string& name) const;
  std::string string_attribute(const std::string& name) const;
  bool has_attribute(const std::string& name) const;

  /// Closes the file and renames it to its final name. Collective.
  void commit();

  const std::string& path() const { return m_path; }

 private:
  struct Handles;
  const Domain& m_domain;
  std::string m_path;
  Mode m_mode;
  std::unique_ptr<Handles> m_h;
};

} // namespace io
} // namespace undertow
