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

RevolveActions::RevolveActions(long first, long length, int slot, std::vector<int> free)
    : m_free(std::move(free)) {
  if (length > 0)
    m_frames.push_back({first, length, slot});
}

void RevolveActions::queue(Action::Kind kind, long step, int slot) {
  m_queue[m_queued++] = {kind, step, slot};
}

bool RevolveActions::next(Action& action) {
  if (m_taken == m_queued) {
    m_taken = m_queued = 0;
    advance();
    if (m_queued == 0)
      return false;
  }
  action = m_queue[m_taken++];
  return true;
}

void RevolveActions::advance() {
  // The recursion of binomial reversal, one frame per range: x_first is the current state and
  // sits in `slot`.
  while (m_queued == 0 && !m_frames.empty()) {
    Frame& f = m_frames.back();
    if (f.stage == Frame::Start) {
      if (f.length == 1) {
        queue(Action::Record, f.first, 0);
        queue(Action::Reverse, f.first, 0);
        m_frames.pop_back();
      } else if (m_free.empty()) {
        // No slot left: reverse from the last step down, advancing from x_first each time.
        f.stage = Frame::Countdown;
        f.k = f.first + f.length - 1;
      } else {
        f.m = RevolveSchedule::split(f.length, static_cast<int>(m_free.size()));
        f.taken = m_free.back();
        m_free.pop_back();
        f.stage = Frame::Left;
        queue(Action::Advance, f.first + f.m, 0);
        m_advances += f.m;
        queue(Action::Save, f.first + f.m, f.taken);
        const Frame right{f.first + f.m, f.length - f.m, f.taken};
        m_frames.push_back(right); // f is not used past this point
      }
    } else if (f.stage == Frame::Countdown) {
      const long k = f.k;
      if (k > f.first) {
        queue(Action::Advance, k, 0);
        m_advances += k - f.first;
      }
      queue(Action::Record, k, 0);
      queue(Action::Reverse, k, 0);
      if (k > f.first)
        queue(Action::Restore, f.first, f.slot);
      if (--f.k < f.first)
        m_frames.pop_back();
    } else { // Left: the right part is reversed; its slot comes free
      m_free.push_back(f.taken);
      queue(Action::Restore, f.first, f.slot);
      f = {f.first, f.m, f.slot};
    }
  }
}

std::unique_ptr<RevolveActions> RevolveSchedule::restart() const {
  std::vector<int> free;
  for (int q = m_slots - 1; q >= 1; --q)
    free.push_back(q);
  return std::make_unique<RevolveActions>(0, m_steps, 0, free);
}

RevolveSchedule::RevolveSchedule(long steps, int slots) : m_steps(steps), m_slots(slots) {
  if (slots < 1)
    throw ConfigError("checkpoint.ram_slots must be at least 1 (the slot of x_0)");
  // One pass to count: the advances, and the saves and restores of each slot.
  m_saves.assign(static_cast<std::size_t>(slots), 0);
  m_restores.assign(static_cast<std::size_t>(slots), 0);
  if (steps > 0)
    ++m_saves[0];
  const auto counting = restart();
  for (Action a; counting->next(a);) {
    if (a.kind == Action::Save)
      ++m_saves.at(static_cast<std::size_t>(a.slot));
    else if (a.kind == Action::Restore)
      ++m_restores.at(static_cast<std::size_t>(a.slot));
  }
  m_advances = counting->advances();
  m_actions = restart();
  m_saved_first = steps == 0;
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

Action RevolveSchedule::next() {
  if (!m_saved_first) {
    m_saved_first = true;
    return {Action::Save, 0, 0};
  }
  Action a;
  return m_actions->next(a) ? a : Action{};
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
  if (m_ended) {
    // The reversal: the intervals between the forward checkpoints, from the last.
    Action a;
    if (m_interval && m_interval->next(a))
      return a;
    if (m_interval) {
      m_free = m_interval->free();
      m_free.push_back(m_interval_slot);
      m_interval.reset();
    }
    if (m_kept.empty())
      return Action{};
    const auto start = m_kept.back();
    m_kept.pop_back();
    m_interval =
        std::make_unique<RevolveActions>(start.first, m_end - start.first, start.second, m_free);
    m_interval_slot = start.second;
    m_end = start.first;
    return {Action::Restore, start.first, start.second};
  }
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
  if (steps == 0)
    m_kept.clear();
  // The advances of the whole sweep, counted once; the actions come as they are asked for.
  std::vector<int> free = m_free;
  long end = steps;
  for (auto start = m_kept.rbegin(); start != m_kept.rend(); ++start) {
    RevolveActions reversal(start->first, end - start->first, start->second, free);
    for (Action a; reversal.next(a);) {
    }
    m_advances += reversal.advances();
    free = reversal.free();
    free.push_back(start->second);
    end = start->first;
  }
  m_end = steps;
}

std::vector<bool> place_in_memory(const std::vector<long>& saves, const std::vector<long>& restores,
                                  int ram_slots) {
  const int slots = static_cast<int>(saves.size());
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
