#include "field_output.hpp"

#include "undertow/core/version.hpp"
#include "undertow/io/field_file.hpp"
#include "undertow/io/files.hpp"
#include "undertow/io/xdmf.hpp"

#include <cstdio>

namespace undertow {

namespace {
const char* kAxes = "xyz";
} // namespace

FieldOutput::FieldOutput(const Domain& domain, const std::string& dir,
                         const std::string& config_hash)
    : m_domain(domain), m_dir(dir), m_hash(config_hash),
      m_cell(domain, Location::Cell, 1, "output::cell") { // the pressure's layout, for copy()
  run_on_root(domain.comm(), [&] { io::make_directories(dir + "/fields"); });
}

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

void FieldOutput::write(navier_stokes::NavierStokes& ns, long step) {
  if (step == m_last_step)
    return; // already written (e.g. a steady stop on a snapshot step)
  m_last_step = step;
  const int dim = m_domain.dim();
  char name[64];
  std::snprintf(name, sizeof name, "fields/fields_%09ld.h5", step);
  io::FieldFile file(m_domain, m_dir + "/" + name, io::FieldFile::Mode::Create);
  // In the order of cell_datasets(): velocity components, pressure, vorticity, mask.
  const std::vector<std::string> names = cell_datasets(dim);
  std::size_t next = 0;
  for (int c = 0; c < dim; ++c) {
    ns.cell_velocity(c, m_cell);
    file.write(names[next++], m_cell);
  }
  copy(ns.pressure(), m_cell);
  file.write(names[next++], m_cell);
  for (int a = dim == 2 ? 2 : 0; a < 3; ++a) {
    ns.cell_vorticity(a, m_cell);
    file.write(names[next++], m_cell);
  }
  ns.cell_mask(m_cell);
  file.write(names[next++], m_cell);
  const char* raw[3] = {"u_faces", "v_faces", "w_faces"};
  for (int c = 0; c < dim; ++c)
    file.write(raw[c], ns.velocity(c));
  file.set_attribute("undertow_version", UNDERTOW_VERSION_STRING);
  file.set_attribute("config_hash", m_hash);
  file.set_attribute("step", double(step));
  file.set_attribute("time", ns.time());
  file.set_attribute("units", "lengths m, time s, velocity m/s, vorticity 1/s, pressure p/rho "
                              "m^2/s^2 (kinematic), mask 1 inside obstacles");
  file.set_attribute("layout", "global arrays, slowest axis first (z, y, x); cell datasets on "
                               "cells, u/v/w_faces on the MAC faces normal to x/y/z");
  file.commit();
  m_snapshots.push_back({ns.time(), name});

  std::vector<io::XdmfSnapshot> series;
  for (const auto& s : m_snapshots)
    series.push_back({s.first, s.second});
  const std::string xdmf =
      io::xdmf_time_series(io::xdmf_grid(m_domain), cell_datasets(dim), series);
  run_on_root(m_domain.comm(), [&] { io::write_file_atomic(m_dir + "/fields.xmf", xdmf); });
}

} // namespace undertow
