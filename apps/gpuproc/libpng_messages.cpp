// libpng's messages to gp::library_message instead of stderr.
//
// libpng calls a reader's error handler and, when that returns (as OpenImageIO's does, having
// kept the text for its own error message), prints "libpng error: TEXT" on stderr itself before
// it unwinds; without handlers it prints warnings too. OpenImageIO offers no way to change its
// handlers, so gpuproc defines png_set_error_fn and exports it (CMakeLists.txt): the executable
// comes first in the dynamic loader's search, so every call of it lands here, OpenImageIO's and
// libpng's own (png_create_read_struct sets the creator's handlers, none for OpenImageIO, through
// it). The handlers libpng gets instead report the message to library_message, then call the
// caller's handler; an error then unwinds (png_longjmp) as libpng's default does, without the
// print. libpng passes a handler nothing but the struct and the text, so each distinct pair of
// caller's handlers gets a pair of handlers of its own, from a fixed set (callers pass the same
// few pairs for every struct; past the set, a caller's handlers are installed unchanged).
#include <dlfcn.h>

#include <array>
#include <mutex>
#include <type_traits>
#include <utility>

#include "core/library_log.hpp"

namespace {

// libpng's types, as far as used here (no png.h needed).
using png_struct = void*;
using MessageFn = void (*)(png_struct, const char*);
using SetErrorFn = void (*)(png_struct, void* error_ptr, MessageFn error_fn, MessageFn warning_fn);
using LongjmpFn = void (*)(png_struct, int);

struct Libpng {
  SetErrorFn set_error_fn = nullptr;
  LongjmpFn longjmp = nullptr;
};

// libpng's functions: the next definitions after this executable's, else those of a libpng loaded
// outside the global scope.
const Libpng& libpng() {
  static const Libpng api = [] {
    Libpng a;
    void* handle = dlopen("libpng16.so.16", RTLD_LAZY | RTLD_NOLOAD);
    auto find = [&](auto& fn, const char* name) {
      void* p = dlsym(RTLD_NEXT, name);
      if (!p && handle) p = dlsym(handle, name);
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    find(a.set_error_fn, "png_set_error_fn");
    find(a.longjmp, "png_longjmp");
    return a;
  }();
  return api;
}

using Handlers = std::pair<MessageFn, MessageFn>;  // error, warning
constexpr std::size_t kSlots = 8;
std::array<Handlers, kSlots> callers;  // slot N: the caller's handlers that on_error<N> and on_warning<N> call
std::size_t slots_used = 0;
std::mutex slots_mutex;

template <std::size_t N>
void on_error(png_struct png, const char* text) {
  gp::library_message("libpng", gp::LibraryLevel::error, text ? text : "");
  if (callers[N].first) callers[N].first(png, text);
  libpng().longjmp(png, 1);  // what libpng does after printing: to the reader's setjmp, else abort
}

template <std::size_t N>
void on_warning(png_struct png, const char* text) {
  gp::library_message("libpng", gp::LibraryLevel::warning, text ? text : "");
  if (callers[N].second) callers[N].second(png, text);
}

template <std::size_t... N>
constexpr std::array<Handlers, kSlots> make_ours(std::index_sequence<N...>) {
  return {Handlers{&on_error<N>, &on_warning<N>}...};
}
constexpr std::array<Handlers, kSlots> ours = make_ours(std::make_index_sequence<kSlots>());

// The handlers to install for the caller's: ours for their slot, or theirs when the slots are full
// (or when they are ours already).
Handlers replacement(const Handlers& theirs) {
  std::lock_guard<std::mutex> lock(slots_mutex);
  for (std::size_t k = 0; k < kSlots; ++k) {
    if (ours[k] == theirs) return theirs;
    if (k < slots_used && callers[k] == theirs) return ours[k];
  }
  if (slots_used == kSlots) return theirs;
  callers[slots_used] = theirs;
  return ours[slots_used++];
}

}  // namespace

extern "C" void png_set_error_fn(png_struct png, void* error_ptr, MessageFn error_fn, MessageFn warning_fn) {
  const Libpng& api = libpng();
  if (!api.set_error_fn) return;  // no libpng: nobody can call this
  Handlers handlers{error_fn, warning_fn};
  if (api.longjmp) handlers = replacement(handlers);
  api.set_error_fn(png, error_ptr, handlers.first, handlers.second);
}
