// Transposes a 3D tensor of doubles on the CPU through the C++ API and checks every element.
// Exit status 0 when the result is right.
#include <xpose/xpose.hpp>

#include <cstdio>
#include <vector>

int main() {
  // Row-major (numpy order) tensor a of shape (I, J, K); b = a.transpose(2, 0, 1), shape (K, I, J).
  const int64_t I = 30, J = 40, K = 50;
  std::vector<double> a(I * J * K), b(I * J * K, 0.0);
  for (size_t n = 0; n < a.size(); ++n) a[n] = static_cast<double>(n);

  try {
    const xpose::Plan plan = xpose::make_plan<double>(
        {I, J, K}, {2, 0, 1},
        xpose::Options().with_layout(XPOSE_ROW_MAJOR).with_backend(XPOSE_BACKEND_CPU));
    plan.execute(a.data(), b.data());
    std::printf("%s", plan.describe().c_str());
  } catch (const xpose::Error& e) {
    std::fprintf(stderr, "xpose failed (status %d): %s\n", static_cast<int>(e.status()), e.what());
    return 1;
  }

  long wrong = 0;
  for (int64_t k = 0; k < K; ++k)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t j = 0; j < J; ++j)
        wrong += b[(k * I + i) * J + j] != a[(i * J + j) * K + k];
  std::printf("%s: %ld of %zu elements wrong\n", wrong ? "FAILED" : "ok", wrong, b.size());
  return wrong ? 1 : 0;
}
