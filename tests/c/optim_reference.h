/*
 * Float64 references of the optimizer updates, written from the papers'
 * equations (textbook form: bias-corrected m_hat and v_hat, not the
 * rearranged step sizes the kernels use), independently of core/src/optim.
 * State: up to 3 vectors of n doubles and a scalar, zero at the start.
 */
#ifndef SS_TEST_OPTIM_REFERENCE_H
#define SS_TEST_OPTIM_REFERENCE_H

#include <math.h>
#include <string.h>

typedef struct {
  double *a, *b, *c; /* n each */
  double acc;
  double t;
} ref_state;

static inline double ref_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
static inline double ref_norm(const double *x, size_t n) {
  double s = 0;
  for (size_t i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* One step of optimizer `name` with its registry-order params; g is the
   gradient (sam: at the ascent point). Returns 0 for an unknown name. */
static int ref_step(const char *name, double *w, const double *g0, size_t n, const double *p,
                    ref_state *st, double *tmp) {
  const double t = ++st->t;
  double *m = st->a, *v = st->b, *u = st->c;
#define IS(s) (strcmp(name, s) == 0)
  if (IS("sgd")) {
    for (size_t i = 0; i < n; i++) w[i] -= p[0] * (g0[i] + p[1] * w[i]);
  } else if (IS("momentum") || IS("nesterov") || IS("sam")) {
    const double lr = p[0], mu = IS("sam") ? p[2] : p[1], wd = IS("sam") ? p[3] : p[2];
    for (size_t i = 0; i < n; i++) {
      const double g = g0[i] + wd * w[i];
      m[i] = t == 1 ? g : mu * m[i] + g;
      const double d = IS("nesterov") ? g + mu * m[i] : IS("sam") && mu == 0 ? g : m[i];
      w[i] -= lr * d;
    }
  } else if (IS("adagrad")) {
    for (size_t i = 0; i < n; i++) {
      const double g = g0[i] + p[2] * w[i];
      m[i] += g * g;
      w[i] -= p[0] * g / (sqrt(m[i]) + p[1]);
    }
  } else if (IS("adagrad_norm")) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += g0[i] * g0[i];
    st->acc += s;
    const double b = sqrt(p[1] * p[1] + st->acc);
    for (size_t i = 0; i < n; i++) w[i] -= p[0] * g0[i] / b;
  } else if (IS("rmsprop")) {
    for (size_t i = 0; i < n; i++) {
      const double g = g0[i] + p[3] * w[i];
      m[i] = p[1] * m[i] + (1 - p[1]) * g * g;
      w[i] -= p[0] * g / (sqrt(m[i]) + p[2]);
    }
  } else if (IS("adam") || IS("adamw") || IS("amsgrad")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], eps = p[3], wd = p[4];
    for (size_t i = 0; i < n; i++) {
      if (IS("adamw")) w[i] *= 1 - lr * wd;
      const double g = g0[i] + (IS("adamw") ? 0 : wd * w[i]);
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      double vv = v[i];
      if (IS("amsgrad")) vv = u[i] = fmax(u[i], v[i]);
      const double mh = m[i] / (1 - pow(b1, t)), vh = vv / (1 - pow(b2, t));
      w[i] -= lr * mh / (sqrt(vh) + eps);
    }
  } else if (IS("adabound") || IS("amsbound")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], eps = p[3], wd = p[4], fl = p[5], ga = p[6];
    const double lo = fl * (1 - 1 / (ga * t + 1)), hi = fl * (1 + 1 / (ga * t));
    for (size_t i = 0; i < n; i++) {
      const double g = g0[i] + wd * w[i];
      m[i] = b1 * m[i] + (1 - b1) * g;
      v[i] = b2 * v[i] + (1 - b2) * g * g;
      double vv = v[i];
      if (IS("amsbound")) vv = u[i] = fmax(u[i], v[i]);
      const double eta = lr * sqrt(1 - pow(b2, t)) / (1 - pow(b1, t)) / (sqrt(vv) + eps);
      w[i] -= fmin(fmax(eta, lo), hi) * m[i];
    }
  } else if (IS("adabelief")) {
    /* adabelief-pytorch 0.2's step (weight_decouple, degenerated_to_sgd),
       rectify = p[5]: RAdam's rho_t in its direct form (b2 far from 1 here) */
    const double lr = p[0], b1 = p[1], b2 = p[2], eps = p[3], wd = p[4];
    const double bc1 = 1 - pow(b1, t), bc2 = 1 - pow(b2, t);
    const double rinf = 2 / (1 - b2) - 1, rho = rinf - 2 * t * pow(b2, t) / bc2;
    for (size_t i = 0; i < n; i++) {
      w[i] *= 1 - lr * wd;
      m[i] = b1 * m[i] + (1 - b1) * g0[i];
      v[i] = b2 * v[i] + (1 - b2) * (g0[i] - m[i]) * (g0[i] - m[i]) + eps;
      if (p[5] == 0) {
        w[i] -= lr * (m[i] / bc1) / (sqrt(v[i] / bc2) + eps);
      } else if (rho >= 5) {
        const double r = sqrt(bc2 * (rho - 4) / (rinf - 4) * (rho - 2) / rho * rinf / (rinf - 2)) / bc1;
        w[i] -= lr * r * m[i] / (sqrt(v[i]) + eps);
      } else {
        w[i] -= lr / bc1 * m[i];
      }
    }
  } else if (IS("lion")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], wd = p[3];
    for (size_t i = 0; i < n; i++) {
      w[i] = w[i] * (1 - lr * wd) - lr * ref_sign(b1 * m[i] + (1 - b1) * g0[i]);
      m[i] = b2 * m[i] + (1 - b2) * g0[i];
    }
  } else if (IS("sage")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], eps = p[3], wd = p[4];
    const size_t d = p[5] > 0 ? (size_t)p[5] : n, rows = n / d;
    double sig = 0, gam = 0;
    for (size_t j = 0; j < d; j++) {
      double s = 0;
      for (size_t r = 0; r < rows; r++) s += fabs(g0[r * d + j]);
      tmp[j] = s / (double)rows;
      v[j] = b2 * v[j] + (1 - b2) * tmp[j];
      const double sh = v[j] / (1 - pow(b2, t));
      sig += sh * sh, gam += tmp[j] * tmp[j];
    }
    sig = sqrt(sig / (double)d), gam = sqrt(gam / (double)d);
    for (size_t j = 0; j < d; j++) {
      const double sh = v[j] / (1 - pow(b2, t));
      tmp[j] = fmin(fmin(sig / (sh + eps), gam / (tmp[j] + eps)), 1.0);
    }
    for (size_t i = 0; i < n; i++) {
      w[i] = w[i] * (1 - lr * wd) - lr * ref_sign(b1 * m[i] + (1 - b1) * g0[i]) * tmp[i % d];
      m[i] = b2 * m[i] + (1 - b2) * g0[i];
    }
  } else if (IS("adam_atan2")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], wd = p[3], a = p[4], b = p[5];
    for (size_t i = 0; i < n; i++) {
      m[i] = b1 * m[i] + (1 - b1) * g0[i];
      v[i] = b2 * v[i] + (1 - b2) * g0[i] * g0[i];
      const double mh = m[i] / (1 - pow(b1, t)), vh = v[i] / (1 - pow(b2, t));
      w[i] = w[i] * (1 - lr * wd) - lr * a * atan2(mh, b * sqrt(vh));
    }
  } else if (IS("lars")) {
    const double lr = p[0], mu = p[1], wd = p[2], eta = p[3];
    double ws = 0, gs = 0;
    for (size_t i = 0; i < n; i++) ws += w[i] * w[i], gs += g0[i] * g0[i];
    const double wn = sqrt(ws), gn = sqrt(gs);
    const double local = wn > 0 && gn > 0 ? eta * wn / (gn + wd * wn) : 1.0;
    for (size_t i = 0; i < n; i++) {
      m[i] = mu * m[i] + lr * local * (g0[i] + wd * w[i]);
      w[i] -= m[i];
    }
  } else if (IS("lamb")) {
    const double lr = p[0], b1 = p[1], b2 = p[2], eps = p[3], wd = p[4];
    for (size_t i = 0; i < n; i++) {
      m[i] = b1 * m[i] + (1 - b1) * g0[i];
      v[i] = b2 * v[i] + (1 - b2) * g0[i] * g0[i];
      tmp[i] = (m[i] / (1 - pow(b1, t))) / (sqrt(v[i] / (1 - pow(b2, t))) + eps) + wd * w[i];
    }
    const double wn = ref_norm(w, n), rn = ref_norm(tmp, n);
    const double ratio = wn > 0 && rn > 0 ? wn / rn : 1.0;
    for (size_t i = 0; i < n; i++) w[i] -= lr * ratio * tmp[i];
  } else if (IS("perpgrad")) {
    double gw = 0, ww = 0;
    for (size_t i = 0; i < n; i++) gw += g0[i] * w[i], ww += w[i] * w[i];
    const double c = ww > 0 ? gw / ww : 0;
    for (size_t i = 0; i < n; i++) tmp[i] = g0[i] - c * w[i];
    for (size_t i = 0; i < n; i++) w[i] -= p[0] * tmp[i];
  } else if (IS("ema")) {
    for (size_t i = 0; i < n; i++) {
      w[i] -= p[0] * g0[i];
      u[i] = t == 1 ? w[i] : p[1] * u[i] + (1 - p[1]) * w[i];
    }
  } else if (IS("ogda")) {
    for (size_t i = 0; i < n; i++) {
      w[i] -= p[0] * (2 * g0[i] - (t == 1 ? g0[i] : m[i]));
      m[i] = g0[i];
    }
  } else {
    return 0;
  }
#undef IS
  return 1;
}

#endif
