// Owns Otsu's method on a small set of values (utilisation of hardware units, % of peak): the
// threshold that maximises the between-class variance of a two-class split, computed exactly
// over every split of the sorted values (no histogram binning: there are ~15 values, not pixels).
#pragma once

#include <cstddef>
#include <vector>

namespace cudamaster::profile {

struct OtsuResult {
  double threshold = 0;         // midpoint between the highest "low" and the lowest "high" value
  double between_variance = 0;  // w0 * w1 * (mu1 - mu0)^2 at the threshold
  double total_variance = 0;    // population variance of all values
  double separability = 0;      // between / total in [0, 1] (Otsu's eta); 0 when all values are equal
  double low_mean = 0, high_mean = 0;
  std::size_t low_count = 0, high_count = 0;  // values <= threshold, values > threshold
};

// Throws std::invalid_argument on an empty input. With one distinct value there is no split:
// threshold = that value, everything is "low", separability 0.
OtsuResult otsu_threshold(std::vector<double> values);

}  // namespace cudamaster::profile
