#include <pybind11/stl.h>

#include "bindings.h"
#include "edgeocr/model.h"
#include "edgeocr/status.h"

namespace py = pybind11;
using namespace edgeocr;

namespace {

DType dtype_of(const py::array& a) {
  const char kind = a.dtype().kind();
  const auto size = a.itemsize();
  if (kind == 'f' && size == 4) return DType::kFloat32;
  if (kind == 'f' && size == 8) return DType::kFloat64;
  if (kind == 'f' && size == 2) return DType::kFloat16;
  if (kind == 'u' && size == 1) return DType::kUInt8;
  if (kind == 'i' && size == 1) return DType::kInt8;
  if (kind == 'i' && size == 4) return DType::kInt32;
  if (kind == 'i' && size == 8) return DType::kInt64;
  if (kind == 'b') return DType::kBool;
  throw Error(StatusCode::kInvalidArgument,
              "unsupported array dtype " + std::string(py::str(a.dtype())));
}

py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::kFloat32:
      return py::dtype::of<float>();
    case DType::kFloat64:
      return py::dtype::of<double>();
    case DType::kUInt8:
      return py::dtype::of<std::uint8_t>();
    case DType::kInt8:
      return py::dtype::of<std::int8_t>();
    case DType::kInt32:
      return py::dtype::of<std::int32_t>();
    case DType::kInt64:
      return py::dtype::of<std::int64_t>();
    case DType::kBool:
      return py::dtype("bool");
    case DType::kFloat16:
      return py::dtype("float16");
    default:
      throw Error(StatusCode::kUnsupported, std::string("no numpy dtype for ") + dtype_name(t));
  }
}

py::list infos(const std::vector<TensorInfo>& v) {
  py::list out;
  for (const auto& t : v)
    out.append(py::make_tuple(t.name, dtype_name(t.dtype), t.shape, t.dim_names));
  return out;
}

}  // namespace

// A numpy array that owns its pool block: the block returns to the pool when
// the array is garbage-collected. No copy.
py::array to_numpy(Tensor&& t) {
  auto* block = new PoolBlock(std::move(t.block));
  py::capsule owner(block, [](void* p) { delete static_cast<PoolBlock*>(p); });
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  return py::array(numpy_dtype(t.dtype), shape, block->data(), owner);
}

void bind_model(py::module_& m) {
  m.attr("MAX_SESSION_THREADS") = kMaxSessionThreads;
  py::class_<SessionOptions>(m, "SessionOptions")
      .def(py::init<>())
      .def_readwrite("intra_threads", &SessionOptions::intra_threads)
      .def_readwrite("inter_threads", &SessionOptions::inter_threads)
      .def_readwrite("parallel", &SessionOptions::parallel)
      .def_property(
          "optimization", [](const SessionOptions& o) { return static_cast<int>(o.optimization); },
          [](SessionOptions& o, int v) {
            if (v != 0 && v != 1 && v != 2 && v != 99)
              throw Error(
                  StatusCode::kInvalidArgument,
                  "graph optimisation level must be 0, 1, 2 or 99, got " + std::to_string(v));
            o.optimization = static_cast<GraphOptimization>(v);
          })
      .def_readwrite("allow_spinning", &SessionOptions::allow_spinning)
      .def_readwrite("memory_arena", &SessionOptions::memory_arena)
      .def_readwrite("memory_pattern", &SessionOptions::memory_pattern)
      .def_readwrite("shared_arena", &SessionOptions::shared_arena)
      .def_readwrite("shrink_arena", &SessionOptions::shrink_arena)
      .def_readwrite("optimized_model_path", &SessionOptions::optimized_model_path)
      .def_readwrite("arm64_bf16_fastmath", &SessionOptions::arm64_bf16_fastmath);

  py::class_<MemoryPool, std::shared_ptr<MemoryPool>>(m, "MemoryPool")
      .def(py::init([](std::size_t cap) { return MemoryPool::create(cap); }),
           py::arg("cap_bytes") = 0)
      .def("stats",
           [](const MemoryPool& p) {
             PoolStats s = p.stats();
             return py::dict(py::arg("reserved_bytes") = s.reserved_bytes,
                             py::arg("in_use_bytes") = s.in_use_bytes,
                             py::arg("high_water_bytes") = s.high_water_bytes,
                             py::arg("cap_bytes") = s.cap_bytes, py::arg("hits") = s.hits,
                             py::arg("misses") = s.misses, py::arg("blocks") = s.blocks);
           })
      .def("set_cap", &MemoryPool::set_cap)
      .def("trim", &MemoryPool::trim)
      .def("reset_counters", &MemoryPool::reset_counters);

  py::class_<Model, std::shared_ptr<Model>>(m, "Model")
      .def_static(
          "from_file",
          [](const std::string& path, const SessionOptions& o, std::shared_ptr<MemoryPool> pool) {
            py::gil_scoped_release nogil;
            return Model::from_file(path, o, std::move(pool));
          },
          py::arg("path"), py::arg("options"), py::arg("pool") = nullptr)
      .def_static(
          "from_bytes",
          [](py::buffer data, const SessionOptions& o, std::shared_ptr<MemoryPool> pool,
             const std::string& name) {
            py::buffer_info info = edgeocr::python::contiguous_buffer(data, name.c_str());
            const void* ptr = info.ptr;
            std::size_t size = static_cast<std::size_t>(info.size * info.itemsize);
            py::gil_scoped_release nogil;
            return Model::from_bytes(ptr, size, o, std::move(pool), name);
          },
          py::arg("data"), py::arg("options"), py::arg("pool") = nullptr,
          py::arg("name") = "<bytes>")
      .def_property_readonly("inputs", [](const Model& m) { return infos(m.inputs()); })
      .def_property_readonly("outputs", [](const Model& m) { return infos(m.outputs()); })
      .def_property_readonly("metadata", &Model::metadata)
      .def_property_readonly("name", &Model::name)
      .def_property_readonly("pool", &Model::pool)
      // arrays: C-contiguous, in declared input order (the Python layer converts).
      .def("run", [](const Model& model, const std::vector<py::array>& arrays) {
        std::vector<TensorView> views;
        views.reserve(arrays.size());
        for (const auto& a : arrays) {
          if (!(a.flags() & py::array::c_style))
            throw Error(StatusCode::kInvalidArgument, "input arrays must be C-contiguous");
          TensorView v;
          v.data = a.data();
          v.dtype = dtype_of(a);
          v.shape.assign(a.shape(), a.shape() + a.ndim());
          views.push_back(std::move(v));
        }
        std::vector<Tensor> outs;
        {
          py::gil_scoped_release nogil;
          outs = model.run(views);
        }
        py::list result;
        for (auto& t : outs) result.append(to_numpy(std::move(t)));
        return result;
      });
}
