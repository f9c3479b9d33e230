// Checkpointed gradients: every schedule (revolve, online, multistage) and store (memory, HDF5)
// gives bitwise the store-all gradient over 200 steps; a run stopped in its forward or reverse
// sweep resumes from its HDF5 file to bitwise the same gradient, also when it is stopped by
// SIGTERM and resumed three times in a row; a corrupted slot is detected; the HDF5 store's
// slots round-trip bitwise without a buffer of the whole snapshot.
// Run at 1 and 2 ranks.

#include "gradient_cases.hpp"
#include "undertow/core/error.hpp"
#include "undertow/core/reductions.hpp"
#include "undertow/io/slot_file.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <memory>
#include <string>

namespace {

using namespace undertow;
using namespace undertow::adjoint;
using namespace undertow::testing;

using Kind = Checkpointing::Schedule;

constexpr long kSteps = 200;

struct Case {
  Domain domain;
  Log log;
  GradientDriver driver;
  Control m;
  std::vector<double> dts;
  Case()
      : domain(world(), channel_domain(process_grids(2, world().size()).back())), log(world()),
        driver(domain, channel_objective(kChannelDt * kSteps, true), log, 0),
        m(channel_control(domain)), dts(kSteps, kChannelDt) {}
};

std::unique_ptr<Case> g_case;
std::unique_ptr<Gradient> g_all;

/// The case and its store-all gradient are made once for all tests, and released before
/// Kokkos ends.
class CheckpointedGradient : public ::testing::Test {
 public:
  static void TearDownTestSuite() {
    g_all.reset();
    g_case.reset();
  }
};

Case& the_case() {
  if (!g_case)
    g_case = std::make_unique<Case>();
  return *g_case;
}

const Gradient& store_all() {
  if (!g_all)
    g_all = std::make_unique<Gradient>(the_case().driver.gradient(the_case().m, the_case().dts));
  return *g_all;
}

std::string file_name(const std::string& what) {
  return "checkpoints_" + what + "_np" + std::to_string(world().size()) + ".h5";
}

bool exists(const std::string& path) {
  return std::ifstream(path).good();
}

/// Every derivative, the initial-field and the mask sensitivities bitwise equal.
void expect_bitwise(const Gradient& g, const Gradient& ref, const std::string& what,
                    const Control& m) {
  EXPECT_EQ(g.objective, ref.objective) << what;
  for (const auto& p : scalar_parameters(m, 2))
    EXPECT_EQ(derivative_of(g, p), derivative_of(ref, p)) << p.name << ", " << what;
  double differ = 0;
  const auto compare = [&](const Field& a, const Field& b) {
    Field diff(a.layout(), "diff");
    axpy(1.0, a, diff);
    axpy(-1.0, b, diff);
    differ = std::max(differ, global_max_abs(world(), diff));
  };
  for (int c = 0; c < 2; ++c) {
    compare(g.initial[c], ref.initial[c]);
    compare(g.chi[c], ref.chi[c]);
  }
  EXPECT_EQ(differ, 0.0) << what;
}

Checkpointing plan(Kind kind, int ram, int disk, const std::string& file = "") {
  Checkpointing c;
  c.schedule = kind;
  c.ram_slots = ram;
  c.disk_slots = disk;
  c.file = file;
  return c;
}

TEST_F(CheckpointedGradient, EveryScheduleAndStoreGivesTheStoreAllGradientBitwise) {
  const Gradient& all = store_all();
  struct Variant {
    std::string name;
    Checkpointing c;
  };
  const std::vector<Variant> variants = {
      {"revolve 2 in memory", plan(Kind::Revolve, 2, 0)},
      {"revolve 6 in memory", plan(Kind::Revolve, 6, 0)},
      {"online 6 in memory", plan(Kind::Online, 6, 0)},
      {"online 2 in memory + 4 on disk", plan(Kind::Online, 2, 4, file_name("online"))},
      {"multistage 3 + 3", plan(Kind::Multistage, 3, 3, file_name("multistage"))},
      {"multistage 0 + 5 (all on disk)", plan(Kind::Multistage, 0, 5, file_name("disk"))},
  };
  for (const Variant& v : variants) {
    the_case().driver.set_checkpointing(v.c);
    const Gradient g = the_case().driver.gradient(the_case().m, the_case().dts);
    expect_bitwise(g, all, v.name, the_case().m);
    const long optimum = RevolveSchedule::minimum_advances(kSteps, v.c.slots());
    if (v.c.schedule == Kind::Online) {
      // Every step is taken once for the first time; the rest are recomputations: the
      // advances, within t(l, s) + l.
      EXPECT_LE(g.recomputed_steps, optimum + kSteps) << v.name;
    } else {
      EXPECT_EQ(g.recomputed_steps, optimum) << v.name;
    }
    if (v.c.disk_slots > 0) {
      EXPECT_GT(g.bytes_written, 0.0) << v.name;
      EXPECT_FALSE(exists(v.c.file)) << v.name << ": the file is removed after success";
    }
    if (world().is_root())
      std::printf("%-32s %5ld steps recomputed (t(l, s) = %ld), tapes %.2f MiB (store-all "
                  "%.1f MiB), checkpoints in memory %.2f MiB, disk %.1f MiB written, %.1f MiB "
                  "read\n",
                  v.name.c_str(), g.recomputed_steps, optimum, g.tape_bytes / 1048576.0,
                  all.tape_bytes / 1048576.0, g.checkpoint_bytes / 1048576.0,
                  g.bytes_written / 1048576.0, g.bytes_read / 1048576.0);
  }
  the_case().driver.set_checkpointing(Checkpointing{});
}

// RK3-CN recomputes each substep's implicit viscous solve in the reverse sweep: checkpointed
// gradients must still equal store-all bitwise, with every substep projected and with the last
// only (whose tapes hold one pressure instead of three).
TEST(CheckpointedGradientImex, RevolveAndMultistageGiveTheStoreAllGradientBitwise) {
  const long steps = 60;
  const Domain domain(world(), channel_domain(process_grids(2, world().size()).back()));
  const Log log(world());
  GradientDriver driver(domain, channel_objective(kChannelDt * steps, true), log, 0);
  Control m = channel_control(domain, TimeScheme::Rk3CrankNicolson);
  const std::vector<double> dts(steps, kChannelDt);
  for (ImexProjection projection : {ImexProjection::EverySubstep, ImexProjection::LastSubstep}) {
    const bool last = projection == ImexProjection::LastSubstep;
    m.flow.imex_projection = projection;
    driver.set_checkpointing(Checkpointing{});
    const Gradient all = driver.gradient(m, dts);
    for (const Checkpointing& c :
         {plan(Kind::Revolve, 3, 0),
          plan(Kind::Multistage, 2, 2, file_name(last ? "last" : "imex"))}) {
      driver.set_checkpointing(c);
      const Gradient g = driver.gradient(m, dts);
      const std::string what = std::string(last ? "imex (last substep projected) " : "imex ") +
                               (c.disk_slots > 0 ? "multistage 2 + 2" : "revolve 3");
      expect_bitwise(g, all, what, m);
      EXPECT_EQ(g.recomputed_steps, RevolveSchedule::minimum_advances(steps, c.slots()));
    }
  }
}

/// Runs with `c`, stopped after `actions` schedule actions, then resumes.
Gradient stop_and_resume(Checkpointing c, long actions) {
  c.resume_every = 0;
  c.stop_after_actions = actions;
  the_case().driver.set_checkpointing(c);
  EXPECT_THROW(the_case().driver.gradient(the_case().m, the_case().dts), Error);
  EXPECT_TRUE(exists(c.file)) << "the file is kept when a run fails";
  c.stop_after_actions = -1;
  c.resume = true;
  the_case().driver.set_checkpointing(c);
  const Gradient g = the_case().driver.gradient(the_case().m, the_case().dts);
  the_case().driver.set_checkpointing(Checkpointing{});
  return g;
}

TEST_F(CheckpointedGradient, StoppedRunsResumeToTheSameGradientBitwise) {
  const Gradient& all = store_all();
  // Multistage, 2 slots in memory and 3 on disk: the memory slots are rebuilt on resume. The
  // plan has about 1,000 actions: the stops fall in the first forward sweep (30), early in the
  // reverse sweep (400) and late (900).
  for (long at : {30L, 400L, 900L}) {
    const Gradient g = stop_and_resume(plan(Kind::Multistage, 2, 3, file_name("resume")), at);
    expect_bitwise(g, all, "multistage, stopped after " + std::to_string(at) + " actions",
                   the_case().m);
    EXPECT_GE(g.resumed_at, 1) << at;
    EXPECT_LE(g.resumed_at, at) << at;
  }
  // Online, all on disk: its forward sweep overwrites thinned slots.
  for (long at : {150L, 500L}) {
    const Gradient g = stop_and_resume(plan(Kind::Online, 0, 6, file_name("resume")), at);
    expect_bitwise(g, all, "online, stopped after " + std::to_string(at) + " actions",
                   the_case().m);
  }
}

/// Runs with `c` stopped by SIGTERM at each of `polls` in turn (the first run, then each
/// resumed one: a poll counts from 1 in each part), then resumes to the end. `stops`: how many
/// parts were stopped (a poll beyond a part's end lets it finish).
Gradient terminate_and_resume(Checkpointing c, const std::vector<long>& polls, int& stops) {
  c.resume_every = 0;
  c.watch_signals = true;
  stops = 0;
  Gradient g;
  for (std::size_t part = 0; part <= polls.size(); ++part) {
    c.term_at_poll = part < polls.size() ? polls[part] : -1;
    c.resume = part > 0;
    the_case().driver.set_checkpointing(c);
    try {
      g = the_case().driver.gradient(the_case().m, the_case().dts);
      break;
    } catch (const Stopped&) {
      ++stops;
    }
  }
  the_case().driver.set_checkpointing(Checkpointing{});
  return g;
}

/// The same shared case; the suite's name puts its tests in the slow label
/// (checkpointing_slow_np2): StoppedRunsResumeToTheSameGradientBitwise covers one stop per run in
/// CI.
class CheckpointedGradientSlow : public CheckpointedGradient {};

TEST_F(CheckpointedGradientSlow, ARunStoppedAndResumedAgainAndAgainGivesTheSameGradientBitwise) {
  // A batch job requeued several times: each part resumes the run the previous part stopped by
  // SIGTERM, which is answered between steps (in the middle of an advance, after a save, a
  // restore or an adjoint step), in the forward sweep or the reverse one. Chains of 3 stops
  // whose polls are spread over the run; multistage (memory slots rebuilt on resume), online
  // (slots thinned in the forward sweep) and revolve with every checkpoint in memory (the file
  // holds the records only: each part rebuilds from x_0).
  const Gradient& all = store_all();
  struct Variant {
    std::string name;
    Checkpointing c;
  };
  const std::vector<Variant> variants = {
      {"multistage 2 + 3", plan(Kind::Multistage, 2, 3, file_name("chain"))},
      {"online 2 + 4", plan(Kind::Online, 2, 4, file_name("chain"))},
      {"revolve 5", plan(Kind::Revolve, 5, 0, file_name("chain"))},
  };
  const std::vector<std::vector<long>> chains = {{150, 98, 40}, {3, 200, 57}, {420, 131, 77}};
  for (const Variant& v : variants)
    for (const auto& polls : chains) {
      std::string what = v.name + ", SIGTERM at polls";
      for (long p : polls)
        what += " " + std::to_string(p);
      int stops = 0;
      const Gradient g = terminate_and_resume(v.c, polls, stops);
      expect_bitwise(g, all, what + ", resumed each time", the_case().m);
      EXPECT_EQ(stops, static_cast<int>(polls.size())) << what;
    }
}

/// Flips one byte of a dataset in an HDF5 file (rank 0; the file is closed). Collective.
void flip_byte(const std::string& path, const std::string& dataset, long byte) {
  if (world().is_root()) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t set = H5Dopen2(file, dataset.c_str(), H5P_DEFAULT);
    ASSERT_GE(set, 0) << dataset;
    const haddr_t offset = H5Dget_offset(set);
    H5Dclose(set);
    H5Fclose(file);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset) + byte);
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(offset) + byte);
    f.put(static_cast<char>(c ^ 0x10));
  }
  world().barrier();
}

TEST_F(CheckpointedGradient, ACorruptedSlotIsDetected) {
  // Slot 0 holds x_0, which the rest of the sweep restores; 1002 and 1003 are the reverse
  // sweep's resume records, the newest of which a resumed run reads first.
  const std::vector<std::vector<std::string>> damages = {{"slot_0/values"},
                                                         {"slot_1002/values", "slot_1003/values"}};
  for (const auto& datasets : damages) {
    const std::string dataset = datasets.front();
    Checkpointing c = plan(Kind::Multistage, 0, 4, file_name("corrupt"));
    c.resume_every = 0;
    c.stop_after_actions = 600;
    the_case().driver.set_checkpointing(c);
    EXPECT_THROW(the_case().driver.gradient(the_case().m, the_case().dts), Error);
    for (const std::string& d : datasets)
      flip_byte(c.file, d, 4000);
    c.stop_after_actions = -1;
    c.resume = true;
    the_case().driver.set_checkpointing(c);
    try {
      the_case().driver.gradient(the_case().m, the_case().dts);
      ADD_FAILURE() << "a corrupted " << dataset << " was not detected";
    } catch (const CollectiveError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("does not match its checksum"), std::string::npos) << what;
      EXPECT_NE(what.find(c.file), std::string::npos) << what;
      if (world().is_root())
        std::printf("corrupted %s: %s\n", dataset.c_str(), what.c_str());
    }
    the_case().driver.set_checkpointing(Checkpointing{});
    if (world().is_root())
      std::remove(c.file.c_str());
    world().barrier();
  }
}

TEST(CheckpointFile, ASecondRunIsRefusedWhileTheFirstHoldsTheFile) {
  // A resume started while the killed run's ranks still write, or two jobs in one directory.
  const std::string path = file_name("locked");
  auto first = std::make_unique<io::SlotFile>(world(), path, io::SlotFile::Mode::Create);
  std::string message;
  try {
    io::SlotFile second(world(), path, io::SlotFile::Mode::Open);
  } catch (const CollectiveError& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("is in use by process"), std::string::npos) << message;
  EXPECT_NE(message.find("wait until it has ended"), std::string::npos) << message;
  first.reset(); // closed: the lock is released and its file removed
  EXPECT_NO_THROW(io::SlotFile(world(), path, io::SlotFile::Mode::Open));
  world().barrier();
  if (world().is_root()) {
    EXPECT_FALSE(exists(path + ".lock"));
    std::remove(path.c_str());
  }
}

TEST(CheckpointFile, SlotsRoundTripBitwiseWithoutABufferOfTheWholeSnapshot) {
  // A slot's part is written from the fields' own memory and read into the load buffer's fields
  // piece by piece, with the checksum summed over the pieces: the store holds its load buffer
  // and, for device fields only, a host staging buffer of one snapshot.
  const std::string path = file_name("pieces");
  const Domain d(world(), channel_domain(process_grids(2, world().size()).back()));
  Snapshot s;
  s.step = 17;
  std::size_t span = 0;
  for (const char* name : {"u", "v", "p"}) {
    Field f(d, std::string(name) == "p" ? Location::Cell : Location::FaceX, 1, name);
    auto host = Kokkos::create_mirror_view(f.view());
    for (std::size_t i = 0; i < host.span(); ++i) // distinct on every rank and position
      host.data()[i] = std::sin(1.0 + double(i) + 1000.0 * world().rank()) * 1e3;
    Kokkos::deep_copy(f.view(), host);
    span += host.span();
    s.fields.emplace_back(name, f);
  }
  s.numbers = {{"time", 0.125}, {"objective", -3.5 - world().rank()}};
  {
    Hdf5CheckpointStore store(world(), path, false);
    store.reserve(3, s);
    store.save(3, s);
    const Snapshot& back = store.load(3);
    EXPECT_EQ(back.step, 17);
    EXPECT_EQ(back.numbers, s.numbers);
    ASSERT_EQ(back.fields.size(), s.fields.size());
    for (std::size_t k = 0; k < s.fields.size(); ++k) {
      const auto a =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.fields[k].second.view());
      const auto b =
          Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), back.fields[k].second.view());
      EXPECT_EQ(back.fields[k].first, s.fields[k].first);
      ASSERT_EQ(a.span(), b.span());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), 8 * a.span()), 0) << s.fields[k].first;
    }
    const double load_buffer = 8.0 * double(span + s.numbers.size());
    const bool host_fields = Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
    EXPECT_EQ(store.bytes(), host_fields ? load_buffer : 2 * load_buffer - 8.0 * s.numbers.size());
    store.remove_file();
  }
  // The checksums of consecutive pieces add up to the whole's.
  std::vector<double> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = std::cos(double(i));
  EXPECT_EQ(io::values_checksum(values.data(), 1000),
            io::values_checksum(values.data(), 300) +
                io::values_checksum(values.data() + 300, 700, 300));
  EXPECT_NE(io::values_checksum(values.data(), 1000),
            io::values_checksum(values.data(), 300) +
                io::values_checksum(values.data() + 300, 700));
}

TEST_F(CheckpointedGradient, ImpossibleSettingsAreRefusedWithTheFix) {
  GradientDriver& d = the_case().driver;
  EXPECT_THROW(d.set_checkpointing(plan(Kind::Revolve, 3, 2, "f.h5")), ConfigError);
  EXPECT_THROW(d.set_checkpointing(plan(Kind::Multistage, 3, 0)), ConfigError);
  EXPECT_THROW(d.set_checkpointing(plan(Kind::All, 0, 2, "f.h5")), ConfigError);
  EXPECT_THROW(d.set_checkpointing(plan(Kind::Multistage, 3, 2)), ConfigError); // no file
  Checkpointing c = plan(Kind::Revolve, 3, 0);
  c.resume = true;
  EXPECT_THROW(d.set_checkpointing(c), ConfigError); // no file to resume from
  c = plan(Kind::All, 0, 0, "f.h5");
  c.resume = true;
  EXPECT_THROW(d.set_checkpointing(c), ConfigError); // store-all cannot resume
  // Resuming without a file to resume from.
  c = plan(Kind::Multistage, 2, 2, file_name("missing"));
  c.resume = true;
  d.set_checkpointing(c);
  EXPECT_THROW(d.gradient(the_case().m, the_case().dts), CollectiveError);
  d.set_checkpointing(Checkpointing{});
}

} // namespace
