// Pipeline settings and dictionary from a Paddle inference model's
// inference.yml (the file PaddleOCR's exporter writes beside the model): the
// one mapping of PaddleOCR's pre/post-processing onto edgeocr's settings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgeocr {
namespace loader {

struct PaddleModelConfig {
  nlohmann::json settings = nlohmann::json::object();  // edgeocr settings, checked
  std::vector<std::string> characters;                 // PostProcess.character_dict (rec), in order
  std::vector<std::string> notes;  // what was read only in part or not at all, and why
};

// Maps `yml` (inference.yml parsed to JSON) of a model in role `role`
// ("det", "cls" or "rec") onto edgeocr settings:
//   det: DetResizeForTest (limit_side_len/limit_type, resize_long), NormalizeImage,
//        DBPostProcess (thresh, box_thresh, max_candidates, unclip_ratio, use_dilation,
//        score_mode);
//   cls: ClsResizeImg image_shape or ResizeImage size, NormalizeImage, the label list;
//   rec: RecResizeImg image_shape (the height), NormalizeImage, CTCLabelDecode's
//        character_dict.
// Steps with no pipeline effect (DecodeImage, *LabelEncode, KeepKeys, ToCHWImage)
// are skipped; any other step is named in `notes`. InvalidModel when the file is
// not the expected shape, a value is out of range (through the settings table),
// or the normalisation scale is not 1/255; Unsupported for a post-processing
// edgeocr does not run (not DB, not CTC, a classifier without two labels).
// `where` names the file in messages.
PaddleModelConfig paddle_model_config(const nlohmann::json& yml, const std::string& role,
                                      const std::string& where);

}  // namespace loader
}  // namespace edgeocr
