#include "io/dicom_common.hpp"

#include <dcmtk/dcmdata/dcdict.h>
#include <dcmtk/dcmdata/dcrledrg.h>
#include <dcmtk/dcmdata/dcrleerg.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/dcmjpeg/djencode.h>
#include <dcmtk/dcmjpls/djdecode.h>
#include <dcmtk/dcmjpls/djencode.h>
#include <dcmtk/oflog/oflog.h>
#include <dcmtk/oflog/spi/logevent.h>

#include <cstdlib>
#include <mutex>

#include "core/error.hpp"
#include "core/library_log.hpp"

namespace gp::io::dicom {
namespace {

// DCMTK's log (warnings and worse) to gp::library_message instead of stderr.
class LibraryLogAppender : public dcmtk::log4cplus::Appender {
 public:
  ~LibraryLogAppender() override { destructorImpl(); }
  void close() override { closed = true; }

 protected:
  void append(const dcmtk::log4cplus::spi::InternalLoggingEvent& event) override {
    const auto level = event.getLogLevel();
    library_message("dcmtk",
                    level >= dcmtk::log4cplus::ERROR_LOG_LEVEL  ? LibraryLevel::error
                    : level >= dcmtk::log4cplus::WARN_LOG_LEVEL ? LibraryLevel::warning
                                                                : LibraryLevel::info,
                    event.getMessage().c_str());
  }
};

}  // namespace

void init_decoders() {
  static std::once_flag once;
  std::call_once(once, [] {
    // DCMTK logs to stderr by default; its messages go where the other libraries' go instead.
    OFLog::configure(OFLogger::WARN_LOG_LEVEL);
    dcmtk::log4cplus::Logger root = dcmtk::log4cplus::Logger::getRoot();
    root.removeAllAppenders();
    root.addAppender(dcmtk::log4cplus::SharedAppenderPtr(new LibraryLogAppender));
    if (!dcmDataDict.isDictionaryLoaded()) {
      const char* env = std::getenv(DCM_DICT_ENVIRONMENT_VARIABLE);
      throw Error(std::string("DCMTK's DICOM data dictionary is not loaded: install it (Debian: libdcmtk17 ships ") +
                  DCM_DICT_DEFAULT_PATH + ") or point " + DCM_DICT_ENVIRONMENT_VARIABLE + " at a dicom.dic" +
                  (env ? std::string(" (now '") + env + "')" : std::string()));
    }
    // Registration is not thread-safe itself; decoding afterwards is (the codec list takes a read
    // lock, each thread decodes its own datasets).
    DJDecoderRegistration::registerCodecs();
    DJLSDecoderRegistration::registerCodecs();
    DcmRLEDecoderRegistration::registerCodecs();
  });
}

void init_encoders() {
  init_decoders();
  static std::once_flag once;
  std::call_once(once, [] {
    DJEncoderRegistration::registerCodecs();
    // The raw JPEG-LS encoder codes the stored bits as they are; DCMTK 3.6.7's "cooked" one
    // overruns its output buffer by a byte when a frame does not compress (valgrind).
    DJLSEncoderRegistration::registerCodecs(0, 0, 0, 0, /*preferCookedEncoding=*/OFFalse);
    DcmRLEEncoderRegistration::registerCodecs();
  });
}

std::string transfer_syntax_name(E_TransferSyntax syntax) {
  switch (syntax) {
    case EXS_LittleEndianImplicit: return "implicit VR little endian";
    case EXS_LittleEndianExplicit: return "explicit VR little endian";
    case EXS_BigEndianExplicit: return "explicit VR big endian";
    case EXS_DeflatedLittleEndianExplicit: return "deflated explicit VR little endian";
    case EXS_RLELossless: return "RLE lossless";
    case EXS_JPEGLSLossless: return "JPEG-LS lossless";
    case EXS_JPEGLSLossy: return "JPEG-LS near-lossless";
    case EXS_JPEGProcess14SV1: return "JPEG lossless SV1";
    case EXS_JPEGProcess14: return "JPEG lossless";
    case EXS_JPEGProcess1: return "JPEG baseline (lossy)";
    case EXS_JPEGProcess2_4: return "JPEG extended (lossy)";
    case EXS_JPEG2000LosslessOnly: return "JPEG 2000 lossless";
    case EXS_JPEG2000: return "JPEG 2000";
    default: return DcmXfer(syntax).getXferName();
  }
}

}  // namespace gp::io::dicom
