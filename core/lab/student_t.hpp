// Student's t distribution: what a confidence interval on the mean of a few paired differences needs. Written from
// the definitions, so that the page (wasm) and the CLI (native) compute the same intervals without a library:
//
//   F(t; n) = 1 - I_x(n/2, 1/2) / 2   for t >= 0, x = n / (n + t^2)     (F(-t) = 1 - F(t))
//
// with I_x(a, b) the regularized incomplete beta function, evaluated by its continued fraction (Abramowitz & Stegun
// 26.5.8, with the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly), and the quantile found
// by bisection on F. Accurate to about 1e-10, far past the three decimals a verdict prints.
//
//   student_t_quantile(0.975, 2)   // 4.3027: the 95% two-sided critical value with 3 paired seeds
#pragma once

namespace mha {

// I_x(a, b) for a, b > 0, x in [0, 1]
double regularized_incomplete_beta(double x, double a, double b);

// P(T <= t) for T ~ Student's t with df > 0 degrees of freedom
double student_t_cdf(double t, double df);

// the t with P(T <= t) = p, for p in (0, 1) and df > 0
double student_t_quantile(double p, double df);

}  // namespace mha
