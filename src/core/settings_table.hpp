#pragma once
// A command's config fields, each declared once (after libvips' VIPS_ARG_* and DALI's schema): the
// pointer, type, range or choices, default and doc go to the Schema (validation with "did you
// mean", --print-config, the documented example and its check), and the same declaration says
// where the validated value lands in the command's settings struct. read() fills a settings
// struct from a validated config by running every field's landing in declaration order; what
// needs several fields at once (e.g. "x, y and z or none") is checked by the command after it.
//
// Where a value lands (`into`), one of:
//   &Settings::member                     the value, converted to the member's type;
//   config::member(&Settings::a, &A::b)   a nested member, likewise;
//   [](Settings& s, const V& v) { ... }   a conversion (V: bool, long long, double, std::string or
//                                         std::vector<std::string>, by the field's type);
//   config::read_by_batch_job             none here: the batch job reads it (inputs, how they are
//                                         found), so it is declared only.
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"

namespace gp::config {

struct ReadByBatchJob {};
inline constexpr ReadByBatchJob read_by_batch_job{};

namespace detail {
template <class T, class M>
auto& follow(T& object, M member) {
  return object.*member;
}
template <class T, class M, class... Rest>
auto& follow(T& object, M member, Rest... rest) {
  return follow(object.*member, rest...);
}
}  // namespace detail

// A nested member as a landing: member(&Settings::read, &ReadOptions::raw, &RawOptions::dtype).
template <class... Members>
auto member(Members... path) {
  return [path...](auto& settings, const auto& value) {
    auto& target = detail::follow(settings, path...);
    target = static_cast<std::decay_t<decltype(target)>>(value);
  };
}

template <class S>
class SettingsTable {
 public:
  explicit SettingsTable(std::string command) : schema_(std::move(command)) {}

  SettingsTable& object(const std::string& pointer, const std::string& doc) {
    schema_.object(pointer, doc);
    return *this;
  }
  template <class Into>
  SettingsTable& boolean(const std::string& pointer, bool def, const std::string& doc, Into into) {
    schema_.boolean(pointer, def, doc);
    return land<bool>(pointer, std::move(into));
  }
  template <class Into>
  SettingsTable& integer(const std::string& pointer, long long def, long long min, long long max, const std::string& doc,
                         Into into) {
    schema_.integer(pointer, def, min, max, doc);
    return land<long long>(pointer, std::move(into));
  }
  template <class Into>
  SettingsTable& number(const std::string& pointer, double def, double min, double max, const std::string& doc,
                        Into into) {
    schema_.number(pointer, def, min, max, doc);
    return land<double>(pointer, std::move(into));
  }
  template <class Into>
  SettingsTable& string(const std::string& pointer, const std::string& def, const std::string& doc, Into into) {
    schema_.string(pointer, def, doc);
    return land<std::string>(pointer, std::move(into));
  }
  template <class Into>
  SettingsTable& choice(const std::string& pointer, const std::string& def, std::vector<std::string> choices,
                        const std::string& doc, Into into) {
    schema_.choice(pointer, def, std::move(choices), doc);
    return land<std::string>(pointer, std::move(into));
  }
  template <class Into>
  SettingsTable& string_list(const std::string& pointer, std::vector<std::string> def, const std::string& doc,
                             Into into) {
    schema_.string_list(pointer, std::move(def), doc);
    return land<std::vector<std::string>>(pointer, std::move(into));
  }
  // Fields every batch command has. /output/dir: the output folder, refused when empty.
  template <class Into>
  SettingsTable& output_dir(const std::string& def, const std::string& doc, Into into) {
    return string("/output/dir", def, doc, [into](S& settings, const std::string& dir) {
      if (dir.empty()) throw UsageError("/output/dir: must not be empty");
      apply(into, settings, dir);
    });
  }
  // /run/on_error: skip (report the failed `items` and go on) or fail (stop at the first).
  SettingsTable& on_error(const std::string& items, bool S::*stop_on_error) {
    return choice("/run/on_error", "skip", {"skip", "fail"}, "skip: report failed " + items + " and go on; fail: stop at the first",
                  [stop_on_error](S& settings, const std::string& v) { settings.*stop_on_error = v == "fail"; });
  }

  // The batch job's inputs (files, folders, globs, @lists): required, read by the batch job.
  SettingsTable& required_string_list(const std::string& pointer, const std::string& doc, ReadByBatchJob) {
    schema_.required_string_list(pointer, doc);
    return *this;
  }

  const Schema& schema() const { return schema_; }

  // The settings from a config validated by schema() (every field present).
  S read(const json& config) const {
    S settings{};
    for (const auto& landing : landings_) landing(config, settings);
    return settings;
  }

 private:
  template <class Into, class V>
  static void apply(const Into& into, S& settings, const V& value) {
    if constexpr (std::is_member_object_pointer_v<Into>)
      member(into)(settings, value);
    else
      into(settings, value);
  }
  template <class V, class Into>
  SettingsTable& land(const std::string& pointer, Into into) {
    if constexpr (std::is_same_v<Into, ReadByBatchJob>) {
      return *this;
    } else {
      landings_.push_back([pointer, into = std::move(into)](const json& config, S& settings) {
        apply(into, settings, value_at<V>(config, pointer));
      });
      return *this;
    }
  }

  Schema schema_;
  std::vector<std::function<void(const json&, S&)>> landings_;
};

}  // namespace gp::config
