#include "undertow/adjoint/schedules.hpp"

#include "undertow/core/error.hpp"
#include "undertow/core/log.hpp"

#include <algorithm>
#include <cmath>

namespace undertow {
namespace adjoint {

void StoreAllSchedule::end_at(long steps) {
  if (steps != m_steps)
    throw Error(format("store-all was planned for %.0f steps but the run ended after %.0f",
                       double(m_steps), double(steps)));
}

Action StoreAllSchedule::next() {
  Action a;
  if (m_position < m_steps) {
    a.kind = Action::Record;
    a.step = m_position;
  } else if (m_position < 2 * m_steps) {
    a.kind = Action::Reverse;
    a.step = 2 * m_steps - 1 - m_position;
  }
  ++m_position;
  return a;
}

namespace {

/// C(n, k) in floating point (large values only compared, never used as counts).
double binomial(long n, long k) {
  double c = 1;
  for (long i = 1; i <= k; ++i)
    c = c * double(n - k + i) / double(i);
  return c;
}

} // namespace

long RevolveSchedule::minimum_advances(long steps, int slots) {
  if (steps <= 1)
    return 0;
  long r = 0;
  while (binomial(slots + r, slots) < double(steps))
    ++r;
  return r * steps - static_cast<long>(std::llround(binomial(slots + r, slots + 1)));
}

RevolveSchedule::RevolveSchedule(long steps, int slots) : m_steps(steps), m_slots(slots) {
  if (slots < 1)
    throw ConfigError("checkpoint.ram_slots must be at least 1 (the slot of x_0)");
  if (steps > 0) {
    m_actions.push_back({Action::Save, 0, 0});
    std::vector<int> free;
    for (int q = slots - 1; q >= 1; --q)
      free.push_back(q);
    m_advances = plan(0, steps, 0, free, m_actions);
  }
  m_actions.push_back({Action::Done, 0, 0});
}

void RevolveSchedule::end_at(long steps) {
  if (steps != m_steps)
    throw Error(format("revolve was planned for %.0f steps but the run ended after %.0f; use "
                       "checkpoint.schedule = online for runs of unknown length",
                       double(m_steps), double(steps)));
}

long RevolveSchedule::split(long length, int free) {
  // With S = free + 1 slots for the range (its first state's included) and r the smallest
  // integer with C(S + r, S) >= length, m = min(C(S + r - 1, S), length - C(S + r - 2, S - 1))
  // (kept in [1, length - 1]) is an optimal first checkpoint: the largest of the optimal ones,
  // as found by exhaustive search against t(l, s) for l < 600, s <= 16. schedules_unit checks
  // that the schedule reaches t(l, s) for every l <= 200 and s <= 15.
  const long S = free + 1;
  long r = 0;
  while (binomial(S + r, S) < double(length))
    ++r;
  const long a = r >= 1 ? std::lround(binomial(S + r - 1, S)) : 0;
  const long b = r >= 1 ? std::lround(binomial(S - 1 + r - 1, S - 1)) : 0;
  return std::max(1L, std::min({a, length - b, length - 1}));
}

long RevolveSchedule::plan(long first, long length, int slot, std::vector<int>& free,
                           std::vector<Action>& out) {
  // x_first is the current state and sits in `slot`.
  if (length == 1) {
    out.push_back({Action::Record, first, 0});
    out.push_back({Action::Reverse, first, 0});
    return 0;
  }
  long advances = 0;
  if (free.empty()) {
    // No slot left: reverse from the last step down, advancing from x_first each time.
    for (long k = first + length - 1; k >= first; --k) {
      if (k > first) {
        out.push_back({Action::Advance, k, 0});
        advances += k - first;
      }
      out.push_back({Action::Record, k, 0});
      out.push_back({Action::Reverse, k, 0});
      if (k > first)
        out.push_back({Action::Restore, first, slot});
    }
    return advances;
  }
  const long m = split(length, static_cast<int>(free.size()));
  const int next = free.back();
  free.pop_back();
  out.push_back({Action::Advance, first + m, 0});
  advances += m;
  out.push_back({Action::Save, first + m, next});
  advances += plan(first + m, length - m, next, free, out);
  free.push_back(next);
  out.push_back({Action::Restore, first, slot});
  return advances + plan(first, m, slot, free, out);
}

Action RevolveSchedule::next() {
  return m_position < m_actions.size() ? m_actions[m_position++] : Action{};
}

OnlineRevolveSchedule::OnlineRevolveSchedule(int slots) : m_slots(slots) {
  if (slots < 1)
    throw ConfigError("checkpoint slots must be at least 1 (the slot of x_0)");
  for (int q = slots - 1; q >= 1; --q)
    m_free.push_back(q);
  m_kept.push_back({0, 0});
  m_pending.push_back({Action::Save, 0, 0});
}

Action OnlineRevolveSchedule::next() {
  if (m_position < m_pending.size())
    return m_pending[m_position++];
  if (m_ended)
    return Action{};
  // Forward sweep: one step at a time, until end_at.
  m_pending.clear();
  m_position = 0;
  ++m_current;
  ++m_advances;
  m_pending.push_back({Action::Advance, m_current, 0});
  if (m_current % m_spacing == 0) {
    if (static_cast<int>(m_kept.size()) == forward_slots(m_slots)) {
      // Thin out: keep the checkpoints at multiples of 2 d.
      std::vector<std::pair<long, int>> kept;
      for (const auto& c : m_kept) {
        if (c.first % (2 * m_spacing) == 0)
          kept.push_back(c);
        else
          m_free.push_back(c.second);
      }
      m_kept = kept;
      m_spacing *= 2;
    }
    if (m_current % m_spacing == 0) {
      const int slot = m_free.back();
      m_free.pop_back();
      m_kept.push_back({m_current, slot});
      m_pending.push_back({Action::Save, m_current, slot});
    }
  }
  return m_pending[m_position++];
}

void OnlineRevolveSchedule::end_at(long steps) {
  if (m_ended)
    throw Error("OnlineRevolveSchedule::end_at called twice");
  if (steps != m_current)
    throw Error(format("online checkpointing told that the run ended after %.0f steps while it "
                       "is at step %.0f",
                       double(steps), double(m_current)));
  m_ended = true;
  // x_steps itself is never needed.
  if (!m_kept.empty() && m_kept.back().first == steps && steps > 0) {
    m_free.push_back(m_kept.back().second);
    m_kept.pop_back();
  }
  m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<long>(m_position));
  m_pending.erase(std::remove_if(m_pending.begin(), m_pending.end(),
                                 [&](const Action& a) { return a.kind == Action::Save; }),
                  m_pending.end()); // a save of x_steps, not handed out yet
  m_position = 0;
  long end = steps;
  while (!m_kept.empty() && steps > 0) {
    const auto start = m_kept.back();
    m_kept.pop_back();
    m_pending.push_back({Action::Restore, start.first, start.second});
    m_advances +=
        RevolveSchedule::plan(start.first, end - start.first, start.second, m_free, m_pending);
    m_free.push_back(start.second);
    end = start.first;
  }
  m_pending.push_back({Action::Done, 0, 0});
}

std::vector<bool> place_in_memory(const std::vector<Action>& actions, int slots, int ram_slots) {
  std::vector<long> restores(static_cast<std::size_t>(slots), 0),
      saves(static_cast<std::size_t>(slots), 0);
  for (const Action& a : actions) {
    if (a.kind == Action::Restore)
      ++restores.at(static_cast<std::size_t>(a.slot));
    else if (a.kind == Action::Save)
      ++saves.at(static_cast<std::size_t>(a.slot));
  }
  std::vector<int> order(static_cast<std::size_t>(slots));
  for (int q = 0; q < slots; ++q)
    order[static_cast<std::size_t>(q)] = q;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
    if (restores[ua] != restores[ub])
      return restores[ua] > restores[ub];
    return saves[ua] > saves[ub];
  });
  std::vector<bool> in_memory(static_cast<std::size_t>(slots), false);
  for (int i = 0; i < std::min(ram_slots, slots); ++i)
    in_memory[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = true;
  return in_memory;
}

} // namespace adjoint
} // namespace undertow
