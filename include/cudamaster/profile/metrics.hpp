// Owns the typed form of an Nsight Compute export: the raw-page CSV (`ncu --import R.ncu-rep
// --csv --page raw --print-units base`) parsed into one record per kernel launch, every cell kept
// (numbers as doubles in base units, text as text, "n/a"/"no data" as missing), and the
// duration-weighted aggregate over the kernels an entry point launched. Host-only, no CUDA.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cudamaster::profile {

// A malformed export or a file that cannot be read; the message is one line for users.
class ProfileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class ValueKind { number, text, missing };

struct Metric {
  std::string name;
  std::string unit;  // base unit as exported: "%", "ns", "byte/s", "" ...
  std::string raw;   // the cell as exported ("4,129,851,149,756.86", "(256, 1, 1)", "n/a")
  ValueKind kind = ValueKind::missing;
  double value = 0;  // valid when kind == number
  bool is_number() const { return kind == ValueKind::number; }
};

// The columns before the metrics that identify a launch (strings or ids, not measurements).
bool is_identification_column(std::string_view name);

struct KernelProfile {
  long id = -1;          // "ID" (launch order in the report); -1 for an aggregate
  std::string name;      // "Kernel Name" (demangled); "3 kernels" for an aggregate
  std::string block;     // "Block Size", e.g. "(256, 1, 1)"
  std::string grid;      // "Grid Size"
  double duration_ns = 0;  // gpu__time_duration.sum
  std::vector<Metric> metrics;  // every column, in export order

  const Metric* find(std::string_view metric) const;
  std::optional<double> number(std::string_view metric) const;  // nullopt unless a number
  void add(Metric m);  // appends (or replaces a metric of the same name) and indexes it

 private:
  std::unordered_map<std::string, std::size_t> index_;
};

struct ProfileData {
  std::vector<KernelProfile> kernels;  // one per profiled launch, in launch order
  KernelProfile aggregate;             // == kernels[0] when there is one kernel
  double total_duration_ns = 0;
  std::string source;                  // file it came from, for messages
};

// "4,129,851,149.5" -> 4129851149.5 (ncu groups thousands); "12", "-0.00", "1e-3" -> number;
// anything else (text, "(256, 1, 1)", "n/a") -> nullopt.
std::optional<double> parse_number(std::string_view cell);
bool is_missing_cell(std::string_view cell);  // "", "n/a", "N/A", "no data", "-"

// RFC 4180 records (quoted fields, "" escapes, commas and newlines inside quotes). Lines outside
// quotes that start with "==" (ncu's own ==PROF==/==WARNING== lines) are skipped.
std::vector<std::vector<std::string>> parse_csv_records(std::string_view text);

// Parses the raw page. Throws ProfileError when there is no header row, when a row's width
// differs from the header, or when no kernel row is present.
ProfileData parse_ncu_csv(std::string_view text, const std::string& source = "");
ProfileData load_ncu_csv(const std::string& path);

// Duration-weighted aggregate: extensive counters (time, cycles, instructions, bytes, sectors
// summed over launches: ".sum" rollups and unrolled counters in those units) are summed; every
// other number is the mean weighted by gpu__time_duration.sum (equal weights when no duration);
// per-launch settings (launch__*, theoretical occupancy) are the longest kernel's; text is kept
// when all kernels agree, else "(varies)". Weights are returned per kernel.
KernelProfile aggregate_kernels(const std::vector<KernelProfile>& kernels, std::vector<double>* weights = nullptr);

}  // namespace cudamaster::profile
