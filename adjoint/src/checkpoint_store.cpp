#include "undertow/adjoint/checkpoint_store.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace undertow {
namespace adjoint {

void MemoryCheckpointStore::save(int slot, const Snapshot& s) {
  if (m_capacity >= 0 && !m_slots.count(slot) && static_cast<int>(m_slots.size()) >= m_capacity)
    throw Error("checkpoint store full: " + std::to_string(m_capacity) + " slots in use");
  Snapshot& kept = m_slots[slot];
  const bool reuse = kept.fields.size() == s.fields.size();
  kept.step = s.step;
  kept.numbers = s.numbers;
  if (!reuse)
    kept.fields.clear();
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const Field& src = s.fields[i].second;
    if (!reuse)
      kept.fields.emplace_back(s.fields[i].first, Field(src.layout(), src.name() + "_checkpoint"));
    kept.fields[i].first = s.fields[i].first;
    copy(src, kept.fields[i].second);
  }
}

void MemoryCheckpointStore::adopt(int slot, Snapshot&& s) {
  if (m_capacity >= 0 && !m_slots.count(slot) && static_cast<int>(m_slots.size()) >= m_capacity)
    throw Error("checkpoint store full: " + std::to_string(m_capacity) + " slots in use");
  m_slots[slot] = std::move(s);
}

const Snapshot& MemoryCheckpointStore::load(int slot) const {
  const auto it = m_slots.find(slot);
  if (it == m_slots.end())
    throw Error("checkpoint slot " + std::to_string(slot) + " is empty");
  return it->second;
}

Snapshot MemoryCheckpointStore::take(int slot) {
  const auto it = m_slots.find(slot);
  if (it == m_slots.end())
    throw Error("checkpoint slot " + std::to_string(slot) + " is empty");
  Snapshot out = std::move(it->second);
  m_slots.erase(it);
  return out;
}

void MemoryCheckpointStore::erase(int slot) {
  m_slots.erase(slot);
}

double MemoryCheckpointStore::bytes() const {
  double b = 0;
  for (const auto& kv : m_slots)
    for (const auto& f : kv.second.fields)
      b += 8.0 * double(f.second.view().size());
  return b;
}

Hdf5CheckpointStore::Hdf5CheckpointStore(const Communicator& comm, const std::string& path,
                                         bool resume)
    : m_comm(comm), m_path(path),
      m_file(std::make_unique<io::SlotFile>(
          comm, path, resume ? io::SlotFile::Mode::Open : io::SlotFile::Mode::Create)) {}

namespace {

/// Doubles a snapshot takes on this rank: its fields' whole local arrays, then its numbers.
std::size_t local_values(const Snapshot& s) {
  std::size_t n = s.numbers.size();
  for (const auto& f : s.fields)
    n += f.second.view().span();
  return n;
}

} // namespace

void Hdf5CheckpointStore::reserve(int slot, const Snapshot& prototype) {
  Prototype p;
  for (const auto& f : prototype.fields) {
    p.fields.emplace_back(f.first, f.second.layout());
    p.spans.push_back(f.second.view().span());
  }
  p.numbers = prototype.numbers;
  p.values = local_values(prototype);
  m_file->reserve(slot, p.values);
  m_prototypes[slot] = p;
}

const Hdf5CheckpointStore::Prototype& Hdf5CheckpointStore::prototype(int slot,
                                                                     const Snapshot* s) const {
  const auto it = m_prototypes.find(slot);
  if (it == m_prototypes.end())
    throw Error("checkpoint slot " + std::to_string(slot) + " was not reserved in " + m_path);
  const Prototype& p = it->second;
  if (!s)
    return p;
  bool same = p.fields.size() == s->fields.size() && p.numbers.size() == s->numbers.size();
  for (std::size_t i = 0; same && i < s->fields.size(); ++i)
    same = s->fields[i].second.view().span() == p.spans[i];
  for (auto a = p.numbers.begin(), b = s->numbers.begin(); same && a != p.numbers.end(); ++a, ++b)
    same = a->first == b->first;
  if (!same)
    throw Error("a snapshot saved to checkpoint slot " + std::to_string(slot) +
                " is not shaped like the slot's prototype");
  return p;
}

namespace {

/// Whether the host reaches the fields' memory (Serial, OpenMP; not CUDA or HIP devices).
constexpr bool kHostFields = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;

/// A field's whole local array seen in host memory at `data`.
using HostArray =
    Kokkos::View<double***, FieldLayoutTag, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
HostArray host_array(double* data, const FieldView& v) {
  return HostArray(data, v.extent(0), v.extent(1), v.extent(2));
}

} // namespace

void Hdf5CheckpointStore::lay_out_pieces(const std::vector<std::pair<std::string, Field>>& fields,
                                         bool stage) const {
  m_pieces.clear();
  std::size_t staged = 0;
  if (!kHostFields) {
    for (const auto& f : fields)
      staged += f.second.view().span();
    m_staging.resize(staged);
    staged = 0;
  }
  for (const auto& f : fields) {
    const FieldView& v = f.second.view();
    double* data = v.data();
    if (!kHostFields) {
      data = m_staging.data() + staged;
      staged += v.span();
      if (stage)
        Kokkos::deep_copy(host_array(data, v), v);
    }
    m_pieces.push_back({data, v.span()});
  }
  m_pieces.push_back({m_numbers.data(), m_numbers.size()});
}

void Hdf5CheckpointStore::save(int slot, const Snapshot& s) {
  prototype(slot, &s);
  // Numbers are per rank too (partial sums of a gradient differ between ranks).
  m_numbers.clear();
  for (const auto& kv : s.numbers)
    m_numbers.push_back(kv.second);
  lay_out_pieces(s.fields, true);
  m_file->write(slot, s.step, m_pieces);
  m_used[slot] = s.step;
}

const Snapshot& Hdf5CheckpointStore::load(int slot) const {
  const Prototype& p = prototype(slot, nullptr);
  Snapshot& out = m_buffers[p.values];
  if (out.fields.size() != p.fields.size())
    for (const auto& f : p.fields)
      out.fields.emplace_back(f.first, Field(f.second, "checkpoint_load_" + f.first, false));
  for (std::size_t i = 0; i < p.fields.size(); ++i)
    out.fields[i].first = p.fields[i].first;
  m_numbers.resize(p.numbers.size());
  lay_out_pieces(out.fields, false);
  out.step = m_file->read(slot, m_pieces);
  if (!kHostFields)
    for (std::size_t i = 0; i < out.fields.size(); ++i) {
      const FieldView& v = out.fields[i].second.view();
      Kokkos::deep_copy(v, host_array(m_pieces[i].data, v));
    }
  out.numbers = p.numbers;
  std::size_t i = 0;
  for (auto& kv : out.numbers)
    kv.second = m_numbers.at(i++);
  return out;
}

double Hdf5CheckpointStore::bytes() const {
  double b = 8.0 * double(m_staging.capacity());
  for (const auto& kv : m_buffers)
    b += 8.0 * double(kv.first);
  return b;
}

long Hdf5CheckpointStore::stored_step(int slot) {
  const long step = m_file->step(slot);
  if (step >= 0)
    m_used[slot] = step;
  return step;
}

void Hdf5CheckpointStore::remove_file() {
  m_file.reset();
  if (m_comm.is_root())
    std::remove(m_path.c_str());
  m_comm.barrier();
}

} // namespace adjoint
} // namespace undertow
