#pragma once
// Plain views handed to stages and kernels: pointer, size, pitch. They own nothing; the runtime
// owns the memory. nvcc-safe.
#include <cstddef>
#include <cstdint>

// Usable in kernels too.
#ifdef __CUDACC__
#define GP_VIEW_HD __host__ __device__
#else
#define GP_VIEW_HD
#endif

namespace gp {

enum class PixelType : std::uint8_t { u8, u16, f16, f32 };

GP_VIEW_HD inline std::size_t pixel_type_bytes(PixelType t) {
  switch (t) {
    case PixelType::u8: return 1;
    case PixelType::u16: return 2;
    case PixelType::f16: return 2;
    case PixelType::f32: return 4;
  }
  return 0;
}

// An interleaved 2-D image: `channels` values of `type` per pixel, rows `pitch` bytes apart.
struct ImageView {
  void* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  PixelType type = PixelType::f32;
  std::size_t pitch = 0;  // bytes between row starts

  GP_VIEW_HD std::size_t row_bytes() const { return std::size_t(width) * channels * pixel_type_bytes(type); }
  GP_VIEW_HD std::size_t bytes() const { return pitch * std::size_t(height); }
  template <class T>
  GP_VIEW_HD T* row(int y) const { return reinterpret_cast<T*>(static_cast<char*>(data) + pitch * std::size_t(y)); }
};

// Tightly packed view over `data` (pitch = row bytes).
inline ImageView packed_view(void* data, int width, int height, int channels, PixelType type) {
  ImageView v;
  v.data = data;
  v.width = width;
  v.height = height;
  v.channels = channels;
  v.type = type;
  v.pitch = v.row_bytes();
  return v;
}

}  // namespace gp
