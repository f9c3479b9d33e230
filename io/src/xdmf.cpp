#include "undertow/io/xdmf.hpp"

#include <iomanip>
#include <sstream>

namespace undertow {
namespace io {

namespace {

/// "n_z n_y n_x" (3D) or "n_y n_x" (2D) of `values`, slowest axis first.
template <class T>
std::string slowest_first(const std::array<T, 3>& values, int dim, T add = T(0)) {
  std::ostringstream s;
  s << std::setprecision(17);
  for (int a = dim - 1; a >= 0; --a)
    s << values[a] + add << (a ? " " : "");
  return s.str();
}

/// The Topology and Geometry elements of `grid` (`points`: its vertex counts, slowest first).
std::string xdmf_geometry(const XdmfGrid& grid, const std::string& points) {
  const int dim = grid.dim;
  bool stretched = false;
  for (int a = 0; a < dim; ++a)
    stretched = stretched || !grid.faces[std::size_t(a)].empty();
  std::ostringstream x;
  x << std::setprecision(17);
  if (!stretched) {
    x << "        <Topology TopologyType=\"" << dim << "DCoRectMesh\" Dimensions=\"" << points
      << "\"/>\n"
      << "        <Geometry GeometryType=\"" << (dim == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY")
      << "\">\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << dim << "\">"
      << slowest_first(grid.origin, dim) << "</DataItem>\n"
      << "          <DataItem Format=\"XML\" Dimensions=\"" << dim << "\">"
      << slowest_first(grid.spacing, dim) << "</DataItem>\n"
      << "        </Geometry>\n";
    return x.str();
  }
  // Rectilinear: the vertex coordinates of x, then y (then z), uniform axes listed too.
  x << "        <Topology TopologyType=\"" << dim << "DRectMesh\" Dimensions=\"" << points
    << "\"/>\n"
    << "        <Geometry GeometryType=\"" << (dim == 3 ? "VXVYVZ" : "VXVY") << "\">\n";
  for (int a = 0; a < dim; ++a) {
    const std::vector<double>& f = grid.faces[std::size_t(a)];
    const long n = grid.cells[a] + 1;
    x << "          <DataItem Format=\"XML\" NumberType=\"Float\" Precision=\"8\" Dimensions=\""
      << n << "\">";
    for (long i = 0; i < n; ++i)
      x << (i ? " " : "")
        << (f.empty() ? grid.origin[a] + double(i) * grid.spacing[a] : f[std::size_t(i)]);
    x << "</DataItem>\n";
  }
  x << "        </Geometry>\n";
  return x.str();
}

} // namespace

std::string xdmf_time_series(const XdmfGrid& grid, const std::vector<std::string>& cell_datasets,
                             const std::vector<XdmfSnapshot>& snapshots,
                             const std::vector<std::string>& node_datasets) {
  const int dim = grid.dim;
  const std::string cells = slowest_first(grid.cells, dim);
  const std::string points = slowest_first(grid.cells, dim, 1L);
  const std::string geometry = xdmf_geometry(grid, points);
  std::ostringstream x;
  x << std::setprecision(17);
  x << "<?xml version=\"1.0\" ?>\n"
    << "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"3.0\">\n  <Domain>\n"
    << "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfSnapshot& snap : snapshots) {
    x << "      <Grid Name=\"mesh\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << snap.time << "\"/>\n"
      << geometry;
    for (const auto* list : {&cell_datasets, &node_datasets})
      for (const std::string& name : *list) {
        const bool cell = list == &cell_datasets;
        x << "        <Attribute Name=\"" << name << "\" AttributeType=\"Scalar\" Center=\""
          << (cell ? "Cell" : "Node") << "\">\n"
          << "          <DataItem Format=\"HDF\" NumberType=\"Float\" Precision=\"8\" "
          << "Dimensions=\"" << (cell ? cells : points) << "\">" << snap.file << ":/" << name
          << "</DataItem>\n"
          << "        </Attribute>\n";
      }
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";
  return x.str();
}

XdmfGrid xdmf_grid(const Domain& domain) {
  XdmfGrid grid;
  grid.dim = domain.dim();
  for (int a = 0; a < 3; ++a) {
    grid.cells[a] = domain.global_cells(a);
    grid.origin[a] = domain.spec().origin[a];
    grid.spacing[a] = domain.spacing(a);
    grid.faces[a] = domain.spec().faces[a];
  }
  return grid;
}

} // namespace io
} // namespace undertow
