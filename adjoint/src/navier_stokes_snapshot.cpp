#include "undertow/adjoint/navier_stokes_snapshot.hpp"

namespace undertow {
namespace adjoint {

namespace {
const char* kStages[3] = {"u0", "stage1", "stage2"};
}

Snapshot to_snapshot(const navier_stokes::StepTape& tape, long step, int dim) {
  Snapshot s;
  s.step = step;
  const std::array<Field, 3>* parts[3] = {&tape.u0, &tape.stage1, &tape.stage2};
  for (int p = 0; p < 3; ++p)
    for (int c = 0; c < dim; ++c)
      s.fields.emplace_back(std::string(kStages[p]) + "_" + "uvw"[c], (*parts[p])[c]);
  for (int k = 0; k < 3; ++k) // RK3-CN's substep pressures
    if (tape.pressure[k].view().data())
      s.fields.emplace_back("p" + std::to_string(k), tape.pressure[k]);
  s.numbers["time"] = tape.time;
  s.numbers["dt"] = tape.dt;
  for (std::size_t k = 0; k < tape.forces.size(); ++k)
    for (int c = 0; c < 3; ++c)
      s.numbers["force_" + std::to_string(k) + "_" + "xyz"[c]] = tape.forces[k][c];
  return s;
}

void from_snapshot(const Snapshot& s, navier_stokes::StepTape& tape, int dim) {
  std::array<Field, 3>* parts[3] = {&tape.u0, &tape.stage1, &tape.stage2};
  std::size_t i = 0;
  for (int p = 0; p < 3; ++p)
    for (int c = 0; c < dim; ++c, ++i)
      (*parts[p])[c] = s.fields.at(i).second; // shares the store's copy
  for (int k = 0; k < 3 && i < s.fields.size(); ++k, ++i)
    tape.pressure[k] = s.fields.at(i).second;
  tape.time = s.numbers.at("time");
  tape.dt = s.numbers.at("dt");
  tape.forces.clear();
  for (std::size_t k = 0; s.numbers.count("force_" + std::to_string(k) + "_x"); ++k) {
    std::array<double, 3> f{};
    for (int c = 0; c < 3; ++c)
      f[c] = s.numbers.at("force_" + std::to_string(k) + "_" + "xyz"[c]);
    tape.forces.push_back(f);
  }
}

double state_bytes(navier_stokes::NavierStokes& ns) {
  double b = 0;
  for (const auto& named : ns.state_fields())
    b += 8.0 * double(named.second->view().span());
  return b;
}

double tape_bytes(const navier_stokes::NavierStokes& ns) {
  double b = 0;
  for (int c = 0; c < ns.domain().dim(); ++c)
    b += 3.0 * 8.0 * double(ns.velocity(c).view().span());
  if (ns.params().scheme == navier_stokes::TimeScheme::Rk3CrankNicolson)
    for (int k = 0; k < 3; ++k) // the substeps' own pressures (imex_pressure_entry)
      if (navier_stokes::imex_pressure_entry(ns.params().imex_projection, k) == k)
        b += 8.0 * double(ns.pressure().view().span());
  return b;
}

} // namespace adjoint
} // namespace undertow
