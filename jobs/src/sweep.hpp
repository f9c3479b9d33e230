#pragma once
/// \file
/// Parameter sweeps (docs/clusters.md): `undertow submit CASE --sweep key=v1,v2,...` runs one job
/// array task per point of the product of the swept values, each in its own folder under the
/// output directory, and `undertow collect DIR` gathers the points' reports into one CSV.

#include <cstddef>
#include <string>
#include <vector>

namespace undertow {
namespace jobs {

/// The points of a sweep: every combination of the swept values, the first key varying
/// slowest.
struct Sweep {
  std::vector<std::string> keys;                ///< section.key, in the order given
  std::vector<std::vector<std::string>> points; ///< each point's values, in keys' order
  bool empty() const { return keys.empty(); }
  /// Point i's overrides: key=value for every swept key.
  std::vector<std::string> overrides(std::size_t i) const;
};

/// The sweep of --sweep options ("section.key=v1,v2,..."; a key may be swept once). Throws
/// ConfigError naming the option for a missing '=', an empty value or a repeated key. Not
/// collective.
Sweep parse_sweep(const std::vector<std::string>& options);

/// The folder of point i under the sweep's output directory: point_000, point_001, ...
std::string point_folder(std::size_t i);

/// The text of points.csv: a comment line naming the command, then point,key1,key2,... and a
/// row per point (CSV, quoted where needed).
std::string points_csv(const Sweep& sweep, const std::string& command);

/// The file `collect` writes into a sweep's directory.
constexpr const char* kCollectedFile = "sweep.csv";

} // namespace jobs
} // namespace undertow
