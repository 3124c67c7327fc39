"""xpose: tensor transposition at memory-copy speed, for numpy, PyTorch, CuPy and JAX arrays.

    >>> import numpy as np, xpose
    >>> x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    >>> y = xpose.transpose(x, (2, 0, 1))          # numpy.transpose(x, (2, 0, 1)), C-contiguous
    >>> bool((y == np.transpose(x, (2, 0, 1))).all())
    True

Arrays travel through DLPack (numpy through its buffer), so results are arrays of the caller's
library on the caller's device, made without a copy: numpy and JAX arrays on the CPU backend,
PyTorch, CuPy and JAX arrays on the CUDA backend, anything else with __dlpack__ with out=.
Shapes are row-major and `axes` are numpy.transpose's: output axis i is input axis axes[i].
On CUDA the work is enqueued on the array library's current stream (or `stream=`) and the call
returns; JAX results are waited for (JAX orders nothing after work it did not enqueue).

Errors: ValueError (axes, shapes, strides, overlapping out), TypeError (objects, dtypes),
xpose.Error (a RuntimeError: the library or the device failed; `.status` is the C status).
"""
from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Tuple, Union

from . import _arrays, _core
from ._arrays import COMPLEX, FLOATS, INTEGERS, TYPES, adapter, dtype_name

Error = _core.Error
Error.__module__ = "xpose"

# C statuses carried by Error.status (include/xpose/xpose.h).
UNSUPPORTED, OUT_OF_MEMORY, DEVICE, INTERNAL = 2, 3, 4, 5

__all__ = ["transpose", "transpose_inplace", "Plan", "predict", "Error", "UNSUPPORTED",
           "OUT_OF_MEMORY", "DEVICE", "INTERNAL"]
__version__ = "0.1.0"

_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2}
_PLANNING = {"heuristic": 0, "measure": 1}
_CACHE_SIZE = 512
_plans: dict = {}


def _choice(table, value, what):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{what} = {value!r} is not one of {', '.join(table)}") from None


def _axes(axes, rank):
    if axes is None:
        return tuple(range(rank - 1, -1, -1))
    try:
        axes = tuple(operator.index(a) for a in axes)
    except TypeError:
        raise TypeError(f"axes must be a sequence of ints, not {axes!r}") from None
    if len(axes) != rank or sorted(a % rank if rank else a for a in axes) != list(range(rank)):
        raise ValueError(f"axes {axes} is not a permutation of {rank} dimensions")
    return tuple(a % rank for a in axes)  # numpy takes negative axes


def _scalars(in_name, out_name, alpha, beta):
    """Checks a conversion and alpha/beta as the C API takes them (TypeError otherwise)."""
    if in_name != out_name and not ({in_name, out_name} <= FLOATS or
                                    {in_name, out_name} <= COMPLEX):
        raise TypeError(f"no conversion from {in_name} to {out_name}: xpose converts between "
                        "floating types and between complex types only")
    alpha, beta = complex(alpha), complex(beta)
    if alpha == 1 and beta == 0:
        return alpha, beta
    if in_name == "bool":
        raise TypeError("bool arrays take no alpha or beta")
    if in_name in INTEGERS and (alpha != 1 or beta not in (0, 1)):
        raise TypeError(f"{in_name} arrays take alpha = 1 and beta = 0 or 1 only (got alpha = "
                        f"{alpha}, beta = {beta})")
    if in_name in FLOATS and (alpha.imag or beta.imag):
        raise TypeError(f"{in_name} arrays take real alpha and beta (got {alpha}, {beta})")
    return alpha, beta


def _stream(stream, a, device):
    """The CUDA stream handle of `stream`, or a's current stream on `device`."""
    if stream is None:
        return a.stream(device)
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr"):
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return handle
    raise TypeError(f"stream must be an int or have cuda_stream or ptr, not "
                    f"{type(stream).__name__}")


def _type_code(name, typed):
    return TYPES[name][0] if typed else 0


def _make_plan(shape, axes, in_name, out_name, in_strides, out_strides, alpha, beta, backend,
               device, planning):
    typed = in_name != out_name or alpha != 1 or beta != 0
    return _core.Plan(list(shape), list(axes), _type_code(in_name, typed),
                      _type_code(out_name, typed), TYPES[in_name][1], TYPES[out_name][1],
                      None if in_strides is None else list(in_strides),
                      None if out_strides is None else list(out_strides),
                      alpha, beta, backend, device, planning)


def _out_adapter(out):
    oa = adapter(out, "out")
    if oa.name == "jax":
        raise TypeError("out is a JAX array, and JAX arrays are immutable: leave out=None")
    return oa


def _backend(backend, info, what="x"):
    code = _choice(_BACKENDS, backend, "backend")
    want = 2 if info.cuda else 1
    if code not in (0, want):
        raise ValueError(f"backend = {backend!r} for {what} on the "
                         f"{'GPU' if info.cuda else 'CPU'}")
    return want


def transpose(x: Any, axes: Optional[Sequence[int]] = None, *, out: Any = None,
              dtype: Any = None, alpha: complex = 1, beta: complex = 0, stream: Any = None,
              backend: str = "auto", planning: str = "heuristic") -> Any:
    """Permutes the axes of `x` like numpy.transpose(x, axes), into a new C-contiguous array of
    x's library and device or into `out`, and returns it.

    x        an array (numpy, PyTorch, CuPy, JAX, anything with __dlpack__) of any strides.
    axes     output axis i is input axis axes[i]; None reverses the axes.
    out      the result, of any strides, shape [x.shape[a] for a in axes], on x's device.
    dtype    the result's dtype when out is None (default x's): a conversion between floating
             types (float8_e4m3fn, float8_e5m2, float16, bfloat16, float32, float64) or
             between complex64 and complex128, rounding to nearest even.
    alpha, beta   out = alpha * x' + beta * out (beta != 0 reads out, so it needs out=).
             Integers take alpha = 1 and beta = 0 or 1 (an addition), bool neither.
    stream   CUDA stream: an int handle or an object with cuda_stream or ptr; by default the
             library's current stream (PyTorch's, CuPy's; the legacy default stream for JAX).
    backend  "auto" (the array's device), "cpu" or "cuda" (which must be the array's).
    planning "heuristic" (the model's choice) or "measure" (times candidates, first call).

    Plans are cached per shape, strides, dtypes and scalars, so repeated calls plan once.
    """
    a = adapter(x)
    info = a.info(x)
    if out is None:
        if beta != 0:
            raise ValueError("beta != 0 reads out: pass out=")
        out_name = info.dtype if dtype is None else dtype_name(dtype)
        out_strides = None
    else:
        oa = _out_adapter(out)
        oinfo = oa.info(out, "out")
        out_name, out_strides = oinfo.dtype, oinfo.strides
        if dtype is not None and dtype_name(dtype) != out_name:
            raise TypeError(f"dtype {dtype_name(dtype)} but out is {out_name}")
    # The arguments as given are the key: everything is checked once, when the plan is made
    # (shapes, devices and overlap of the arrays themselves on every call, by the extension).
    key = (info, None if axes is None else tuple(axes), out_name, out_strides, alpha, beta,
           backend, planning)
    entry = _plans.get(key)
    if entry is None:
        if len(_plans) >= _CACHE_SIZE:
            _plans.clear()  # plans are cheap to remake; a bounded cache needs no LRU here
        entry = _plans[key] = _new_plan(info, axes, out_name, out_strides, alpha, beta,
                                        backend, planning)
    plan, out_shape = entry
    s = _stream(stream, a, info.device) if info.cuda else 0
    if out is None:
        out = a.empty(out_shape, out_name, x)
        oa = a
    plan.execute(a.export(x), oa.export(out, writable=True), s)
    return oa.finish(out, s)


def _new_plan(info, axes, out_name, out_strides, alpha, beta, backend, planning):
    """(plan, result shape) for transpose's arguments, all checked."""
    axes = _axes(axes, len(info.shape))
    be = _backend(backend, info)
    alpha, beta = _scalars(info.dtype, out_name, alpha, beta)
    plan = _make_plan(info.shape, axes, info.dtype, out_name, info.strides, out_strides, alpha,
                      beta, be, info.device, _choice(_PLANNING, planning, "planning"))
    return plan, tuple(info.shape[i] for i in axes)


def _device(device) -> Tuple[bool, int]:
    """(on CUDA, ordinal) of "cpu", "cuda", "cuda:N", an int ordinal or a torch.device."""
    if isinstance(device, int):
        return True, device
    text = str(device)
    if text == "cpu":
        return False, -1
    if text == "cuda":
        return True, -1
    kind, _, index = text.partition(":")
    if kind == "cuda" and index.isdigit():
        return True, int(index)
    raise ValueError(f"device = {device!r} is not 'cpu', 'cuda', 'cuda:N' or an ordinal")


class Plan:
    """A transposition planned once for dense (C-contiguous) arrays of one shape, dtype and
    device, executed as often as wanted: p(x) returns the result, p(x, out) fills out.

        p = xpose.Plan((64, 32, 16), (2, 0, 1), "float32", device="cuda")
        y = p(x)                 # a new array of x's library, shape (16, 64, 32)
        p(x, out=y, stream=s)    # into y, enqueued on s
        p.predict()              # the model's time in seconds; str(p) describes the plan

    out_dtype converts (as transpose's dtype=); alpha and beta scale (out = alpha * x' +
    beta * out). planning is "heuristic" or "measure".
    """

    def __init__(self, shape: Sequence[int], axes: Optional[Sequence[int]], dtype: Any, *,
                 device: Union[str, int, Any] = "cuda", out_dtype: Any = None,
                 alpha: complex = 1, beta: complex = 0, planning: str = "heuristic"):
        self.shape = tuple(int(n) for n in shape)
        self.axes = _axes(axes, len(self.shape))
        self.dtype = dtype_name(dtype)
        self.out_dtype = self.dtype if out_dtype is None else dtype_name(out_dtype)
        self.out_shape = tuple(self.shape[i] for i in self.axes)
        self.alpha, self.beta = _scalars(self.dtype, self.out_dtype, alpha, beta)
        cuda, index = _device(device)
        self._cuda = cuda
        self._plan = _make_plan(self.shape, self.axes, self.dtype, self.out_dtype, None, None,
                                self.alpha, self.beta, 2 if cuda else 1, index,
                                _choice(_PLANNING, planning, "planning"))

    def __call__(self, x: Any, out: Any = None, stream: Any = None) -> Any:
        """Transposes x (C-contiguous, the plan's shape and dtype) into out (C-contiguous) or
        a new array, on `stream` (default: the library's current stream)."""
        a = adapter(x)
        if a.dtype_of(x) != self.dtype:
            raise TypeError(f"x is {a.dtype_of(x)}, the plan's dtype {self.dtype}")
        if out is None:
            if self.beta != 0:
                raise ValueError("beta != 0 reads out: pass out=")
            out = a.empty(self.out_shape, self.out_dtype, x)
            oa = a
        else:
            oa = _out_adapter(out)
            if oa.dtype_of(out) != self.out_dtype:
                raise TypeError(f"out is {oa.dtype_of(out)}, the plan's out_dtype "
                                f"{self.out_dtype}")
        # Shapes, strides and devices: checked by the extension.
        s = _stream(stream, a, a.device_of(x)) if self._cuda else 0
        self._plan.execute(a.export(x), oa.export(out, writable=True), s)
        return oa.finish(out, s)

    def predict(self) -> float:
        """The performance model's execution time in seconds (xpose.Error if it has none)."""
        return self._plan.predict()

    def __str__(self) -> str:
        return self._plan.describe()

    def __repr__(self) -> str:
        return (f"xpose.Plan({self.shape}, {self.axes}, {self.dtype!r}, out_dtype="
                f"{self.out_dtype!r})")


def predict(shape: Sequence[int], axes: Optional[Sequence[int]], dtype: Any, *,
            device: Union[str, int, Any] = "cuda") -> float:
    """The model's time in seconds for transposing a dense array (as Plan(...).predict(),
    through the library's plan cache)."""
    shape = [int(n) for n in shape]
    cuda, index = _device(device)
    return _core.predict(shape, list(_axes(axes, len(shape))), TYPES[dtype_name(dtype)][1],
                         2 if cuda else 1, index)


def transpose_inplace(x: Any, axes: Sequence[int], *, stream: Any = None) -> Any:
    """Transposes the C-contiguous array x in place and returns it: the cases the library does
    in place (square matrices and batches of them, 3D swaps of two equal extents), whose result
    has x's shape; other requests raise xpose.Error (status UNSUPPORTED) and leave x as it was.
    JAX arrays are immutable: TypeError."""
    a = adapter(x)
    if a.name == "jax":
        raise TypeError("JAX arrays are immutable: use xpose.transpose")
    info = a.info(x)
    if info.strides is not None:
        raise ValueError("transpose_inplace needs a C-contiguous array")
    axes = _axes(axes, len(info.shape))
    _core.transpose_inplace(a.export(x, writable=True), list(axes), 2 if info.cuda else 1,
                            info.device, _stream(stream, a, info.device) if info.cuda else 0)
    return x
