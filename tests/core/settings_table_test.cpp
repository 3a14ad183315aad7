// SettingsTable: one declaration per field gives the schema entry and where the value lands.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/settings_table.hpp"

namespace {

struct Inner {
  int size = 0;
  float gain = 0;
};

struct Example {
  bool enabled = false;
  Inner inner;
  std::string mode;
  bool fast = false;
  std::vector<std::string> names;
  int doubled = 0;  // from the field above it: landings run in declaration order
};

gp::config::SettingsTable<Example> make_table() {
  using gp::config::member;
  gp::config::SettingsTable<Example> t("example");
  t.required_string_list("/inputs", "inputs", gp::config::read_by_batch_job);
  t.object("/a", "group a");
  t.boolean("/a/enabled", false, "on or off", &Example::enabled);
  t.integer("/a/size", 3, 1, 10, "a nested int", member(&Example::inner, &Inner::size));
  t.number("/a/gain", 0.1, 0, 1, "a nested float", member(&Example::inner, &Inner::gain));
  t.choice("/a/mode", "slow", {"slow", "fast"}, "a choice, kept and converted", [](Example& e, const std::string& v) {
    e.mode = v;
    e.fast = v == "fast";
  });
  t.string_list("/a/names", {"x"}, "a list", &Example::names);
  t.integer("/a/doubled", 1, 0, 100, "twice the size when enabled", [](Example& e, long long v) {
    if (v == 13) throw gp::UsageError("/a/doubled: not 13");
    e.doubled = e.enabled ? 2 * e.inner.size : int(v);
  });
  return t;
}

}  // namespace

TEST_CASE("SettingsTable: the schema holds every field once, in declaration order", "[config][settings_table]") {
  const auto t = make_table();
  std::vector<std::string> pointers;
  for (const gp::config::Field& f : t.schema().fields()) pointers.push_back(f.pointer);
  CHECK(pointers == std::vector<std::string>{"/inputs", "/a", "/a/enabled", "/a/size", "/a/gain", "/a/mode", "/a/names",
                                             "/a/doubled"});
  CHECK(t.schema().find("/a/size")->max == 10);
  CHECK(t.schema().find("/a/mode")->choices == std::vector<std::string>{"slow", "fast"});
}

TEST_CASE("SettingsTable: read() lands each validated value where its declaration says", "[config][settings_table]") {
  const auto t = make_table();
  SECTION("defaults") {
    const Example e = t.read(t.schema().validate({{"inputs", {"in.txt"}}}, "test"));
    CHECK_FALSE(e.enabled);
    CHECK(e.inner.size == 3);
    CHECK(e.inner.gain == 0.1f);  // the double rounded to the member's float, as get<float> does
    CHECK(e.mode == "slow");
    CHECK_FALSE(e.fast);
    CHECK(e.names == std::vector<std::string>{"x"});
    CHECK(e.doubled == 1);
  }
  SECTION("given values, converted, in declaration order") {
    const gp::config::json user = {{"inputs", {"in.txt"}},
                                   {"a", {{"enabled", true}, {"size", 7}, {"gain", 0.5}, {"mode", "fast"}, {"names", {"p", "q"}}}}};
    const Example e = t.read(t.schema().validate(user, "test"));
    CHECK(e.enabled);
    CHECK(e.inner.size == 7);
    CHECK(e.inner.gain == 0.5f);
    CHECK(e.mode == "fast");
    CHECK(e.fast);
    CHECK(e.names == std::vector<std::string>{"p", "q"});
    CHECK(e.doubled == 14);
  }
  SECTION("a landing's own check names the field") {
    const gp::config::json user = {{"inputs", {"in.txt"}}, {"a", {{"doubled", 13}}}};
    CHECK_THROWS_WITH(t.read(t.schema().validate(user, "test")), Catch::Contains("/a/doubled"));
  }
  SECTION("validation (with did-you-mean) is the schema's, before any landing") {
    const gp::config::json user = {{"inputs", {"in.txt"}}, {"a", {{"sise", 7}}}};
    CHECK_THROWS_WITH(t.schema().validate(user, "test"), Catch::Contains("size"));
  }
}
