#pragma once
// An allocator whose value-less construction leaves trivial types uninitialised, so that
// std::vector<T, DefaultInitAllocator<T>>::resize(n) does not zero-fill: for a volume of
// gigabytes that a parallel reader then fills, the serial zero fill (first-touching every page
// on one thread) cost more than the reading itself.
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace gp {

template <class T, class Base = std::allocator<T>>
class DefaultInitAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };
  using Base::Base;

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible<U>::value) {
    ::new (static_cast<void*>(p)) U;  // default-initialised: no zero fill for trivial types
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

}  // namespace gp
