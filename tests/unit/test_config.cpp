// Config: parsing, typed access, and that every kind of bad input gives a message naming the
// problem and the fix.

#include "undertow/core/config.hpp"
#include "undertow/core/error.hpp"

#include <gtest/gtest.h>

namespace {

using namespace undertow;

ConfigSchema schema() {
  ConfigSchema s;
  s.add("domain.cells", ValueType::IntegerList, "8 8", "cells per axis").items(2, 3).at_least(1);
  s.add("domain.periodic", ValueType::BooleanList, "false false", "periodicity").items(2, 3);
  s.add("fluid.nu", ValueType::Real, "0.01", "kinematic viscosity [m^2/s]").above(0);
  s.add("time.steps", ValueType::Integer, "10", "number of steps").at_least(1);
  s.add("time.scheme", ValueType::Choice, "rk3", "integrator").one_of({"rk3", "ab2"});
  s.add("output.dir", ValueType::String, "", "output directory");
  s.add("case.title", ValueType::String, "", "title").mandatory();
  return s;
}

const char* kValid = R"(
# a comment
[case]
title = demo
[domain]
cells = 32, 16
periodic = true false
[fluid]
nu = 2.5e-3
)";

/// The ConfigError message of validating `text` with `overrides`; fails the test if none.
std::string error_of(const std::string& text, const std::vector<std::string>& overrides = {}) {
  try {
    Config c(schema(), RawConfig::parse(text, "case.ini", overrides));
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError for:\n" << text;
  return "";
}

TEST(Config, ParsesTypedValuesAndDefaults) {
  const Config c(schema(), RawConfig::parse(kValid, "case.ini", {"time.steps=25"}));
  EXPECT_EQ(c.get_int_list("domain.cells"), (std::vector<long>{32, 16}));
  EXPECT_EQ(c.get_bool_list("domain.periodic"), (std::vector<bool>{true, false}));
  EXPECT_DOUBLE_EQ(c.get_real("fluid.nu"), 2.5e-3);
  EXPECT_EQ(c.get_int("time.steps"), 25);
  EXPECT_EQ(c.get_string("time.scheme"), "rk3");
  EXPECT_TRUE(c.is_given("fluid.nu"));
  EXPECT_TRUE(c.is_given("time.steps"));
  EXPECT_FALSE(c.is_given("time.scheme"));
}

TEST(Config, EffectiveIniReproducesTheConfiguration) {
  const Config c(schema(), RawConfig::parse(kValid, "case.ini", {"time.scheme=ab2"}));
  const Config again(schema(), RawConfig::parse(c.to_ini(), "saved.ini", {}));
  EXPECT_EQ(again.to_ini(), c.to_ini());
  EXPECT_EQ(again.hash(), c.hash());
  EXPECT_EQ(again.get_string("time.scheme"), "ab2");
  const Config other(schema(), RawConfig::parse(kValid, "case.ini", {}));
  EXPECT_NE(other.hash(), c.hash());
}

TEST(Config, UnknownKeySuggestsTheNearest) {
  const std::string m = error_of(std::string(kValid) + "[time]\nsteeps = 3\n");
  EXPECT_NE(m.find("unknown key 'time.steeps'"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean 'time.steps'"), std::string::npos) << m;
  EXPECT_NE(m.find("case.ini"), std::string::npos) << m;
}

TEST(Config, UnknownSectionSuggestsTheNearest) {
  const std::string m = error_of(kValid, {"fluids.nu=1"});
  EXPECT_NE(m.find("unknown section [fluids]"), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean [fluid]"), std::string::npos) << m;
  EXPECT_NE(m.find("--set"), std::string::npos) << m;
}

TEST(Config, BadTypeNamesKeyValueAndWhatIsAllowed) {
  const std::string m = error_of(kValid, {"time.steps=ten"});
  EXPECT_NE(m.find("'time.steps'"), std::string::npos) << m;
  EXPECT_NE(m.find("'ten' is not an integer"), std::string::npos) << m;
  EXPECT_NE(m.find("an integer >= 1"), std::string::npos) << m;
  EXPECT_NE(error_of(kValid, {"fluid.nu=nan"}).find("not a finite real"), std::string::npos);
  EXPECT_NE(error_of(kValid, {"domain.periodic=yes maybe"}).find("'maybe' is not a boolean"),
            std::string::npos);
}

TEST(Config, OutOfRangeNamesTheBound) {
  const std::string m = error_of(kValid, {"fluid.nu=0"});
  EXPECT_NE(m.find("'fluid.nu' = '0'"), std::string::npos) << m;
  EXPECT_NE(m.find("out of range"), std::string::npos) << m;
  EXPECT_NE(m.find("a real number > 0"), std::string::npos) << m;
  EXPECT_NE(error_of(kValid, {"domain.cells=8 0"}).find("0 is out of range"), std::string::npos);
}

TEST(Config, ChoiceListsTheAllowedValues) {
  const std::string m = error_of(kValid, {"time.scheme=rk4"});
  EXPECT_NE(m.find("'rk4' is not allowed"), std::string::npos) << m;
  EXPECT_NE(m.find("one of: rk3, ab2"), std::string::npos) << m;
}

TEST(Config, ListLengthIsChecked) {
  const std::string m = error_of(kValid, {"domain.cells=8 8 8 8"});
  EXPECT_NE(m.find("has 4 item(s)"), std::string::npos) << m;
  EXPECT_NE(m.find("2 to 3 integers"), std::string::npos) << m;
}

TEST(Config, DuplicateKeyIsAnError) {
  const std::string m = error_of(std::string(kValid) + "[fluid]\nnu = 1\n");
  EXPECT_NE(m.find("'fluid.nu' is given twice"), std::string::npos) << m;
}

TEST(Config, MissingRequiredKeyIsNamed) {
  const std::string m = error_of("[fluid]\nnu = 1\n");
  EXPECT_NE(m.find("missing required key 'case.title'"), std::string::npos) << m;
}

TEST(Config, MalformedSetIsExplained) {
  EXPECT_NE(error_of(kValid, {"fluid.nu"}).find("--set expects section.key=value"),
            std::string::npos);
  EXPECT_NE(error_of(kValid, {"nu=3"}).find("--set expects section.key=value"), std::string::npos);
}

TEST(Config, KeyOutsideSectionAndBrokenSyntax) {
  EXPECT_NE(error_of("title = x\n").find("outside any [section]"), std::string::npos);
  EXPECT_NE(error_of("[case\ntitle = x\n").find("cannot parse the case file"), std::string::npos);
}

TEST(Config, SetOverridesTheFile) {
  const Config c(schema(), RawConfig::parse(kValid, "case.ini", {"fluid.nu = 7e-4"}));
  EXPECT_DOUBLE_EQ(c.get_real("fluid.nu"), 7e-4);
  EXPECT_NE(c.describe().find("fluid.nu = 7e-4   (--set)"), std::string::npos) << c.describe();
}

TEST(Config, MarkdownDocumentsEveryKey) {
  const ConfigSchema s = schema();
  const std::string md = s.markdown();
  for (const auto& kv : s.keys())
    EXPECT_NE(md.find("`" + kv.first + "`"), std::string::npos) << kv.first;
  EXPECT_NE(md.find("### [fluid]"), std::string::npos);
}

TEST(Config, ReadingAnUndeclaredOrMistypedKeyIsAProgrammingError) {
  const Config c(schema(), RawConfig::parse(kValid, "case.ini", {}));
  EXPECT_THROW(c.get_real("fluid.mu"), Error);
  EXPECT_THROW(c.get_int("fluid.nu"), Error);
}

TEST(Config, EditDistance) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

} // namespace
