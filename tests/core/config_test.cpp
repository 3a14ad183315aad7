// gp::config: schema validation (exact message texts), defaults, the documented example, config
// files and --set overrides.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/file_checks.hpp"
#include "support/test_data.hpp"
#include "support/within.hpp"
#include "tonemap/tonemap_settings.hpp"

namespace {

using gp::UsageError;
using gp::config::json;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;
using gp::test::usage_error_within;

// `depth` arrays inside each other: [[[...]]].
std::string nested(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

const std::vector<std::string> operators = {"linear", "reinhard", "hable", "agx"};

const gp::config::Schema& test_schema() {
  static const gp::config::Schema schema = [] {
    gp::config::Schema s("tonemap-exr");
    s.required_string_list("/inputs", "input files");
    s.object("/output", "written images");
    s.integer("/output/quality", 90, 1, 100, "JPEG quality");
    s.boolean("/output/dither", true, "dither before rounding");
    s.string("/output/dir", "out", "output folder");
    s.object("/tonemap", "the tone curve");
    s.choice("/tonemap/operator", "agx", operators, "tone curve");
    s.number("/tonemap/white", 11.2, 0.01, 1e6, "white point");
    s.number("/tonemap/bias", 0.0, -1e308, 1e308, "unbounded number");
    s.string_list("/tonemap/tags", {"a"}, "free tags");
    // Declared before its parent object: the parent is created implicitly, its doc added later.
    s.integer("/run/limits/threads", 0, 0, 256, "worker threads");
    s.object("/run", "batching");
    return s;
  }();
  return schema;
}

// The message of the UsageError that validating `user` throws ("" when it validates).
std::string problems_of(const json& user) {
  try {
    test_schema().validate(user, "config.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

json with_inputs(json user) {
  user["inputs"] = {"a.exr"};
  return user;
}

std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace

TEST_CASE("validation fills defaults in schema order and creates missing objects", "[config]") {
  const json cfg = test_schema().validate(json{{"inputs", {"a.exr"}}, {"output", {{"quality", 75}}}}, "config.json");
  CHECK(cfg["command"] == "tonemap-exr");
  CHECK(cfg["inputs"] == json({"a.exr"}));
  CHECK(cfg["output"]["quality"] == 75);
  CHECK(cfg["output"]["dither"] == true);
  CHECK(cfg["output"]["dir"] == "out");
  CHECK(cfg["tonemap"]["operator"] == "agx");
  CHECK(cfg["tonemap"]["white"] == 11.2);
  CHECK(cfg["tonemap"]["tags"] == json({"a"}));
  CHECK(cfg["run"]["limits"]["threads"] == 0);
  std::vector<std::string> keys;
  for (auto& [k, v] : cfg.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"command", "inputs", "output", "tonemap", "run"});
}

TEST_CASE("validation errors use the documented one-line format", "[config]") {
  CHECK(problems_of(with_inputs({{"output", {{"quality", "high"}}}})) ==
        "config.json: /output/quality: expected integer 1..100, got \"high\"");
  CHECK(problems_of(with_inputs({{"tonemap", {{"operator", "aces2"}}}})) ==
        "config.json: /tonemap/operator: expected one of linear, reinhard, hable, agx, got \"aces2\"");
  CHECK(problems_of(json::object()) == "config.json: /inputs: required");
  CHECK(problems_of(with_inputs({{"output", {{"qualty", 95}}}})) ==
        "config.json: /output/qualty: unknown key (did you mean \"quality\"?)");
  CHECK(problems_of(with_inputs({{"output", {{"xyz", 1}}}})) == "config.json: /output/xyz: unknown key");
  CHECK(problems_of(with_inputs({{"output", {{"dither", 1}}}})) == "config.json: /output/dither: expected true or false, got 1");
  CHECK(problems_of(with_inputs({{"output", {{"dir", 5}}}})) == "config.json: /output/dir: expected a string, got 5");
  CHECK(problems_of(with_inputs({{"tonemap", {{"white", 0}}}})) ==
        "config.json: /tonemap/white: expected number 0.01..1000000, got 0");
  CHECK(problems_of(with_inputs({{"tonemap", {{"bias", "x"}}}})) == "config.json: /tonemap/bias: expected number, got \"x\"");
  CHECK(problems_of({{"inputs", "a.exr"}}) == "config.json: /inputs: expected a list of strings, got \"a.exr\"");
  CHECK(problems_of({{"inputs", {"a.exr", 3}}}) == "config.json: /inputs: expected a list of strings, got [\"a.exr\",3]");
}

TEST_CASE("every problem is collected and reported at once, one per line", "[config]") {
  const json user = {{"output", {{"quality", 0}, {"qualty", 1}}}, {"tonemap", {{"operator", "aces2"}}}, {"extra", true}};
  CHECK(problems_of(user) ==
        "config.json: /output/qualty: unknown key (did you mean \"quality\"?)\n"
        "config.json: /extra: unknown key\n"
        "config.json: /inputs: required\n"
        "config.json: /output/quality: expected integer 1..100, got 0\n"
        "config.json: /tonemap/operator: expected one of linear, reinhard, hable, agx, got \"aces2\"");
}

TEST_CASE("integers accept 3 and 3.0 but not 3.5; numbers accept integers; booleans are strict", "[config]") {
  const json cfg = test_schema().validate(with_inputs({{"output", {{"quality", 3.0}}}, {"tonemap", {{"white", 2}}}}), "c");
  CHECK(cfg["output"]["quality"].is_number_integer());
  CHECK(cfg["output"]["quality"] == 3);
  CHECK(cfg["tonemap"]["white"] == 2);
  CHECK(problems_of(with_inputs({{"output", {{"quality", 3.5}}}})) ==
        "config.json: /output/quality: expected integer 1..100, got 3.5");
  CHECK(problems_of(with_inputs({{"output", {{"quality", true}}}})) ==
        "config.json: /output/quality: expected integer 1..100, got true");
  CHECK(problems_of(with_inputs({{"output", {{"quality", 101}}}})) ==
        "config.json: /output/quality: expected integer 1..100, got 101");
  CHECK(problems_of(with_inputs({{"output", {{"quality", 1e300}}}})) ==
        "config.json: /output/quality: expected integer 1..100, got 1e+300");
  CHECK(problems_of(with_inputs({{"output", {{"dither", "true"}}}})) ==
        "config.json: /output/dither: expected true or false, got \"true\"");
  CHECK(problems_of(with_inputs({{"output", {{"dither", nullptr}}}})) ==
        "config.json: /output/dither: expected true or false, got null");
  CHECK(problems_of(with_inputs({{"output", {{"dither", false}}}})).empty());
}

TEST_CASE("a top-level command key must name this subcommand", "[config]") {
  CHECK(problems_of(with_inputs({{"command", "tonemap-exr"}})).empty());
  gp::config::Schema stitch("stitch-360");
  CHECK_THROWS_WITH(stitch.validate({{"command", "tonemap-exr"}}, "config.json"),
                    "config.json: /command: this config is for tonemap-exr, not stitch-360");
  CHECK(problems_of(with_inputs({{"command", 3}})) == "config.json: /command: expected \"tonemap-exr\", got 3");
  CHECK(problems_of(with_inputs({{"comand", "tonemap-exr"}})) ==
        "config.json: /comand: unknown key (did you mean \"command\"?)");
}

TEST_CASE("an object given as something else is reported once, not for each member", "[config]") {
  CHECK(problems_of(with_inputs({{"output", 5}})) == "config.json: /output: expected an object, got 5");
  CHECK(problems_of(with_inputs({{"run", {{"limits", "many"}}}})) ==
        "config.json: /run/limits: expected an object, got \"many\"");
  CHECK(problems_of(with_inputs({{"run", {{"limits", {{"thread", 2}}}}}})) ==
        "config.json: /run/limits/thread: unknown key (did you mean \"threads\"?)");
  CHECK_THROWS_WITH(test_schema().validate(json::array(), "config.json"),
                    "config.json: expected a JSON object at the top level, got []");
}

TEST_CASE("reported pointers escape / and ~ in keys", "[config]") {
  CHECK(problems_of(with_inputs({{"output/quality", 1}})) == "config.json: /output~1quality: unknown key");
  CHECK(problems_of(with_inputs({{"a~b", 1}})) == "config.json: /a~0b: unknown key");
}

TEST_CASE("did_you_mean suggests close keys only", "[config]") {
  using gp::config::did_you_mean;
  const std::vector<std::string> keys = {"quality", "dither", "dir", "operator", "png_compression"};
  CHECK(did_you_mean("qualty", keys) == "quality");     // deletion
  CHECK(did_you_mean("qaulity", keys) == "quality");    // adjacent swap counts as one edit
  CHECK(did_you_mean("Quality", keys) == "quality");    // case ignored
  CHECK(did_you_mean("operater", keys) == "operator");  // substitution
  CHECK(did_you_mean("dri", keys) == "dir");
  CHECK(did_you_mean("png_compresion", keys) == "png_compression");
  CHECK(did_you_mean("xyz", keys).empty());
  CHECK(did_you_mean("format", keys).empty());
  CHECK(did_you_mean("ab", keys).empty());  // short words: one edit at most
  CHECK(did_you_mean("anything", {}).empty());
}

TEST_CASE("schema declaration mistakes are programming errors", "[config]") {
  gp::config::Schema s("x");
  s.integer("/a", 1, 0, 10, "a");
  CHECK_THROWS_AS(s.integer("/a", 1, 0, 10, "again"), std::logic_error);
  CHECK_THROWS_AS(s.integer("/b", 11, 0, 10, "default out of range"), std::logic_error);
  CHECK_THROWS_AS(s.choice("/c", "z", {"x", "y"}, "default not a choice"), std::logic_error);
  // A parent declared implicitly gets its doc when declared later.
  REQUIRE(test_schema().find("/run"));
  CHECK(test_schema().find("/run")->doc == "batching");
  REQUIRE(test_schema().find("/run/limits"));
  CHECK(test_schema().find("/run/limits")->type == gp::config::Type::object);
}

TEST_CASE("the documented example shows every field and validates as is", "[config]") {
  const std::string text = test_schema().documented_example();
  CHECK_THAT(text, Contains("\"command\": \"tonemap-exr\""));
  CHECK_THAT(text, Contains("  // JPEG quality (integer 1..100)\n    \"quality\": 90,"));
  CHECK_THAT(text, Contains("// tone curve (one of linear, reinhard, hable, agx)\n    \"operator\": \"agx\","));
  CHECK_THAT(text, Contains("// input files (required)\n  \"inputs\": [],"));
  CHECK_THAT(text, Contains("// white point (number 0.01..1000000)"));
  CHECK_THAT(text, Contains("// unbounded number\n"));
  CHECK_THAT(text, Contains("\"limits\": {\n      // worker threads (integer 0..256)\n      \"threads\": 0\n    }"));
  for (const auto& f : test_schema().fields()) {
    INFO(f.pointer);
    CHECK_THAT(text, Contains(f.doc));
  }

  const auto dir = gp::test::scratch_dir("config-example");
  const json loaded = gp::config::load_file(write_file(dir / "example.json", text));
  json completed;
  REQUIRE_NOTHROW(completed = test_schema().validate(loaded, "example.json"));
  CHECK(completed == loaded);  // nothing left to fill in: the example is complete
}

TEST_CASE("the tonemap-exr documented example loads and validates", "[config]") {
  const auto dir = gp::test::scratch_dir("config-tonemap-example");
  const std::string text = gp::tonemap::schema().documented_example();
  const json loaded = gp::config::load_file(write_file(dir / "tonemap.json", text));
  json completed;
  REQUIRE_NOTHROW(completed = gp::tonemap::schema().validate(loaded, "tonemap.json"));
  CHECK(completed == loaded);
}

TEST_CASE("config files allow comments; errors name the file, line and column", "[config]") {
  const auto dir = gp::test::scratch_dir("config-files");
  const json ok = gp::config::load_file(write_file(dir / "ok.json", "// job\n{\n  /* block */ \"inputs\": [\"a.exr\"] // end\n}\n"));
  CHECK(ok["inputs"] == json({"a.exr"}));

  const std::string bad = write_file(dir / "bad.json", "{\n  \"a\": 1,\n  \"b\": x\n}\n");
  CHECK_THROWS_AS(gp::config::load_file(bad), UsageError);
  CHECK_THROWS_WITH(gp::config::load_file(bad), Contains(bad + ":3:8: invalid JSON: syntax error while parsing value"));

  const std::string trailing = write_file(dir / "trailing.json", "{\n \"a\": 1,\n}");
  CHECK_THROWS_WITH(gp::config::load_file(trailing), Contains(trailing + ":3:1: invalid JSON:"));
  const std::string empty = write_file(dir / "empty.json", "");
  CHECK_THROWS_WITH(gp::config::load_file(empty), Contains(empty + ":1:1: invalid JSON:"));
  // A number past double's range is nlohmann's out_of_range, not a parse_error (found by fuzz_config).
  const std::string huge = write_file(dir / "huge.json", "{\"quality\": 1e999}");
  CHECK_THROWS_AS(gp::config::load_file(huge), UsageError);
  CHECK_THROWS_WITH(gp::config::load_file(huge), Contains(huge + ": ") && Contains("number overflow"));

  const std::string missing = (dir / "missing.json").string();
  CHECK_THROWS_AS(gp::config::load_file(missing), UsageError);
  CHECK_THROWS_WITH(gp::config::load_file(missing), "config file: " + missing + " does not exist");
  CHECK_THROWS_WITH(gp::config::load_file(dir.string()),
                    "config file: " + dir.string() + " is a folder, not a regular file");
}

TEST_CASE("config files nest at most max_json_depth levels", "[config]") {
  const auto dir = gp::test::scratch_dir("config-depth");
  const int limit = gp::config::max_json_depth;
  CHECK_NOTHROW(gp::config::load_file(write_file(dir / "at-limit.json", "{\"a\": " + nested(limit - 1) + "}")));
  const std::string over = write_file(dir / "over.json", "{\"a\": " + nested(limit) + "}");
  CHECK_THROWS_WITH(gp::config::load_file(over), over + ": nested more than 100 levels deep (arrays and objects inside each other)");
  // 100,000 levels (200 KB) crashed the message's serializer; objects count as arrays do.
  const std::string deep = write_file(dir / "deep.json", nested(100000));
  CHECK(usage_error_within([&] { gp::config::load_file(deep); }) ==
        deep + ": nested more than 100 levels deep (arrays and objects inside each other)");
  std::string objects;
  for (int i = 0; i < 100000; ++i) objects += "{\"a\":";
  const std::string deep_objects = write_file(dir / "objects.json", objects + "1" + std::string(100000, '}'));
  CHECK_THAT(usage_error_within([&] { gp::config::load_file(deep_objects); }), Contains("nested more than 100 levels"));
  // Brackets in strings and comments do not count.
  const std::string quoted = write_file(dir / "quoted.json", "// [[[[\n{\"a\": \"" + nested(200) + "\" /* {{{ */}");
  CHECK(gp::config::load_file(quoted)["a"] == nested(200));
}

TEST_CASE("a syntax error after a long token gives a short message", "[config]") {
  // nlohmann's message holds the whole token: 5 MB here (std::regex over it crashed).
  const auto dir = gp::test::scratch_dir("config-long-token");
  const std::string bad = write_file(dir / "bad.json", "{\"a\": \"" + std::string(5 << 20, 'x') + "\x01\"}");
  const std::string message = usage_error_within([&] { gp::config::load_file(bad); });
  CHECK_THAT(message, StartsWith(bad + ":1:5242888: invalid JSON: syntax error while parsing value - invalid string: "
                                       "control character U+0001 (SOH) must be escaped to \\u0001; last read: '..."));
  CHECK_THAT(message, Contains("xxxxxxxx<U+0001>'"));
  CHECK(message.size() < 400);
}

TEST_CASE("config files must be regular files of at most max_config_bytes", "[config]") {
  const auto dir = gp::test::scratch_dir("config-special");
  CHECK_THAT(usage_error_within([] { gp::config::load_file("/dev/zero"); }),
             Equals("config file: /dev/zero is a character device, not a regular file"));
  const std::string fifo = (dir / "fifo.json").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(usage_error_within([&] { gp::config::load_file(fifo); }),
             Equals("config file: " + fifo + " is a FIFO (named pipe), not a regular file"));
  const std::string big = write_file(dir / "big.json", "{}");
  std::filesystem::resize_file(big, gp::max_config_bytes + 1);  // sparse: nothing written
  CHECK_THAT(usage_error_within([&] { gp::config::load_file(big); }),
             Equals("config file: " + big + " is larger than the limit of 16 MiB"));
}

TEST_CASE("messages stay short and cheap whatever the config holds", "[config]") {
  // A 1 MB unknown key: the message quotes it shortened, and did_you_mean does not build a
  // 1 MB x key-length table.
  const std::string long_key(1 << 20, 'q');
  const auto start = std::chrono::steady_clock::now();
  const std::string message = problems_of(with_inputs({{long_key, 1}}));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK_THAT(message, StartsWith("config.json: /qqqq"));
  CHECK_THAT(message, Contains("...: unknown key"));
  CHECK(message.size() < 300);
  CHECK(gp::config::did_you_mean(long_key, {"quality", "q"}).empty());
  // Thousands of unknown keys: the first 50 problems, then how many more.
  json many = with_inputs(json::object());
  for (int i = 0; i < 10000; ++i) many["key" + std::to_string(i)] = i;
  const std::string lines = problems_of(many);
  CHECK(std::count(lines.begin(), lines.end(), '\n') == 50);
  CHECK_THAT(lines, Contains("\nconfig.json: ... and 9950 more problems"));
  // A deep value (at the depth limit) is shown shortened.
  json deep = json::parse(nested(gp::config::max_json_depth));
  CHECK(problems_of(deep) == "config.json: expected a JSON object at the top level, got " + std::string(57, '[') + "...");
}

TEST_CASE("the --set option: overrides take dotted paths or JSON pointers", "[config]") {
  json cfg = {{"output", {{"quality", 90}}}};
  gp::config::apply_override(cfg, "output.quality=95");
  CHECK(cfg["output"]["quality"] == 95);
  gp::config::apply_override(cfg, "/output/quality=96");
  CHECK(cfg["output"]["quality"] == 96);
  gp::config::apply_override(cfg, "inputs=[\"a.exr\",\"b.exr\"]");
  CHECK(cfg["inputs"] == json({"a.exr", "b.exr"}));
  gp::config::apply_override(cfg, "tonemap.operator=agx");  // not JSON: taken as a string
  CHECK(cfg["tonemap"]["operator"] == "agx");
  gp::config::apply_override(cfg, "output.dither=false");
  CHECK(cfg["output"]["dither"] == false);
  gp::config::apply_override(cfg, "output.dir=");
  CHECK(cfg["output"]["dir"] == "");
  gp::config::apply_override(cfg, "output.name=\"123\"");
  CHECK(cfg["output"]["name"] == "123");
  gp::config::apply_override(cfg, "output.expr=a=b");  // only the first = separates
  CHECK(cfg["output"]["expr"] == "a=b");
  gp::config::apply_override(cfg, "tonemap.white=1e999");  // out of range for JSON: a string, reported later
  CHECK(cfg["tonemap"]["white"] == "1e999");
  gp::config::apply_override(cfg, "/weird~1key/x~0y=1");
  CHECK(cfg["weird/key"]["x~y"] == 1);
}

TEST_CASE("the --set option: creates intermediate objects and refuses to replace values with objects", "[config]") {
  json cfg = json::object();
  gp::config::apply_override(cfg, "run.limits.threads=4");
  CHECK(cfg == json({{"run", {{"limits", {{"threads", 4}}}}}}));
  json empty;  // null: a config not loaded from a file
  gp::config::apply_override(empty, "a=1");
  CHECK(empty == json({{"a", 1}}));

  json with_value = {{"output", 5}};
  CHECK_THROWS_WITH(gp::config::apply_override(with_value, "output.quality=1"),
                    "--set output.quality=1: /output is not an object");
  CHECK(with_value == json({{"output", 5}}));
}

TEST_CASE("the --set option: rejects bad syntax", "[config]") {
  json cfg = json::object();
  for (const std::string bad : {"output.quality", "=5", "a..b=1", "a.=1", ".a=1", "/=1", "/a//b=1", "/a~2=1", "/a~=1"}) {
    INFO(bad);
    CHECK_THROWS_AS(gp::config::apply_override(cfg, bad), UsageError);
    CHECK_THROWS_WITH(gp::config::apply_override(cfg, bad), Contains("--set " + bad + ": "));
  }
  CHECK(cfg == json::object());
  json array = json::array();
  CHECK_THROWS_WITH(gp::config::apply_override(array, "a=1"), "--set a=1: the config is not a JSON object");
}

TEST_CASE("the --set option: keys and value together nest at most max_json_depth levels", "[config]") {
  const int limit = gp::config::max_json_depth;
  // As in a file, the config object counts: {"a": [[...]]} with limit - 1 arrays is the deepest.
  json cfg = json::object();
  gp::config::apply_override(cfg, "a=" + nested(limit - 1));
  CHECK(cfg["a"] == json::parse(nested(limit - 1)));
  gp::config::apply_override(cfg, "b.c=" + nested(limit - 2));  // and object b
  CHECK(cfg["b"]["c"] == json::parse(nested(limit - 2)));
  std::string hundred_keys = "k";
  for (int i = 1; i < limit; ++i) hundred_keys += ".k";
  gp::config::apply_override(cfg, hundred_keys + "=1");

  json before = cfg;
  const std::string deep = "x.y=" + nested(limit - 1);
  CHECK_THROWS_WITH(gp::config::apply_override(cfg, deep), "--set x.y=" + std::string(53, '[') +
                                                          "...: nested more than 100 levels deep (arrays and objects inside each other)");
  CHECK(cfg == before);  // nothing created on the way
  // 100,000 levels: refused at once, not taken as a string nor crashing later.
  CHECK_THAT(usage_error_within([&] { gp::config::apply_override(cfg, "a=" + nested(100000)); }),
             Contains("nested more than 100 levels deep"));
  std::string keys = "k";
  for (int i = 0; i < 100000; ++i) keys += ".k";
  CHECK_THAT(usage_error_within([&] { gp::config::apply_override(cfg, keys + "=1"); }),
             Equals("--set " + keys.substr(0, 57) + "...: 100001 keys; the limit is 100 levels"));
  CHECK(cfg == before);
}

TEST_CASE("overrides then validation report the overridden value", "[config]") {
  json cfg = {{"inputs", {"a.exr"}}};
  gp::config::apply_override(cfg, "output.quality=high");
  CHECK(problems_of(cfg) == "config.json: /output/quality: expected integer 1..100, got \"high\"");
}
