"""xpose on GPU arrays of PyTorch, CuPy and JAX (the CUDA backend); skipped without a GPU or
without the library in question. Results are compared byte for byte with the library's own
transposition of random data."""
import os

import pytest

import xpose
from conftest import unsupported_skips

torch = pytest.importorskip("torch")
if not (xpose._core.HAVE_CUDA and torch.cuda.is_available()):
    pytest.skip("no CUDA backend or no GPU", allow_module_level=True)

TORCH_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16",
                "float8_e4m3fn", "float8_e5m2", "float32", "float64", "complex64", "complex128"]
CASES = [((17, 33, 9), (2, 0, 1)), ((64, 64), (1, 0)), ((3, 5, 7, 11, 2), (4, 2, 0, 3, 1)),
         ((1, 1000, 1), (2, 1, 0)), ((), ()), ((0, 5), (1, 0)), ((2, 3, 4, 5, 6, 2), None)]


def gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


def random_tensor(shape, name, g):
    """Random bytes (never all zero) as `name`, floats finite and in range for every type."""
    dt = getattr(torch, name)
    if dt.is_floating_point or dt.is_complex:
        base = torch.float64 if dt.is_complex or dt == torch.float64 else torch.float32
        x = torch.empty(shape, dtype=base, device="cuda").uniform_(-100, 100, generator=g)
        if dt.is_complex:
            x = torch.complex(x, torch.empty_like(x).uniform_(-100, 100, generator=g))
        return x.to(dt)
    if dt == torch.bool:
        return torch.randint(0, 2, shape, device="cuda", generator=g).bool()
    raw = torch.randint(1, 256, tuple(shape) + (dt.itemsize,), dtype=torch.uint8,
                        device="cuda", generator=g)
    return raw.view(dt).reshape(shape)


def same_bytes(a, b):
    """Equal shape, dtype and bytes (torch.equal does no arithmetic on fp8 and compares NaNs as
    bits through a uint8 view)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    a, b = a.contiguous(), b.contiguous()
    return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))


@pytest.mark.parametrize("name", TORCH_DTYPES)
def test_torch_every_dtype(rng, name):
    g = gen(int(rng.integers(1 << 30)))
    for shape, axes in CASES:
        x = random_tensor(shape, name, g)
        y = xpose.transpose(x, axes)
        want = x.permute(list(axes if axes is not None else range(x.dim() - 1, -1, -1)))
        assert isinstance(y, torch.Tensor) and y.device == x.device and y.is_contiguous()
        assert same_bytes(y, want), (shape, axes)


def test_torch_plan_out_and_inplace(rng):
    g = gen(int(rng.integers(1 << 30)))
    p = xpose.Plan((40, 30, 20), (1, 2, 0), torch.float32, device="cuda")
    x = random_tensor((40, 30, 20), "float32", g)
    assert same_bytes(p(x), x.permute(1, 2, 0))
    raw = torch.full((30 * 20 * 40 + 16,), -7.0, device="cuda")
    out = raw[:-16].view(30, 20, 40)
    assert p(x, out) is out and same_bytes(out, x.permute(1, 2, 0))
    assert (raw[-16:] == -7.0).all()
    assert p.predict() > 0 and "cuda" in str(p)
    assert xpose.predict((256, 256, 64), (2, 1, 0), "float32") > 0
    sq = random_tensor((1000, 1000), "float64", g)
    want = sq.t().contiguous()
    assert xpose.transpose_inplace(sq, (1, 0)) is sq and same_bytes(sq, want)
    with pytest.raises(ValueError, match="device"):
        p(x.cpu())
    c = x.cpu().requires_grad_()                 # PyTorch on the CPU backend, autograd on
    assert same_bytes(xpose.transpose(c, (1, 2, 0)), c.detach().permute(1, 2, 0))
    with pytest.raises(ValueError, match="overlaps"):
        xpose.transpose(sq, (1, 0), out=sq)


def test_torch_non_default_stream_ordering(rng):
    """Work queued on a non-default (non-blocking) stream before xpose's call must finish before
    xpose reads: x is rewritten after a long sleep on that stream, so a call that ran on any
    other stream would read the old values."""
    g = gen(int(rng.integers(1 << 30)))
    x = random_tensor((512, 256, 8), "float32", g)
    new = random_tensor((512, 256, 8), "float32", g)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        torch.cuda._sleep(50_000_000)      # ~25 ms of GPU time on s
        x.copy_(new)
        y = xpose.transpose(x, (2, 0, 1))  # the current stream: s
        z = torch.empty_like(y)
    torch.cuda._sleep(0)
    s2 = torch.cuda.Stream()
    s2.wait_stream(s)
    with torch.cuda.stream(s2):
        torch.cuda._sleep(50_000_000)
        x.mul_(2)
    xpose.transpose(x, (2, 0, 1), out=z, stream=s2)   # explicit stream object
    torch.cuda.synchronize()
    assert same_bytes(y, new.permute(2, 0, 1))
    assert same_bytes(z, (new * 2).permute(2, 0, 1))


def test_torch_strided_and_out(rng):
    g = gen(int(rng.integers(1 << 30)))
    base = random_tensor((12, 10, 9, 4), "float32", g)
    x = base[1:11, :, ::2].flip(1)[..., 1]             # sliced, negative stride, a dropped axis
    y = unsupported_skips(xpose.transpose, x, (2, 0, 1))
    assert same_bytes(y, x.permute(2, 0, 1))
    out = torch.full((9, 10, 12), 3.0, device="cuda")[2:7, :, 1:11]   # (5, 10, 10)
    unsupported_skips(xpose.transpose, x, (2, 0, 1), out=out)
    assert same_bytes(out, x.permute(2, 0, 1))


# No float64 -> fp8 here: PyTorch converts it through float32 (two roundings), xpose in one.
@pytest.mark.parametrize("src,dst", [("float32", "bfloat16"), ("float32", "float16"),
                                     ("float16", "float32"), ("bfloat16", "float8_e4m3fn"),
                                     ("float32", "float8_e5m2"), ("complex64", "complex128")])
def test_torch_conversion(rng, src, dst):
    g = gen(int(rng.integers(1 << 30)))
    x = random_tensor((33, 17, 5), src, g)
    y = unsupported_skips(xpose.transpose, x, (2, 0, 1), dtype=getattr(torch, dst))
    assert same_bytes(y, x.permute(2, 0, 1).to(getattr(torch, dst)))


def test_torch_scaling(rng):
    g = gen(int(rng.integers(1 << 30)))
    x = random_tensor((64, 48), "float32", g)
    out = random_tensor((48, 64), "float32", g)
    want = 2 * x.t() + 0.5 * out
    unsupported_skips(xpose.transpose, x, (1, 0), out=out, alpha=2, beta=0.5)
    assert same_bytes(out, want)


def test_cupy(rng):
    cp = pytest.importorskip("cupy")
    x = cp.asarray(rng.standard_normal((30, 20, 10)).astype("float32"))
    y = xpose.transpose(x, (2, 0, 1))
    assert isinstance(y, cp.ndarray) and y.flags.c_contiguous
    assert bool((y == x.transpose(2, 0, 1)).all())
    with cp.cuda.Stream(non_blocking=True):               # CuPy's current stream
        c = cp.asarray(rng.integers(0, 1 << 15, (257, 129)).astype("int16"))
        d = xpose.transpose(c, (1, 0))
        assert bool((d == c.T).all())
    v = x[::2, ::-1]
    w = unsupported_skips(xpose.transpose, v, (1, 2, 0))
    assert bool((w == v.transpose(1, 2, 0)).all())


def test_jax(rng):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    gpus = [d for d in jax.devices() if d.platform == "gpu"]
    if not gpus:
        pytest.skip("JAX sees no GPU")
    for dtype in ("float32", "bfloat16", "int8"):
        x = jax.device_put(jnp.asarray(rng.standard_normal((24, 16, 8)) * 50).astype(dtype),
                           gpus[0])
        y = xpose.transpose(x, (1, 2, 0))
        assert isinstance(y, jax.Array) and y.dtype == x.dtype
        assert bool(jnp.array_equal(y, jnp.transpose(x, (1, 2, 0))))
    with pytest.raises(TypeError):
        xpose.transpose_inplace(x, (0, 2, 1))
    with pytest.raises(TypeError, match="immutable"):
        xpose.transpose(x, (0, 1, 2), out=jnp.empty_like(x))
