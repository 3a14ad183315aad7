#pragma once
// DCMTK set-up shared by the DICOM reader and writer. Internal to src/io (includes DCMTK headers).
#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmdata/dcxfer.h>

#include <string>

namespace gp::io::dicom {

// Once per process, before any other DCMTK call and before threads use it: checks that the data
// dictionary loaded (throws gp::Error naming where DCMTK looks), quiets DCMTK's logger (errors come
// back through OFCondition) and registers the JPEG, JPEG-LS and RLE decoders.
void init_decoders();
// init_decoders() plus the JPEG lossless, JPEG-LS and RLE encoders.
void init_encoders();

// Short names for reports: "explicit VR little endian", "RLE lossless", "JPEG-LS lossless", ...
std::string transfer_syntax_name(E_TransferSyntax syntax);

}  // namespace gp::io::dicom
