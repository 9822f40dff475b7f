#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {

const Registry& registry() {
  static const Registry r = [] {
    Registry m;
    register_io_ops(m);
    register_activation_ops(m);
    register_conv_ops(m);
    register_elementwise_ops(m);
    register_tensor_ops(m);
    register_math_ops(m);
    register_resize_ops(m);
    register_rnn_ops(m);
    return m;
  }();
  return r;
}

}  // namespace nb
}  // namespace edgeocr
