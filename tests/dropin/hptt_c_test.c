/* xpose/hptt.h from C (C11, complex.h): each of the four functions once on a 3x4 sub-matrix of a
 * 5x6 column-major matrix, transposed into a 4x3 sub-matrix of a 6x4 one, with alpha and beta,
 * checked against a naive loop. Exit status 0 when all are right. */
#include <xpose/hptt.h>

#include <complex.h>
#include <stdio.h>

enum { M = 3, N = 4, LDA = 5, LDB = 6 };
static const int perm[2] = {1, 0}, size[2] = {M, N}, outer_a[2] = {LDA, 6}, outer_b[2] = {LDB, 4};

/* Non-zero values that depend on the position and the call. */
static double value(int i, int call) { return 0.5 + (i * 7 + call * 3) % 11 * 0.25; }

int main(void) {
  float fa[LDA * 6], fb[LDB * 4];
  double da[LDA * 6], db[LDB * 4];
  float complex ca[LDA * 6], cb[LDB * 4];
  double complex za[LDA * 6], zb[LDB * 4];
  for (int i = 0; i < LDA * 6; ++i) {
    fa[i] = (float)value(i, 0), da[i] = value(i, 1);
    ca[i] = (float)value(i, 2) + (float)value(i, 3) * I;
    za[i] = value(i, 4) - value(i, 5) * I;
  }
  for (int i = 0; i < LDB * 4; ++i) fb[i] = 1.0f, db[i] = 1.0, cb[i] = 1.0f, zb[i] = 1.0;
  sTensorTranspose(perm, 2, 2.0f, fa, size, outer_a, 0.5f, fb, outer_b, 2, 0);
  dTensorTranspose(perm, 2, 2.0, da, size, outer_a, 0.5, db, outer_b, 2, 0);
  cTensorTranspose(perm, 2, 2.0f * I, false, ca, size, outer_a, 0.5f, cb, outer_b, 2, 0);
  zTensorTranspose(perm, 2, 2.0, true, za, size, outer_a, 0.0, zb, outer_b, 2, 0);
  int wrong = 0;
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < LDB; ++i) {  /* b(i, j) = alpha * a(j, i) + beta * b(i, j) inside */
      const int in = i < N && j < M, at = j + i * LDA, bt = i + j * LDB;
      wrong += fb[bt] != (in ? 2.0f * fa[at] + 0.5f : 1.0f);
      wrong += db[bt] != (in ? 2.0 * da[at] + 0.5 : 1.0);
      wrong += cb[bt] != (in ? (-2.0f * cimagf(ca[at]) + 0.5f) + 2.0f * crealf(ca[at]) * I : 1.0f);
      wrong += zb[bt] != (in ? 2.0 * conj(za[at]) : 1.0);
    }
  printf("%s: %d wrong (C interface; last error \"%s\")\n", wrong ? "FAILED" : "ok", wrong,
         xpose_hptt_last_error());
  return wrong != 0;
}
