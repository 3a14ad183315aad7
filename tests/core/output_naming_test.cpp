// Output naming for a whole job: input folders, the naming variables, mirroring, and the check
// that no two outputs of a job are the same file.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "core/output_naming.hpp"

using Catch::Matchers::Contains;
using gp::InputItem;
using gp::PlannedFile;

namespace {

const nlohmann::ordered_json templates = {{"output", {{"name", "{stem}.{ext}"}}}, {"mip", {{"name", "{stem}_mip.png"}}}};

std::vector<PlannedFile> one(const std::string& path, const std::string& field = "/output/name") { return {{path, field}}; }

}  // namespace

TEST_CASE("input items know their folder under the inputs' common folder", "[outputs][naming]") {
  const auto items = gp::make_input_items({"shots/a/f1.exr", "shots/a/f2.exr", "shots/b/f1.exr", "shots/b/deep/f1.exr"});
  REQUIRE(items.size() == 4);
  CHECK(items[0].folder == "a");
  CHECK(items[2].folder == "b");
  CHECK(items[3].folder == "b/deep");
  CHECK(items[3].index == 3);
  CHECK(gp::make_input_items({"shots/a/f1.exr"})[0].folder.empty());
  CHECK(gp::make_input_items({"shots/f1.exr", "shots/a/f1.exr"})[0].folder.empty());

  const auto vars = gp::naming_variables(items[2]);
  CHECK(vars.at("stem") == "f1");
  CHECK(vars.at("name") == "f1.exr");
  CHECK(vars.at("parent") == "b");
  CHECK(vars.at("folder") == "b");
  CHECK(vars.at("index") == "2");
  CHECK(gp::naming_variables(InputItem{"x.exr", 0, ""}).at("folder") == ".");
}

TEST_CASE("output.mirror_inputs puts each input's outputs in its own folder", "[outputs][naming]") {
  const auto items = gp::make_input_items({"shots/a/f1.exr", "shots/b/f1.exr"});
  gp::OutputNaming flat{"out", false}, mirrored{"out", true};
  CHECK(flat.path(items[0], "f1.png", "/output/name") == "out/f1.png");
  CHECK(mirrored.path(items[0], "f1.png", "/output/name") == "out/a/f1.png");
  CHECK(mirrored.path(items[1], "sub/f1.png", "/output/name") == "out/b/sub/f1.png");
  CHECK_THROWS_AS(mirrored.path(items[1], "../f1.png", "/output/name"), gp::UsageError);
}

TEST_CASE("two outputs of a job that are one file are a usage error naming both inputs", "[outputs][naming]") {
  const auto items = gp::make_input_items({"shots/a/city.exr", "shots/b/city.exr"});
  SECTION("across inputs") {
    try {
      gp::check_planned_outputs(items, {one("out/city.png"), one("out/./city.png")}, templates);
      FAIL("no collision found");
    } catch (const gp::UsageError& e) {
      const std::string what = e.what();
      CHECK_THAT(what, Contains("shots/a/city.exr") && Contains("shots/b/city.exr") && Contains("out/city.png"));
      CHECK_THAT(what, Contains("/output/name = \"{stem}.{ext}\""));
      CHECK_THAT(what, Contains("{parent}") && Contains("mirror_inputs") && Contains("{index}"));
    }
  }
  SECTION("inside one input") {
    std::vector<PlannedFile> both{{"out/a.png", "/output/name"}, {"out/a.png", "/mip/name"}};
    CHECK_THROWS_WITH(gp::check_planned_outputs({items[0]}, {both}, templates),
                      Contains("twice") && Contains("/mip/name = \"{stem}_mip.png\"") && Contains("/output/name"));
  }
  SECTION("a frame pattern shared by two videos") {
    CHECK_THROWS_WITH(gp::check_planned_outputs(items, {one("out/city_{frame}.png"), one("out/city_{frame}.png")}, templates),
                      Contains("output collision"));
  }
  SECTION("an output that would replace an input") {
    CHECK_THROWS_WITH(gp::check_planned_outputs(items, {one("shots/b/city.exr"), one("out/b.png")}, templates),
                      Contains("replace the input shots/b/city.exr"));
  }
  SECTION("a file name longer than file systems take") {
    CHECK_THROWS_WITH(gp::check_planned_outputs({items[0]}, {one("out/" + std::string(256, 'x') + ".png")}, templates),
                      Contains("260 bytes long"));
  }
  SECTION("distinct names pass") {
    CHECK_NOTHROW(gp::check_planned_outputs(items, {one("out/a/city.png"), one("out/b/city.png")}, templates));
  }
}
