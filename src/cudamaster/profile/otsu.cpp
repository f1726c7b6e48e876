#include "cudamaster/profile/otsu.hpp"

#include <algorithm>
#include <stdexcept>

namespace cudamaster::profile {

OtsuResult otsu_threshold(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("Otsu's method needs at least one value");
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double dn = static_cast<double>(n);
  double total = 0;
  for (double v : values) total += v;
  const double mean = total / dn;
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  var /= dn;

  OtsuResult r;
  r.total_variance = var;
  r.threshold = values.back();
  r.low_count = n;
  r.low_mean = mean;
  double best = -1, prefix = 0;
  for (std::size_t k = 1; k < n; ++k) {  // low = values[0..k), high = values[k..n)
    prefix += values[k - 1];
    if (values[k] == values[k - 1]) continue;  // equal values stay in one class
    const double w0 = static_cast<double>(k) / dn, w1 = 1.0 - w0;
    const double m0 = prefix / static_cast<double>(k), m1 = (total - prefix) / static_cast<double>(n - k);
    const double between = w0 * w1 * (m1 - m0) * (m1 - m0);
    if (between > best) {
      best = between;
      r.threshold = 0.5 * (values[k - 1] + values[k]);
      r.between_variance = between;
      r.low_count = k;
      r.high_count = n - k;
      r.low_mean = m0;
      r.high_mean = m1;
    }
  }
  r.separability = var > 0 ? std::clamp(r.between_variance / var, 0.0, 1.0) : 0.0;
  return r;
}

}  // namespace cudamaster::profile
