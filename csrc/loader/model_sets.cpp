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
      {nullptr, {0, nullptr}, {0, nullptr}, {0, nullptr}, nullptr, {0, 0, 0}},
  };
  return sets;
}

}  // namespace loader
}  // namespace edgeocr
