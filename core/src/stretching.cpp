#include "undertow/core/stretching.hpp"

#include "undertow/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace undertow {

namespace {

std::string number(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

/// Widths of the cells that cover a gap of `gap` next to a box of cells `h`, nearest first:
/// h g^k capped at `cap`, the fewest that reach the gap, scaled down together to end on it.
std::vector<double> growing_cells(double gap, double h, const AxisClustering& c,
                                  const std::string& key, const char* side) {
  std::vector<double> w;
  if (gap <= 0.0)
    return w;
  double sum = 0.0, next = h;
  while (sum < gap * (1.0 - 1e-12)) {
    next *= c.growth;
    if (c.max_spacing > 0.0)
      next = std::min(next, std::max(c.max_spacing, h));
    w.push_back(next);
    sum += next;
  }
  const double scale = gap / sum;
  for (double& x : w)
    x *= scale;
  // The scaling keeps the ratios inside the gap; at the box edge the ratio is w[0] / h.
  const double edge = w.front() / h;
  if (edge * c.growth < 1.0 - 1e-12)
    throw ConfigError(key + ": the gap of " + number(gap) + " between the box and the " + side +
                      " end of the axis is too narrow for cells of " + number(h) +
                      " growing by at most " + number(c.growth) + " (its cells would shrink by " +
                      number(1.0 / edge) +
                      "); extend the box to that end or move its edge at least two cells away.");
  return w;
}

} // namespace

std::vector<double> clustered_faces(double lo, double hi, const AxisClustering& c,
                                    const std::string& key) {
  if (!(hi > lo))
    throw ConfigError(key + ": the axis [" + number(lo) + ", " + number(hi) + "] is empty.");
  if (!(c.box_lo >= lo && c.box_hi <= hi && c.box_hi > c.box_lo))
    throw ConfigError(key + ": the box [" + number(c.box_lo) + ", " + number(c.box_hi) +
                      "] must be a non-empty interval inside the domain's [" + number(lo) + ", " +
                      number(hi) + "]; give domain.box as the lower corner, then the upper one.");
  if (!(c.spacing > 0.0) || c.spacing > c.box_hi - c.box_lo)
    throw ConfigError(key + ": domain.box_spacing = " + number(c.spacing) +
                      " must be positive and at most the box's width " +
                      number(c.box_hi - c.box_lo) + ".");
  if (!(c.growth >= 1.0))
    throw ConfigError(key + ": domain.growth = " + number(c.growth) + " must be at least 1.");
  const long n = std::max(1L, std::lround((c.box_hi - c.box_lo) / c.spacing));
  const double h = (c.box_hi - c.box_lo) / double(n);
  const std::vector<double> below = growing_cells(c.box_lo - lo, h, c, key, "lower");
  const std::vector<double> above = growing_cells(hi - c.box_hi, h, c, key, "upper");

  std::vector<double> faces;
  faces.reserve(below.size() + static_cast<std::size_t>(n) + above.size() + 1);
  faces.push_back(lo);
  for (auto w = below.rbegin(); w != below.rend(); ++w)
    faces.push_back(faces.back() + *w);
  faces.back() = c.box_lo; // exact, whatever the sum's round-off
  for (long i = 1; i <= n; ++i)
    faces.push_back(i == n ? c.box_hi : c.box_lo + double(i) * h);
  for (double w : above)
    faces.push_back(faces.back() + w);
  faces.back() = hi;
  return faces;
}

double largest_growth(const std::vector<double>& faces) {
  double worst = 1.0;
  for (std::size_t i = 2; i < faces.size(); ++i) {
    const double a = faces[i - 1] - faces[i - 2], b = faces[i] - faces[i - 1];
    worst = std::max(worst, std::max(a / b, b / a));
  }
  return worst;
}

} // namespace undertow
