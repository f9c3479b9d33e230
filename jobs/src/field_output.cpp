#include "field_output.hpp"

#include "undertow/core/version.hpp"
#include "undertow/solvers/navier_stokes/diagnostics.hpp"

namespace undertow {

namespace {
const char* kAxes = "xyz";
} // namespace

FieldOutput::FieldOutput(const Domain& domain, const std::string& dir,
                         const std::string& config_hash, long continued_from)
    : m_domain(domain),
      m_series(domain, dir, "fields",
               {{"undertow_version", UNDERTOW_VERSION_STRING},
                {"config_hash", config_hash},
                {"units", "lengths m, time s, velocity m/s, vorticity 1/s, pressure p/rho "
                          "m^2/s^2 (kinematic), mask 1 inside obstacles"},
                {"layout", "global arrays, slowest axis first (z, y, x); cell datasets on "
                           "cells, u/v/w_faces on the MAC faces normal to x/y/z"}},
               continued_from),
      m_cell(domain, Location::Cell, 1, "output::cell") {} // the pressure's layout, for copy()

std::vector<std::string> FieldOutput::cell_datasets(int dim) {
  std::vector<std::string> names;
  for (int c = 0; c < dim; ++c)
    names.push_back(std::string("velocity_") + kAxes[c]);
  names.push_back("pressure");
  if (dim == 2)
    names.push_back("vorticity");
  else
    for (int a = 0; a < 3; ++a)
      names.push_back(std::string("vorticity_") + kAxes[a]);
  names.push_back("mask");
  return names;
}

void FieldOutput::write(navier_stokes::NavierStokes& ns, long step, double time) {
  if (!m_series.begin(step, time))
    return; // already written (e.g. a steady stop on a snapshot step)
  const int dim = m_domain.dim();
  // In the order of cell_datasets(): velocity components, pressure, vorticity, mask.
  const std::vector<std::string> names = cell_datasets(dim);
  std::size_t next = 0;
  for (int c = 0; c < dim; ++c) {
    cell_velocity(ns, c, m_cell);
    m_series.cell(names[next++], m_cell);
  }
  copy(ns.pressure(), m_cell);
  m_series.cell(names[next++], m_cell);
  for (int a = dim == 2 ? 2 : 0; a < 3; ++a) {
    cell_vorticity(ns, a, m_cell);
    m_series.cell(names[next++], m_cell);
  }
  cell_mask(ns, m_cell);
  m_series.cell(names[next++], m_cell);
  const char* raw[3] = {"u_faces", "v_faces", "w_faces"};
  for (int c = 0; c < dim; ++c)
    m_series.extra(raw[c], ns.velocity(c));
  m_series.commit();
}

} // namespace undertow
