// libFuzzer target: xpose_transpose_inplace on the CPU backend. Small requests, half of them
// built to swap two equal dimensions (the supported kind), are run on a guarded buffer and
// checked against the naive out-of-place reference; an unsupported or invalid request must leave
// the data untouched. Hostile requests (tests/fuzz/hostile_args.hpp) are made with data == NULL,
// so that only validation and classification run, however large the tensor.
#include <string>
#include <vector>

#include "reference.hpp"
#include "small_requests.hpp"

using namespace xpose_fuzz;

namespace {

// A swap of two equal dimensions a < b of a small tensor, the other dims staying.
Request swap_request(FuzzedDataProvider& in) {
  Request r = small_request(in);
  if (r.rank < 2) return r;
  const int a = in.ConsumeIntegralInRange<int>(0, r.rank - 2), b = in.ConsumeIntegralInRange<int>(a + 1, r.rank - 1);
  r.extents[b] = r.extents[a];
  int64_t volume = 1;
  for (int k = 0; k < r.rank; ++k) volume *= r.extents[k];
  for (int k = 0; k < r.rank && volume > kMaxVolume; ++k)
    if (k != a && k != b && r.extents[k] > 1) {
      volume /= r.extents[k];
      r.extents[k] = 1;
    }
  if (volume > kMaxVolume) r.extents[a] = r.extents[b] = 1;
  for (int k = 0; k < r.rank; ++k) r.perm[k] = k;
  std::swap(r.perm[a], r.perm[b]);
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  xpose_options_t o;
  xpose_options_init(&o);
  o.backend = XPOSE_BACKEND_CPU;
  o.layout = in.ConsumeBool() ? XPOSE_ROW_MAJOR : XPOSE_COL_MAJOR;
  o.num_threads = in.ConsumeIntegralInRange<int>(0, 3);
  if (in.ConsumeIntegralInRange<int>(0, 3) == 0) {
    const Request h = hostile_request(in);
    const xpose_options_t ho = hostile_options(in, XPOSE_BACKEND_CPU);
    check_status(xpose_transpose_inplace(h.rank, h.extents_ptr(), h.perm_ptr(), h.elem_size,
                                         nullptr, &ho, nullptr));
    return 0;
  }
  const Request r = in.ConsumeBool() ? swap_request(in) : small_request(in);
  const std::vector<int64_t> extents(r.extents.begin(), r.extents.begin() + r.rank);
  const std::vector<int> perm(r.perm.begin(), r.perm.begin() + r.rank);
  const int64_t volume = xpose_test::volume_of(extents);
  const size_t bytes = static_cast<size_t>(volume) * r.elem_size;
  xpose_test::GuardedBuffer buf(bytes, in.ConsumeIntegralInRange<int>(0, 15)), before(bytes), want(bytes);
  xpose_test::fill_random(buf.data(), bytes, in.ConsumeIntegral<uint64_t>());
  std::memcpy(before.data(), buf.data(), bytes);
  xpose_test::reference_transpose(extents, perm, r.elem_size, o.layout, buf.data(), want.data());

  const xpose_status_t s = xpose_transpose_inplace(r.rank, r.extents.data(), r.perm.data(),
                                                   r.elem_size, buf.data(), &o, nullptr);
  check_status(s);
  require(buf.guards_intact(), "nothing written outside the data");
  if (s != XPOSE_SUCCESS) {
    require(s == XPOSE_ERROR_UNSUPPORTED, "a valid request is supported or unsupported");
    require(std::memcmp(buf.data(), before.data(), bytes) == 0, "rejected: data untouched");
    return 0;
  }
  require(xpose_test::first_mismatch(buf.data(), want.data(), volume, r.elem_size) < 0,
          "the result equals the out-of-place reference");
  return 0;
}
