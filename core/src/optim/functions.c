/*
 * 2-D test functions for the optimizers, each with its analytic gradient,
 * known minima (or equilibrium), a view and a sensible start.
 *
 *   quadratic   1/2 [x y] A [x y]^T, A = R(30 deg) diag(1, 10) R^T: condition
 *               number 10 on rotated axes (no coordinate-wise shortcut)
 *   rosenbrock  (1 - x)^2 + 100 (y - x^2)^2 (Rosenbrock 1960): a curved valley
 *   rastrigin   20 + sum (x_i^2 - 10 cos(2 pi x_i)) (Rastrigin 1974): a grid
 *               of local minima around the global one
 *   beale       (1.5 - x + xy)^2 + (2.25 - x + xy^2)^2 + (2.625 - x + xy^3)^2
 *   himmelblau  (x^2 + y - 11)^2 + (x + y^2 - 7)^2: four minima
 *   saddle      x^2 - y^2 + y^4 / 4: a saddle at 0 between minima (0, +-sqrt 2)
 *   plateau     1 - exp(-(x^2 + y^2) / 2): a nearly flat plain around one well
 *   bilinear    x y, a game: x minimizes, y maximizes; equilibrium (0, 0).
 *               The "gradient" is the descent field (y, -x).
 */
#include <math.h>
#include <string.h>

#include "softscope.h"

#define PI 3.14159265358979323846

typedef void (*eval_fn)(double x, double y, double *f, double g[2]);

static void quadratic(double x, double y, double *f, double g[2]) {
  /* A = R diag(1, 10) R^T with R the rotation by 30 degrees */
  const double c = 0.86602540378443865, s = 0.5;
  const double a11 = c * c + 10 * s * s, a22 = s * s + 10 * c * c, a12 = (1 - 10) * c * s;
  g[0] = a11 * x + a12 * y, g[1] = a12 * x + a22 * y;
  *f = 0.5 * (x * g[0] + y * g[1]);
}
static void rosenbrock(double x, double y, double *f, double g[2]) {
  const double a = 1 - x, b = y - x * x;
  *f = a * a + 100 * b * b;
  g[0] = -2 * a - 400 * x * b, g[1] = 200 * b;
}
static void rastrigin(double x, double y, double *f, double g[2]) {
  *f = 20 + x * x - 10 * cos(2 * PI * x) + y * y - 10 * cos(2 * PI * y);
  g[0] = 2 * x + 20 * PI * sin(2 * PI * x), g[1] = 2 * y + 20 * PI * sin(2 * PI * y);
}
static void beale(double x, double y, double *f, double g[2]) {
  const double y2 = y * y, y3 = y2 * y;
  const double a = 1.5 - x + x * y, b = 2.25 - x + x * y2, c = 2.625 - x + x * y3;
  *f = a * a + b * b + c * c;
  g[0] = 2 * a * (y - 1) + 2 * b * (y2 - 1) + 2 * c * (y3 - 1);
  g[1] = 2 * a * x + 2 * b * 2 * x * y + 2 * c * 3 * x * y2;
}
static void himmelblau(double x, double y, double *f, double g[2]) {
  const double a = x * x + y - 11, b = x + y * y - 7;
  *f = a * a + b * b;
  g[0] = 4 * x * a + 2 * b, g[1] = 2 * a + 4 * y * b;
}
static void saddle(double x, double y, double *f, double g[2]) {
  *f = x * x - y * y + 0.25 * y * y * y * y;
  g[0] = 2 * x, g[1] = -2 * y + y * y * y;
}
static void plateau(double x, double y, double *f, double g[2]) {
  const double e = exp(-0.5 * (x * x + y * y));
  *f = 1 - e;
  g[0] = x * e, g[1] = y * e;
}
static void bilinear(double x, double y, double *f, double g[2]) {
  *f = x * y;
  g[0] = y, g[1] = -x; /* x descends, y ascends */
}

static const double origin[][2] = {{0, 0}};
static const double rosen_min[][2] = {{1, 1}};
static const double beale_min[][2] = {{3, 0.5}};
static const double himmel_min[][2] = {
    {3, 2}, {-2.805118086952745, 3.131312518250573},
    {-3.779310253377747, -3.283185991286170}, {3.584428340330492, -1.848126526964404}};
static const double saddle_min[][2] = {{0, 1.4142135623730951}, {0, -1.4142135623730951}};

typedef struct {
  ss_testfn_info info;
  eval_fn eval;
} testfn;

static const testfn FUNCTIONS[] = {
    {{"quadratic", "ill-conditioned convex quadratic (condition number 10, rotated)",
      "1/2 w^T A w, A = R(30 deg) diag(1, 10) R(30 deg)^T", -5, 5, -5, 5, {-4, 3.5}, 1, origin, 0,
      false}, quadratic},
    {{"rosenbrock", "a narrow curved valley", "(1 - x)^2 + 100 (y - x^2)^2", -2, 2, -1, 3,
      {-1.2, 1}, 1, rosen_min, 0, false}, rosenbrock},
    {{"rastrigin", "many regularly spaced local minima",
      "20 + x^2 - 10 cos(2 pi x) + y^2 - 10 cos(2 pi y)", -5.12, 5.12, -5.12, 5.12, {3.3, -2.8},
      1, origin, 0, false}, rastrigin},
    {{"beale", "flat ridges and a sharp corner",
      "(1.5 - x + xy)^2 + (2.25 - x + xy^2)^2 + (2.625 - x + xy^3)^2", -4.5, 4.5, -4.5, 4.5,
      {1, 1.5}, 1, beale_min, 0, false}, beale},
    {{"himmelblau", "four minima of equal value", "(x^2 + y - 11)^2 + (x + y^2 - 7)^2", -5, 5,
      -5, 5, {0, 0}, 4, himmel_min, 0, false}, himmelblau},
    {{"saddle", "a saddle point between two minima", "x^2 - y^2 + y^4 / 4", -3, 3, -3, 3,
      {-2.5, 0.01}, 2, saddle_min, -1, false}, saddle},
    {{"plateau", "a nearly flat plain around one well (vanishing gradients)",
      "1 - exp(-(x^2 + y^2) / 2)", -5, 5, -5, 5, {3.5, 3}, 1, origin, 0, false}, plateau},
    {{"bilinear", "min-max game: x minimizes x y, y maximizes it",
      "x y (field (y, -x))", -3, 3, -3, 3, {1.5, 1}, 1, origin, 0, true}, bilinear},
};
#define NFN (sizeof FUNCTIONS / sizeof FUNCTIONS[0])

size_t ss_testfn_count(void) { return NFN; }

const ss_testfn_info *ss_testfn_at(size_t i) { return i < NFN ? &FUNCTIONS[i].info : NULL; }

long ss_testfn_find(const char *name) {
  if (!name) return -1;
  for (size_t i = 0; i < NFN; i++)
    if (strcmp(FUNCTIONS[i].info.name, name) == 0) return (long)i;
  return -1;
}

ss_status ss_testfn_eval(size_t fn, double x, double y, double *f, double grad[2]) {
  if (!f || !grad) return SS_ERR_NULL;
  if (fn >= NFN) return SS_ERR_UNKNOWN_KERNEL;
  if (!isfinite(x) || !isfinite(y)) return isnan(x) || isnan(y) ? SS_ERR_NAN : SS_ERR_NONFINITE;
  FUNCTIONS[fn].eval(x, y, f, grad);
  return SS_OK;
}

ss_status ss_testfn_grid(size_t fn, double x0, double x1, double y0, double y1, size_t nx,
                         size_t ny, float *out) {
  if (!out) return SS_ERR_NULL;
  if (fn >= NFN) return SS_ERR_UNKNOWN_KERNEL;
  if (nx < 2 || ny < 2) return SS_ERR_EMPTY;
  if (nx > 4096 || ny > 4096) return SS_ERR_TOO_LARGE;
  if (!isfinite(x0) || !isfinite(x1) || !isfinite(y0) || !isfinite(y1) || !(x1 > x0) ||
      !(y1 > y0))
    return SS_ERR_PARAM_RANGE;
  double g[2], f;
  for (size_t j = 0; j < ny; j++) {
    const double y = y0 + (y1 - y0) * (double)j / (double)(ny - 1);
    for (size_t i = 0; i < nx; i++) {
      FUNCTIONS[fn].eval(x0 + (x1 - x0) * (double)i / (double)(nx - 1), y, &f, g);
      out[j * nx + i] = (float)f;
    }
  }
  return SS_OK;
}
