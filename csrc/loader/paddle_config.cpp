// inference.yml -> edgeocr settings (see paddle_config.h).
#include "loader/paddle_config.h"

#include <cmath>
#include <cstdlib>

#include "edgeocr/pipeline.h"
#include "edgeocr/status.h"
#include "loader/dictionary.h"
#include "loader/settings.h"

namespace edgeocr {
namespace loader {
namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  fail(StatusCode::kInvalidModel, where + ": " + what);
}

// A number written as a number or as PaddleOCR's "1./255." text.
double number_of(const json& v, const std::string& where, const std::string& key) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    const auto slash = s.find('/');
    char* end = nullptr;
    if (slash == std::string::npos) {
      const double d = std::strtod(s.c_str(), &end);
      if (end && *end == '\0' && !s.empty()) return d;
    } else {
      const std::string a = s.substr(0, slash), b = s.substr(slash + 1);
      char* ea = nullptr;
      char* eb = nullptr;
      const double x = std::strtod(a.c_str(), &ea), y = std::strtod(b.c_str(), &eb);
      if (!a.empty() && !b.empty() && *ea == '\0' && *eb == '\0' && y != 0) return x / y;
    }
  }
  bad(where, key + " must be a number, got " + v.dump());
}

// The (height, width) of an image_shape [C, H, W].
std::pair<json, json> hw_of(const json& shape, const std::string& where, const std::string& key) {
  if (!shape.is_array() || shape.size() != 3)
    bad(where, key + " must be [C, H, W], got " + shape.dump());
  return {shape[1], shape[2]};
}

void normalize(json& out, const json& args, const std::string& prefix, const std::string& where) {
  if (!args.is_object()) return;
  if (args.contains("scale")) {
    const double scale = number_of(args["scale"], where, "NormalizeImage.scale");
    if (std::fabs(scale - 1.0 / 255.0) > 1e-6)
      bad(where, "NormalizeImage.scale " + args["scale"].dump() +
                     " is not supported: edgeocr normalises pixel/255");
  }
  if (args.contains("mean")) out[prefix + "_mean"] = args["mean"];
  if (args.contains("std")) out[prefix + "_std"] = args["std"];
}

}  // namespace

PaddleModelConfig paddle_model_config(const json& yml, const std::string& role,
                                      const std::string& where) {
  if (role != "det" && role != "cls" && role != "rec")
    fail(StatusCode::kInvalidArgument, where + ": role must be det, cls or rec, got " + role);
  if (!yml.is_object()) bad(where, "expected a mapping at the top (PreProcess, PostProcess)");
  PaddleModelConfig cfg;
  json& out = cfg.settings;

  json ops = json::array();
  if (yml.contains("PreProcess")) {
    const json& pre = yml["PreProcess"];
    if (!pre.is_object() || !pre.contains("transform_ops") || !pre["transform_ops"].is_array())
      bad(where, "PreProcess must have a transform_ops list");
    ops = pre["transform_ops"];
  }
  for (const json& step : ops) {
    std::string name;
    json args = json::object();
    if (step.is_string()) {
      name = step.get<std::string>();
    } else if (step.is_object() && step.size() == 1) {
      name = step.begin().key();
      args = step.begin().value();
    } else {
      bad(where, "a PreProcess step must be a name or {name: arguments}, got " + step.dump());
    }
    const std::string at = "PreProcess." + name;
    if (name == "DecodeImage" || name == "KeepKeys" || name == "ToCHWImage" ||
        (name.size() > 11 && name.compare(name.size() - 11, 11, "LabelEncode") == 0))
      continue;  // decoding, training labels, layout: nothing for the pipeline
    if (name == "NormalizeImage") {
      normalize(out, args, role, where);
    } else if (name == "DetResizeForTest" && role == "det" && args.is_object()) {
      if (args.contains("limit_side_len")) out["det_limit_side_len"] = args["limit_side_len"];
      if (args.contains("limit_type")) {
        const json& t = args["limit_type"];
        out["det_limit_type"] = t == "resize_long" ? json("max") : t;
      }
      if (args.contains("resize_long")) {
        out["det_limit_type"] = "max";
        out["det_limit_side_len"] = args["resize_long"];
        cfg.notes.push_back(at +
                            ".resize_long: read as limit_type max (pages whose long side is "
                            "shorter are not enlarged, as PaddleOCR would)");
      }
      if (args.contains("image_shape"))
        cfg.notes.push_back(at +
                            ".image_shape (a fixed det size) is not mapped: edgeocr keeps "
                            "the page's aspect ratio");
    } else if (name == "RecResizeImg" && role == "rec" && args.is_object()) {
      if (args.contains("image_shape")) {
        out["rec_height"] = hw_of(args["image_shape"], where, at + ".image_shape").first;
        cfg.notes.push_back(at +
                            ".image_shape: the height is used; widths follow edgeocr's "
                            "rec_width_buckets");
      }
    } else if (name == "ClsResizeImg" && role == "cls" && args.is_object()) {
      if (args.contains("image_shape")) {
        const auto hw = hw_of(args["image_shape"], where, at + ".image_shape");
        out["cls_height"] = hw.first;
        out["cls_width"] = hw.second;
      }
    } else if (name == "ResizeImage" && role == "cls" && args.is_object() &&
               args.contains("size")) {
      const json& size = args["size"];  // [width, height]
      if (!size.is_array() || size.size() != 2)
        bad(where, at + ".size must be [width, height], got " + size.dump());
      out["cls_width"] = size[0];
      out["cls_height"] = size[1];
    } else {
      cfg.notes.push_back(at + " is not mapped onto edgeocr's pipeline");
    }
  }

  if (yml.contains("PostProcess")) {
    const json& post = yml["PostProcess"];
    if (!post.is_object()) bad(where, "PostProcess must be a mapping");
    std::string name;
    if (post.contains("name") && post["name"].is_string()) name = post["name"].get<std::string>();
    if (role == "det") {
      if (!name.empty() && name != "DBPostProcess")
        fail(StatusCode::kUnsupported,
             where + ": PostProcess " + name + " is not supported: edgeocr runs DB detection");
      static const char* kDb[][2] = {{"thresh", "det_thresh"},
                                     {"box_thresh", "det_box_thresh"},
                                     {"max_candidates", "det_max_candidates"},
                                     {"unclip_ratio", "det_unclip_ratio"},
                                     {"use_dilation", "det_use_dilation"},
                                     {"score_mode", "det_score_mode"}};
      for (const auto& kv : kDb)
        if (post.contains(kv[0])) out[kv[1]] = post[kv[0]];
    } else if (role == "rec") {
      if (!name.empty() && name != "CTCLabelDecode")
        fail(StatusCode::kUnsupported,
             where + ": PostProcess " + name + " is not supported: edgeocr decodes CTC");
      if (post.contains("character_dict")) {
        const json& chars = post["character_dict"];
        if (!chars.is_array()) bad(where, "PostProcess.character_dict must be a list");
        if (chars.size() > kMaxCharacters)
          bad(where, "PostProcess.character_dict has " + std::to_string(chars.size()) +
                         " entries; at most " + std::to_string(kMaxCharacters));
        cfg.characters.reserve(chars.size());
        for (const json& c : chars) {
          // YAML reads digits and words as numbers and booleans: a number written as a
          // plain scalar is its decimal text; anything else is not a character.
          if (c.is_string())
            cfg.characters.push_back(c.get<std::string>());
          else if (c.is_number_integer())
            cfg.characters.push_back(std::to_string(c.get<long long>()));
          else
            bad(where, "PostProcess.character_dict holds " + c.dump() + ", not a character");
        }
      }
    } else {
      const json* labels = post.contains("label_list") ? &post["label_list"] : nullptr;
      if (!labels && post.contains("Topk") && post["Topk"].is_object() &&
          post["Topk"].contains("label_list"))
        labels = &post["Topk"]["label_list"];
      if (labels && (!labels->is_array() || labels->size() != 2))
        fail(StatusCode::kUnsupported,
             where + ": the classifier's label_list " + labels->dump() +
                 " is not supported: edgeocr's cls tells 0 from 180 degrees (two labels)");
    }
  }

  PipelineConfig check;
  apply_settings(check, out, where, StatusCode::kInvalidModel, StatusCode::kInvalidModel);
  return cfg;
}

}  // namespace loader
}  // namespace edgeocr
