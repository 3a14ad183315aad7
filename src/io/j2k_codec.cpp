#include "io/j2k_codec.hpp"

#include <openjpeg.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace gp::io {
namespace {

// A codestream in memory as an OpenJPEG stream (read, skip and seek), or a growing buffer (write).
struct MemoryStream {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0, offset = 0;
  std::vector<std::uint8_t>* out = nullptr;
};

OPJ_SIZE_T read_memory(void* buffer, OPJ_SIZE_T bytes, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (m->offset >= m->size) return OPJ_SIZE_T(-1);  // end of stream
  const std::size_t n = std::min<std::size_t>(bytes, m->size - m->offset);
  std::memcpy(buffer, m->data + m->offset, n);
  m->offset += n;
  return n;
}

OPJ_SIZE_T write_memory(void* buffer, OPJ_SIZE_T bytes, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  auto& out = *m->out;
  if (m->offset + bytes > out.size()) out.resize(m->offset + bytes);
  std::memcpy(out.data() + m->offset, buffer, bytes);
  m->offset += bytes;
  return bytes;
}

OPJ_OFF_T skip_memory(OPJ_OFF_T bytes, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  const std::size_t limit = m->out ? std::size_t(-1) / 2 : m->size;
  if (bytes < 0) {
    const std::size_t back = std::min<std::size_t>(std::size_t(-bytes), m->offset);
    m->offset -= back;
    return -OPJ_OFF_T(back);
  }
  const std::size_t n = std::min<std::size_t>(std::size_t(bytes), limit - std::min(limit, m->offset));
  m->offset += n;
  if (m->out && m->offset > m->out->size()) m->out->resize(m->offset);
  return OPJ_OFF_T(n);
}

OPJ_BOOL seek_memory(OPJ_OFF_T position, void* user) {
  auto* m = static_cast<MemoryStream*>(user);
  if (position < 0 || (!m->out && std::size_t(position) > m->size)) return OPJ_FALSE;
  m->offset = std::size_t(position);
  if (m->out && m->offset > m->out->size()) m->out->resize(m->offset);
  return OPJ_TRUE;
}

void keep_message(const char* message, void* user) {
  auto* text = static_cast<std::string*>(user);
  if (text->empty()) {
    *text = message;
    while (!text->empty() && (text->back() == '\n' || text->back() == ' ')) text->pop_back();
  }
}
void ignore_message(const char*, void*) {}

struct Handles {
  opj_codec_t* codec = nullptr;
  opj_stream_t* stream = nullptr;
  opj_image_t* image = nullptr;
  ~Handles() {
    if (image) opj_image_destroy(image);
    if (stream) opj_stream_destroy(stream);
    if (codec) opj_destroy_codec(codec);
  }
};

opj_stream_t* memory_stream(MemoryStream& m, bool input) {
  opj_stream_t* s = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, input ? OPJ_TRUE : OPJ_FALSE);
  if (!s) throw std::runtime_error("OpenJPEG: cannot create a stream");
  opj_stream_set_user_data(s, &m, nullptr);
  if (input) {
    opj_stream_set_user_data_length(s, m.size);
    opj_stream_set_read_function(s, read_memory);
  } else {
    opj_stream_set_write_function(s, write_memory);
  }
  opj_stream_set_skip_function(s, skip_memory);
  opj_stream_set_seek_function(s, seek_memory);
  return s;
}

}  // namespace

J2kImage decode_j2k(const std::uint8_t* data, std::size_t bytes) {
  static const std::uint8_t jp2_signature[12] = {0, 0, 0, 12, 'j', 'P', ' ', ' ', 0x0d, 0x0a, 0x87, 0x0a};
  const bool jp2 = bytes >= 12 && std::memcmp(data, jp2_signature, 12) == 0;
  MemoryStream m{data, bytes, 0, nullptr};
  Handles h;
  std::string error;
  h.codec = opj_create_decompress(jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  if (!h.codec) throw std::runtime_error("OpenJPEG: cannot create a decoder");
  opj_set_error_handler(h.codec, keep_message, &error);
  opj_set_warning_handler(h.codec, ignore_message, nullptr);
  opj_set_info_handler(h.codec, ignore_message, nullptr);
  opj_dparameters_t parameters;
  opj_set_default_decoder_parameters(&parameters);
  if (!opj_setup_decoder(h.codec, &parameters)) throw std::runtime_error("OpenJPEG: cannot set up the decoder");
  h.stream = memory_stream(m, true);
  auto fail = [&](const char* what) {
    throw std::runtime_error(std::string("JPEG 2000 ") + what + (error.empty() ? "" : ": " + error));
  };
  if (!opj_read_header(h.stream, h.codec, &h.image) || !h.image) fail("header is invalid");
  if (!opj_decode(h.codec, h.stream, h.image) || !opj_end_decompress(h.codec, h.stream)) fail("data cannot be decoded");
  if (h.image->numcomps < 1 || !h.image->comps[0].data) fail("image has no samples");
  const opj_image_comp_t& c = h.image->comps[0];
  J2kImage out;
  out.width = int(c.w);
  out.height = int(c.h);
  out.components = int(h.image->numcomps);
  out.precision = int(c.prec);
  out.is_signed = c.sgnd != 0;
  out.samples.assign(c.data, c.data + std::size_t(c.w) * std::size_t(c.h));
  return out;
}

std::vector<std::uint8_t> encode_j2k_lossless(const std::int32_t* samples, int width, int height, int precision,
                                              bool is_signed) {
  opj_image_cmptparm_t component{};
  component.dx = component.dy = 1;
  component.w = OPJ_UINT32(width);
  component.h = OPJ_UINT32(height);
  component.prec = OPJ_UINT32(precision);
  component.sgnd = is_signed ? 1 : 0;
  Handles h;
  h.image = opj_image_create(1, &component, OPJ_CLRSPC_GRAY);
  if (!h.image) throw std::runtime_error("OpenJPEG: cannot create an image");
  h.image->x1 = OPJ_UINT32(width);
  h.image->y1 = OPJ_UINT32(height);
  std::copy(samples, samples + std::size_t(width) * std::size_t(height), h.image->comps[0].data);
  opj_cparameters_t parameters;
  opj_set_default_encoder_parameters(&parameters);
  parameters.tcp_numlayers = 1;
  parameters.tcp_rates[0] = 0;  // lossless
  parameters.cp_disto_alloc = 1;
  parameters.irreversible = 0;
  parameters.numresolution = std::max(1, std::min(6, 1 + int(std::log2(std::max(1, std::min(width, height))))));
  std::string error;
  h.codec = opj_create_compress(OPJ_CODEC_J2K);
  if (!h.codec) throw std::runtime_error("OpenJPEG: cannot create an encoder");
  opj_set_error_handler(h.codec, keep_message, &error);
  opj_set_warning_handler(h.codec, ignore_message, nullptr);
  opj_set_info_handler(h.codec, ignore_message, nullptr);
  if (!opj_setup_encoder(h.codec, &parameters, h.image)) throw std::runtime_error("OpenJPEG: cannot set up the encoder: " + error);
  std::vector<std::uint8_t> out;
  MemoryStream m{nullptr, 0, 0, &out};
  h.stream = memory_stream(m, false);
  if (!opj_start_compress(h.codec, h.image, h.stream) || !opj_encode(h.codec, h.stream) ||
      !opj_end_compress(h.codec, h.stream))
    throw std::runtime_error("OpenJPEG: encoding failed: " + error);
  return out;
}

}  // namespace gp::io
