"""What xpose needs to know of an array of each library: shape, element strides, dtype name,
device, how to allocate a result beside it, its current CUDA stream, and the object to hand the
extension (which reads data pointers through DLPack or the buffer protocol).

numpy, PyTorch, CuPy and JAX are recognised by the module of their array type and never imported
here unless an array of theirs arrives; anything else with __dlpack__ (or the buffer protocol)
goes through the extension's DLPack reader and gets numpy results on the CPU.
"""
from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

from . import _core

# xpose_type_t codes (include/xpose/xpose.h) and element sizes, by numpy-style dtype name. bool
# travels as opaque bytes: it has no arithmetic, so it takes no alpha or beta.
TYPES = {
    "bool": (0, 1), "int8": (1, 1), "uint8": (2, 1), "int16": (3, 2), "uint16": (4, 2),
    "int32": (5, 4), "uint32": (6, 4), "int64": (7, 8), "uint64": (8, 8),
    "float8_e4m3fn": (9, 1), "float8_e5m2": (10, 1), "float16": (11, 2), "bfloat16": (12, 2),
    "float32": (13, 4), "float64": (14, 8), "complex64": (15, 8), "complex128": (16, 16),
}
FLOATS = {"float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "float32", "float64"}
COMPLEX = {"complex64", "complex128"}
INTEGERS = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"}
# Same-size unsigned integers: numpy exports ml_dtypes' bfloat16 and fp8 through neither DLPack
# nor a buffer format nanobind reads, so those arrays travel as a view of these.
UINT_OF_SIZE = {1: "uint8", 2: "uint16", 4: "uint32", 8: "uint64"}

# DLPack (type code, bits) -> dtype name, for arrays of libraries this module does not know.
DLPACK_NAMES = {
    (6, 8): "bool", (0, 8): "int8", (1, 8): "uint8", (0, 16): "int16", (1, 16): "uint16",
    (0, 32): "int32", (1, 32): "uint32", (0, 64): "int64", (1, 64): "uint64",
    (10, 8): "float8_e4m3fn", (12, 8): "float8_e5m2", (2, 16): "float16", (4, 16): "bfloat16",
    (2, 32): "float32", (2, 64): "float64", (5, 64): "complex64", (5, 128): "complex128",
}


class Info(NamedTuple):
    """An array as a plan sees it: strides in elements (None when C-contiguous)."""
    shape: Tuple[int, ...]
    strides: Optional[Tuple[int, ...]]
    dtype: str
    cuda: bool
    device: int  # CUDA ordinal, or -1 on the CPU


_names: dict = {}


def dtype_name(dtype: Any) -> str:
    """The numpy-style name of a dtype given as a string, numpy/ml_dtypes/JAX dtype or scalar
    type, or torch.dtype; TypeError for anything else or a dtype xpose does not take."""
    try:
        return _names[dtype]
    except (KeyError, TypeError):
        pass
    if isinstance(dtype, str):
        name = dtype
    elif type(dtype).__module__ == "torch":
        name = str(dtype).replace("torch.", "")
    else:
        try:
            import numpy
            name = numpy.dtype(dtype).name
        except Exception:
            raise TypeError(f"{dtype!r} is not a dtype") from None
    if name not in TYPES:
        raise TypeError(f"dtype {name} is not one of xpose's: {', '.join(TYPES)}")
    try:
        _names[dtype] = name
    except TypeError:  # an unhashable dtype-like object: not cached
        pass
    return name


def element_strides(byte_strides, itemsize, what):
    """Byte strides (numpy, CuPy) in elements; ValueError where one is not a multiple."""
    out = []
    for i, s in enumerate(byte_strides):
        if s % itemsize:
            raise ValueError(f"{what} stride {i} is {s} bytes, not a multiple of its "
                             f"{itemsize}-byte elements")
        out.append(s // itemsize)
    return tuple(out)


class Adapter:
    """The defaults; each library's adapter below overrides what differs."""
    name = ""

    def dtype_of(self, x):
        return dtype_name(x.dtype)

    def device_of(self, x):
        return self.info(x).device

    def export(self, x, writable=False):
        return x

    def stream(self, device):
        return 0

    def finish(self, y, stream):
        return y


class Numpy(Adapter):
    name = "numpy"

    def __init__(self):
        import numpy
        self.np = numpy

    def info(self, x, what="x"):
        strides = None if x.flags.c_contiguous else element_strides(x.strides, x.itemsize, what)
        return Info(x.shape, strides, dtype_name(x.dtype), False, -1)

    def empty(self, shape, dtype, like):
        return self.np.empty(shape, self.dtype(dtype))

    def dtype(self, name):
        if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
            import ml_dtypes
            return getattr(ml_dtypes, name)
        return self.np.dtype(name)

    def export(self, x, writable=False):
        if writable and not x.flags.writeable:
            raise ValueError("out is read-only")
        if x.dtype.isbuiltin != 1:  # ml_dtypes' types (dtype.name would cost a microsecond)
            return x.view(UINT_OF_SIZE[x.itemsize])
        return x

    def device_of(self, x):
        return -1


class Torch(Adapter):
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # no Stream object: faster
        self.stream = raw or (lambda device: torch.cuda.current_stream(device).cuda_stream)

    def info(self, x, what="x"):
        device = x.get_device()  # -1 on the CPU
        return Info(x.shape, None if x.is_contiguous() else x.stride(), dtype_name(x.dtype),
                    device >= 0, device)

    def empty(self, shape, dtype, like):
        return self.torch.empty(shape, dtype=getattr(self.torch, dtype), device=like.device)

    def export(self, x, writable=False):
        # The extension's raw view, not DLPack: PyTorch's __dlpack__ costs several microseconds
        # a call (and refuses tensors that require grad).
        device = x.get_device()
        return (x.data_ptr(), x.shape, x.stride(), x.element_size(), 2 if device >= 0 else 1,
                device)

    def device_of(self, x):
        return x.get_device()


class Cupy(Adapter):
    name = "cupy"

    def __init__(self):
        import cupy
        self.cp = cupy

    def info(self, x, what="x"):
        strides = None if x.flags.c_contiguous else element_strides(x.strides, x.itemsize, what)
        return Info(x.shape, strides, dtype_name(x.dtype), True, x.device.id)

    def empty(self, shape, dtype, like):
        with like.device:
            return self.cp.empty(shape, dtype)

    def export(self, x, writable=False):
        # The extension's raw view, as for PyTorch: CuPy's DLPack export of negative strides
        # reached the extension as huge positive ones (the H100 machine's CuPy, 2026-11-26).
        size = x.itemsize
        return (x.data.ptr, x.shape, tuple(s // size for s in x.strides), size, 2, x.device.id)

    def stream(self, device):
        with self.cp.cuda.Device(device):
            return self.cp.cuda.get_current_stream().ptr

    def device_of(self, x):
        return x.device.id


class Jax(Adapter):
    """JAX arrays are immutable and their work is ordered on JAX's own streams: inputs are
    waited for (block_until_ready), results are fresh arrays (jnp.empty) that xpose fills before
    anyone sees them, on the legacy default stream, which is then waited for."""
    name = "jax"

    def __init__(self):
        import jax
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp

    def info(self, x, what="x"):
        devices = x.devices()
        if len(devices) != 1:
            raise TypeError(f"{what} is sharded over {len(devices)} devices; xpose takes arrays "
                            "of one device")
        dev = next(iter(devices))
        cuda = dev.platform == "gpu"
        return Info(tuple(x.shape), None, dtype_name(x.dtype), cuda,
                    dev.local_hardware_id if cuda else -1)

    def empty(self, shape, dtype, like):
        return self.jnp.empty(shape, dtype, device=next(iter(like.devices())))

    def export(self, x, writable=False):
        x.block_until_ready()
        # An unversioned capsule: JAX marks its versioned ones read-only, and only xpose's own
        # fresh results are ever written.
        return x.__dlpack__() if writable else x

    def finish(self, y, stream):
        _core.synchronize(stream)
        return y


class Generic(Adapter):
    """Any other object with __dlpack__ or the buffer protocol: read through the extension;
    results are numpy arrays on the CPU, and need out= on a GPU."""
    name = "dlpack"

    def info(self, x, what="x"):
        shape, strides, code, bits, cuda, device = _core.inspect(x)
        name = DLPACK_NAMES.get((code, bits))
        if name is None:
            raise TypeError(f"{what} has DLPack type (code {code}, {bits} bits), not one of "
                            "xpose's dtypes")
        dense = strides == _dense(shape)
        return Info(tuple(shape), None if dense else tuple(strides), name, cuda,
                    device if cuda else -1)

    def empty(self, shape, dtype, like):
        if self.info(like).cuda:
            raise TypeError(f"xpose allocates results through numpy, PyTorch, CuPy or JAX, not "
                            f"{type(like).__name__}: pass out=")
        return Numpy().empty(shape, dtype, like)

    def dtype_of(self, x):
        return self.info(x).dtype


def _dense(shape):
    strides, step = [0] * len(shape), 1
    for i in reversed(range(len(shape))):
        strides[i] = step
        step *= max(shape[i], 1)
    return strides


_ADAPTERS = {"numpy": Numpy, "torch": Torch, "cupy": Cupy, "jax": Jax, "jaxlib": Jax}
_by_type: dict = {}


def adapter(x, what="x"):
    """The adapter of x's array library (one instance per array type)."""
    t = type(x)
    a = _by_type.get(t)
    if a is None:
        make = _ADAPTERS.get(t.__module__.partition(".")[0])
        if make is None:
            if not (hasattr(x, "__dlpack__") or _has_buffer(x)):
                raise TypeError(f"{what} is a {t.__name__}, not an array (xpose takes numpy, "
                                "PyTorch, CuPy and JAX arrays and anything with __dlpack__)")
            make = Generic
        a = _by_type[t] = make()
    return a


def _has_buffer(x):
    try:
        memoryview(x)
        return True
    except TypeError:
        return False
