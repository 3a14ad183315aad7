// segment-pnm's config: the example is complete and valid, and semantic checks name the field.
#include <catch2/catch.hpp>

#include "core/error.hpp"
#include "pnm/pnm_settings.hpp"
#include "support/config_example.hpp"

namespace {

using gp::config::json;

gp::pnm::Settings settings_with(const json& overrides) {
  json user = {{"inputs", {"a"}}};
  user.merge_patch(overrides);
  return gp::pnm::read_settings(gp::pnm::schema().validate(user, "job.json"));
}

}  // namespace

TEST_CASE("configs/segment-pnm.json is valid and documents every field", "[pnm][config]") {
  const auto config = gp::test::check_documented_example("configs/segment-pnm.json", gp::pnm::schema());
  CHECK_NOTHROW(gp::pnm::read_settings(config));
}

TEST_CASE("segment-pnm settings: semantic checks name the field", "[pnm][config]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(settings_with({{"segment", {{"connectivity", 18}}}}), Contains("/segment/connectivity"));
  CHECK_THROWS_WITH(settings_with({{"input", {{"spacing", {{"x", 0.1}}}}}}), Contains("/input/spacing"));
  CHECK_THROWS_WITH(settings_with({{"input", {{"format", "raw"}}}}), Contains("/input/raw"));
  CHECK_THROWS_WITH(settings_with({{"output", {{"statoil_prefix", "a/b"}}}}), Contains("/output/statoil_prefix"));
  const auto s = settings_with({{"input", {{"spacing", {{"x", 0.02}, {"y", 0.02}, {"z", 0.025}}}}},
                                {"segment", {{"pore", "bright"}, {"connectivity", 6}}}});
  CHECK(s.read.spacing_given);
  CHECK(s.read.spacing.z == 0.025);
  CHECK_FALSE(s.pore_is_dark);
  CHECK(s.connectivity == gp::Connectivity::c6);
  const auto files = gp::pnm::output_files(s);
  CHECK(files.back() == "summary.json");
  CHECK(files.size() == 11);  // 2 CSV, JSON, VTP, 4 Statoil, NRRD, PNG, summary
}
