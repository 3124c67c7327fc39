// xpose._core: the C API under nanobind. Arrays arrive as nb::ndarray (DLPack, or the buffer
// protocol for numpy), so every array library reaches the same code; dtype names, framework
// allocation and stream choice live in the pure-Python layer (python/xpose/__init__.py), which
// hands this module element types, shapes and strides already checked.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/complex.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#ifdef XPOSE_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "xpose/xpose.h"

namespace nb = nanobind;

namespace {

using Shape = std::vector<int64_t>;
using Strides = std::optional<std::vector<int64_t>>;

// DLPack device types (dlpack.h): the ones a plan of each backend can use.
constexpr int kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13;

// A failed C call: its status and xpose_last_error(), read on the calling thread before anything
// else can overwrite it. The translator below turns it into ValueError or xpose.Error.
struct Failure {
  xpose_status_t status;
  std::string message;
};

void check(xpose_status_t status) {
  if (status != XPOSE_SUCCESS) throw Failure{status, xpose_last_error()};
}

[[noreturn]] void bad_value(const std::string& message) { throw nb::value_error(message.c_str()); }

// xpose.Error: a RuntimeError whose instances carry the C status as `status`. Created once and
// kept for the interpreter's life (module state would outlive nothing here).
PyObject* error_type = nullptr;

void translate(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const Failure& f) {
    if (f.status == XPOSE_ERROR_INVALID_ARGUMENT) {
      PyErr_SetString(PyExc_ValueError, f.message.c_str());
      return;
    }
    nb::object exc = nb::handle(error_type)(nb::str(f.message.c_str()));
    nb::setattr(exc, "status", nb::int_(static_cast<int>(f.status)));
    PyErr_SetObject(error_type, exc.ptr());
  }
}

// The CUDA device a plan for "the current device" (-1) runs on, so that arrays of another one are
// refused before any kernel sees them.
int resolve_device(int backend, int device) {
#ifdef XPOSE_HAVE_CUDA
  if (backend != XPOSE_BACKEND_CPU && device < 0 && cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    device = 0;  // no usable device: plan creation reports it
  }
#else
  (void)backend;
#endif
  return device;
}

xpose_options_t options_for(int backend, int device, int planning) {
  xpose_options_t o;
  xpose_options_init(&o);
  o.layout = XPOSE_ROW_MAJOR;
  o.backend = static_cast<xpose_backend_t>(backend);
  o.planning = static_cast<xpose_planning_t>(planning);
  o.device = device;
  return o;
}

Shape permuted(const Shape& shape, const std::vector<int>& axes) {
  if (axes.size() != shape.size())
    bad_value("axes has " + std::to_string(axes.size()) + " entries for an array of " +
              std::to_string(shape.size()) + " dimensions");
  Shape out(shape.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] < 0 || static_cast<size_t>(axes[i]) >= shape.size())
      bad_value("axes[" + std::to_string(i) + "] = " + std::to_string(axes[i]) +
                " is out of range for " + std::to_string(shape.size()) + " dimensions");
    out[i] = shape[static_cast<size_t>(axes[i])];
  }
  return out;
}

Shape dense_strides(const Shape& shape) {
  Shape s(shape.size());
  int64_t step = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    s[i] = step;
    step *= std::max<int64_t>(shape[i], 1);
  }
  return s;
}

// Lowest and one-past-highest byte offsets an array reaches from its data pointer.
std::pair<int64_t, int64_t> reach(const Shape& shape, const Shape& strides, size_t itemsize) {
  int64_t lo = 0, hi = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) return {0, 0};
    const int64_t span = (shape[i] - 1) * strides[i];
    (span < 0 ? lo : hi) += span;
  }
  return {lo * static_cast<int64_t>(itemsize), (hi + 1) * static_cast<int64_t>(itemsize)};
}

// What a plan was made for, on one side (input or output): the array it is given must match.
struct Side {
  Shape shape, strides;  // strides in elements, per dimension of this side
  size_t itemsize = 0;
  const char* name = "";

  template <typename Array>
  void match(const Array& a, int device_type, int device_id) const {
    if (a.ndim() != shape.size())
      bad_value(std::string(name) + " has " + std::to_string(a.ndim()) +
                " dimensions, the plan " + std::to_string(shape.size()));
    const bool empty = std::find(shape.begin(), shape.end(), 0) != shape.end();
    for (size_t i = 0; i < shape.size(); ++i)
      if (static_cast<int64_t>(a.shape(i)) != shape[i])
        bad_value(std::string(name) + ".shape[" + std::to_string(i) + "] = " +
                  std::to_string(a.shape(i)) + ", the plan's is " + std::to_string(shape[i]));
    for (size_t i = 0; i < shape.size(); ++i)
      if (!empty && shape[i] > 1 && a.stride(i) != strides[i])
        bad_value(std::string(name) + " stride " + std::to_string(i) + " is " +
                  std::to_string(a.stride(i)) + " elements, the plan's is " +
                  std::to_string(strides[i]));
    if (a.itemsize() != itemsize)
      throw nb::type_error((std::string(name) + " has " + std::to_string(a.itemsize()) +
                            "-byte elements, the plan " + std::to_string(itemsize))
                               .c_str());
    const int dt = a.device_type();
    const bool ok = device_type == kDLCPU
                        ? dt == kDLCPU || dt == kDLCUDAHost
                        : (dt == kDLCUDA || dt == kDLCUDAManaged) && a.device_id() == device_id;
    if (!ok)
      bad_value(std::string(name) + " is on DLPack device (" + std::to_string(dt) + ", " +
                std::to_string(a.device_id()) + "), the plan's is (" +
                std::to_string(device_type) + ", " + std::to_string(device_id) + ")");
  }
};

// An array as execute() sees it: imported through DLPack or the buffer protocol (nb::ndarray,
// which holds the exporter's reference), or given as the tuple (data pointer, shape, strides in
// elements, itemsize, DLPack device type, device ordinal) that python/xpose/_arrays.py builds
// for PyTorch tensors, whose __dlpack__ costs microseconds a call. The ndarray interface
// (ndim(), shape(i), ...) so that Side::match takes either.
class View {
 public:
  View(nb::handle obj, const char* what, bool writable) {
    if (PyTuple_CheckExact(obj.ptr())) {
      from_tuple(nb::borrow<nb::tuple>(obj), what);
    } else if (writable) {
      from_array(rw_ = cast<nb::ndarray<>>(obj, what, " (writable)"));
    } else {
      from_array(ro_ = cast<nb::ndarray<nb::ro>>(obj, what, ""));
    }
  }
  size_t ndim() const { return ndim_; }
  int64_t shape(size_t i) const { return shape_[i]; }
  int64_t stride(size_t i) const { return strides_[i]; }
  size_t itemsize() const { return itemsize_; }
  int device_type() const { return device_type_; }
  int device_id() const { return device_id_; }
  void* data() const { return data_; }

 private:
  template <typename Array>
  static Array cast(nb::handle obj, const char* what, const char* how) {
    Array a;
    if (!nb::try_cast(obj, a, /*convert=*/false))
      throw nb::type_error((std::string(what) + " is not an array xpose can read" + how +
                            " through DLPack or the buffer protocol")
                               .c_str());
    return a;
  }

  template <typename Array>
  void from_array(const Array& a) {
    set_rank(a.ndim());
    for (size_t i = 0; i < ndim_; ++i) shape_[i] = static_cast<int64_t>(a.shape(i));
    for (size_t i = 0; i < ndim_; ++i) strides_[i] = a.stride(i);
    data_ = const_cast<void*>(static_cast<const void*>(a.data()));
    itemsize_ = a.itemsize();
    device_type_ = a.device_type();
    device_id_ = a.device_id();
  }

  void from_tuple(nb::tuple t, const char* what) {
    if (t.size() != 6)
      throw nb::type_error((std::string(what) + ": a raw view has 6 entries").c_str());
    const nb::tuple shape = nb::cast<nb::tuple>(t[1]), strides = nb::cast<nb::tuple>(t[2]);
    set_rank(shape.size());
    if (strides.size() != ndim_) bad_value(std::string(what) + ": strides do not match shape");
    for (size_t i = 0; i < ndim_; ++i) shape_[i] = nb::cast<int64_t>(shape[i]);
    for (size_t i = 0; i < ndim_; ++i) strides_[i] = nb::cast<int64_t>(strides[i]);
    data_ = reinterpret_cast<void*>(nb::cast<uintptr_t>(t[0]));
    itemsize_ = nb::cast<size_t>(t[3]);
    device_type_ = nb::cast<int>(t[4]);
    device_id_ = nb::cast<int>(t[5]);
  }

  void set_rank(size_t ndim) {
    if (ndim > XPOSE_MAX_RANK) bad_value("more than 32 dimensions");
    ndim_ = ndim;
  }

  nb::ndarray<> rw_;
  nb::ndarray<nb::ro> ro_;
  void* data_ = nullptr;
  size_t ndim_ = 0, itemsize_ = 0;
  int64_t shape_[XPOSE_MAX_RANK], strides_[XPOSE_MAX_RANK];
  int device_type_ = 0, device_id_ = 0;
};

class Plan {
 public:
  Plan(const Shape& shape, const std::vector<int>& axes, int in_type, int out_type,
       size_t in_size, size_t out_size, const Strides& in_strides, const Strides& out_strides,
       std::complex<double> alpha, std::complex<double> beta, int backend, int device,
       int planning)
      : device_type_(backend == XPOSE_BACKEND_CPU ? kDLCPU : kDLCUDA),
        device_(resolve_device(backend, device)) {
    in_ = {shape, in_strides.value_or(dense_strides(shape)), in_size, "x"};
    const Shape out_shape = permuted(shape, axes);
    out_ = {out_shape, out_strides.value_or(dense_strides(out_shape)), out_size, "out"};
    if (in_strides && in_strides->size() != shape.size())
      bad_value("x has " + std::to_string(in_strides->size()) + " strides for " +
                std::to_string(shape.size()) + " dimensions");
    if (out_strides && out_strides->size() != shape.size())
      bad_value("out has " + std::to_string(out_strides->size()) + " strides for " +
                std::to_string(shape.size()) + " dimensions");
    const xpose_options_t o = options_for(backend, device_, planning);
    const bool plain = in_type == XPOSE_TYPE_BYTES && out_type == XPOSE_TYPE_BYTES &&
                       !in_strides && !out_strides && alpha == 1.0 && beta == 0.0;
    xpose_desc_t desc;
    xpose_desc_init(&desc);
    desc.in_type = static_cast<xpose_type_t>(in_type);
    desc.out_type = static_cast<xpose_type_t>(out_type);
    desc.in_strides = in_strides ? in_strides->data() : nullptr;
    desc.out_strides = out_strides ? out_strides->data() : nullptr;
    desc.alpha[0] = alpha.real(), desc.alpha[1] = alpha.imag();
    desc.beta[0] = beta.real(), desc.beta[1] = beta.imag();
    xpose_status_t status;
    {
      nb::gil_scoped_release release;
      status = xpose_plan_create_ex(&plan_, static_cast<int>(shape.size()), shape.data(),
                                    axes.data(), in_size, plain ? nullptr : &desc, &o);
    }
    check(status);
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() { xpose_plan_destroy(plan_); }

  // Checks both arrays against the plan (shape, strides, element size, device, overlap), then
  // enqueues (CUDA) or runs (CPU) with the GIL released.
  void execute(nb::handle x, nb::handle y, uintptr_t stream) const {
    const View in(x, "x", false), out(y, "out", true);
    in_.match(in, device_type_, device_);
    out_.match(out, device_type_, device_);
    const auto [ilo, ihi] = reach(in_.shape, in_.strides, in_.itemsize);
    const auto [olo, ohi] = reach(out_.shape, out_.strides, out_.itemsize);
    const auto ib = reinterpret_cast<intptr_t>(in.data());
    const auto ob = reinterpret_cast<intptr_t>(out.data());
    if (ihi > ilo && ohi > olo && ib + ilo < ob + ohi && ob + olo < ib + ihi)
      bad_value("out overlaps x (out-of-place transposition; transpose_inplace works in place)");
    xpose_status_t status;
    {
      nb::gil_scoped_release release;
      status = xpose_execute(plan_, in.data(), out.data(), reinterpret_cast<void*>(stream));
    }
    check(status);
  }

  // Seconds that `calls` back-to-back xpose_execute calls take on the host (enqueue time on
  // CUDA): the C call's cost, against which tools/py_overhead.py measures Python's.
  double time_execute(nb::handle x, nb::handle y, uintptr_t stream, int calls) const {
    execute(x, y, stream);
    const View in(x, "x", false), out(y, "out", true);
    nb::gil_scoped_release release;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i)
      check(xpose_execute(plan_, in.data(), out.data(), reinterpret_cast<void*>(stream)));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  double predict() const {
    double seconds = 0;
    check(xpose_plan_predict(plan_, &seconds));
    return seconds;
  }

  std::string describe() const {
    std::string text(xpose_plan_describe(plan_, nullptr, 0), '\0');
    xpose_plan_describe(plan_, text.data(), text.size() + 1);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
  }

 private:
  xpose_plan_t plan_ = nullptr;
  Side in_, out_;
  int device_type_, device_;
};

double predict(const Shape& shape, const std::vector<int>& axes, size_t elem_size, int backend,
               int device) {
  permuted(shape, axes);  // the axes' message in Python's words before the library's
  const xpose_options_t o = options_for(backend, device, XPOSE_PLAN_HEURISTIC);
  double seconds = 0;
  check(xpose_predict(static_cast<int>(shape.size()), shape.data(), axes.data(), elem_size, &o,
                      &seconds));
  return seconds;
}

void transpose_inplace(nb::handle obj, const std::vector<int>& axes, int backend, int device,
                       uintptr_t stream) {
  const View x(obj, "x", true);
  Shape shape(x.ndim());
  for (size_t i = 0; i < shape.size(); ++i) shape[i] = static_cast<int64_t>(x.shape(i));
  permuted(shape, axes);
  Side dense{shape, dense_strides(shape), x.itemsize(), "x"};
  dense.match(x, backend == XPOSE_BACKEND_CPU ? kDLCPU : kDLCUDA, device);
  const xpose_options_t o = options_for(backend, device, XPOSE_PLAN_HEURISTIC);
  xpose_status_t status;
  {
    nb::gil_scoped_release release;
    status = xpose_transpose_inplace(static_cast<int>(shape.size()), shape.data(), axes.data(),
                                     x.itemsize(), x.data(), &o, reinterpret_cast<void*>(stream));
  }
  check(status);
}

// An array of a library python/xpose/_arrays.py does not know, as DLPack describes it:
// (shape, strides in elements, type code, bits, on CUDA, device ordinal).
nb::tuple inspect(nb::ndarray<nb::ro> x) {
  Shape shape(x.ndim()), strides(x.ndim());
  for (size_t i = 0; i < shape.size(); ++i) {
    shape[i] = static_cast<int64_t>(x.shape(i));
    strides[i] = x.stride(i);
  }
  const int dt = x.device_type();
  return nb::make_tuple(shape, strides, static_cast<int>(x.dtype().code), x.dtype().bits,
                        dt == kDLCUDA || dt == kDLCUDAManaged, x.device_id());
}

// Waits for `stream` (JAX's results: JAX orders nothing after work it did not enqueue).
void synchronize(uintptr_t stream) {
#ifdef XPOSE_HAVE_CUDA
  cudaError_t err;
  {
    nb::gil_scoped_release release;
    err = cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream));
  }
  if (err != cudaSuccess)
    throw Failure{XPOSE_ERROR_DEVICE, std::string("cudaStreamSynchronize: ") +
                                          cudaGetErrorString(err)};
#else
  (void)stream;
#endif
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "xpose's C API for Python (internal: use the functions of the package xpose)";
  error_type = PyErr_NewExceptionWithDoc(
      "xpose.Error",
      "A failure of the library or the device (a RuntimeError); `status` is the C status "
      "(2 unsupported, 3 out of memory, 4 device, 5 internal) and the message the library's.",
      PyExc_RuntimeError, nullptr);
  m.attr("Error") = nb::handle(error_type);
  nb::register_exception_translator(translate);
  m.attr("HAVE_CUDA") =
#ifdef XPOSE_HAVE_CUDA
      true;
#else
      false;
#endif

  nb::class_<Plan>(m, "Plan")
      .def(nb::init<const Shape&, const std::vector<int>&, int, int, size_t, size_t,
                    const Strides&, const Strides&, std::complex<double>, std::complex<double>,
                    int, int, int>(),
           nb::arg("shape"), nb::arg("axes"), nb::arg("in_type"), nb::arg("out_type"),
           nb::arg("in_size"), nb::arg("out_size"), nb::arg("in_strides").none(),
           nb::arg("out_strides").none(), nb::arg("alpha"), nb::arg("beta"), nb::arg("backend"),
           nb::arg("device"), nb::arg("planning"))
      .def("execute", &Plan::execute, nb::arg("x"), nb::arg("out"), nb::arg("stream"))
      .def("time_execute", &Plan::time_execute, nb::arg("x"), nb::arg("out"), nb::arg("stream"),
           nb::arg("calls"))
      .def("predict", &Plan::predict)
      .def("describe", &Plan::describe);
  m.def("predict", &predict, nb::arg("shape"), nb::arg("axes"), nb::arg("elem_size"),
        nb::arg("backend"), nb::arg("device"));
  m.def("transpose_inplace", &transpose_inplace, nb::arg("x"), nb::arg("axes"),
        nb::arg("backend"), nb::arg("device"), nb::arg("stream"));
  m.def("inspect", &inspect, nb::arg("x").noconvert());
  m.def("synchronize", &synchronize, nb::arg("stream"));
}
