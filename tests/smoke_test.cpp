#include <gtest/gtest.h>
#include "xpose/xpose.h"
TEST(Smoke, Transpose2D) {
  int64_t ext[2] = {3, 2};
  int perm[2] = {1, 0};
  float in[6] = {0, 1, 2, 3, 4, 5}, out[6];
  xpose_options_t o; xpose_options_init(&o); o.backend = XPOSE_BACKEND_CPU;
  ASSERT_EQ(xpose_transpose(2, ext, perm, 4, in, out, &o, nullptr), XPOSE_SUCCESS) << xpose_last_error();
  float want[6] = {0, 3, 1, 4, 2, 5};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], want[i]);
}
