#pragma once
// Where the .tflite models are: an explicit path from the job config, else the file name looked up
// in $GPUPROC_MODELS, the source tree's .models (scripts/fetch-models.sh) and the install prefix's
// share/gpuproc/models, in that order.
#include <string>

#include "infer/tflite_model.hpp"

namespace gp::infer {

// Throws gp::UsageError naming `field` (e.g. "/model/path"): an explicit path that is not a regular
// file (missing, a folder, a FIFO, a device), or a file name found in none of the folders (listing
// them, and how to fetch the models).
std::string locate_model(const std::string& explicit_path, const std::string& file_name, const std::string& field);

// Model::load(path), its errors (unreadable, not a .tflite the engine takes) as gp::UsageError
// prefixed with `what` (the config field or the model's role).
Model load_model(const std::string& path, const std::string& what);

}  // namespace gp::infer
