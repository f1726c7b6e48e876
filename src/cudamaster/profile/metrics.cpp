#include "cudamaster/profile/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "mskb/util/text.hpp"

namespace cudamaster::profile {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "-1,234,567.89": digits grouped by three with commas, optional sign and fraction.
bool is_grouped_number(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t lead = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++lead;
  if (lead == 0 || lead > 3) return false;
  bool grouped = false;
  while (i < s.size() && s[i] == ',') {
    for (std::size_t k = 1; k <= 3; ++k)
      if (i + k >= s.size() || !is_digit(s[i + k])) return false;
    i += 4;
    grouped = true;
  }
  if (!grouped) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  return i == s.size();
}

std::optional<double> to_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Counters that add up over launches: time, cycles, instructions, bytes, sectors, requests. Only
// whole-kernel totals (".sum" rollups or counters without a rollup), never rates or ratios.
bool is_extensive(std::string_view name, std::string_view unit) {
  static const char* const kUnits[] = {"ns", "us", "ms", "s", "cycle", "inst", "byte", "sector", "request"};
  if (std::find_if(std::begin(kUnits), std::end(kUnits), [&](const char* u) { return unit == u; }) == std::end(kUnits))
    return false;
  if (name.find("per_") != std::string_view::npos || name.find(".pct") != std::string_view::npos ||
      name.find(".ratio") != std::string_view::npos)
    return false;
  if (ends_with(name, ".sum")) return true;
  return !ends_with(name, ".avg") && !ends_with(name, ".min") && !ends_with(name, ".max");
}

// Per-launch settings (grid, block, registers, occupancy limits, theoretical occupancy): a mean
// over different launches means nothing, so the aggregate takes the longest kernel's.
bool is_launch_setting(std::string_view name) {
  return name.rfind("launch__", 0) == 0 || name.rfind("sm__maximum_warps", 0) == 0 ||
         name.rfind("smsp__maximum_warps", 0) == 0 || name.rfind("derived__pct_occupancy", 0) == 0;
}

}  // namespace

bool is_identification_column(std::string_view name) {
  static const char* const kColumns[] = {"ID",     "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                                         "Stream", "Block Size", "Grid Size",    "Device",    "CC"};
  return std::find_if(std::begin(kColumns), std::end(kColumns), [&](const char* c) { return name == c; }) != std::end(kColumns);
}

const Metric* KernelProfile::find(std::string_view metric) const {
  const auto it = index_.find(std::string(metric));
  return it == index_.end() ? nullptr : &metrics[it->second];
}

std::optional<double> KernelProfile::number(std::string_view metric) const {
  const Metric* m = find(metric);
  if (!m || !m->is_number()) return std::nullopt;
  return m->value;
}

void KernelProfile::add(Metric m) {
  const auto it = index_.find(m.name);
  if (it != index_.end()) {
    metrics[it->second] = std::move(m);
    return;
  }
  index_.emplace(m.name, metrics.size());
  metrics.push_back(std::move(m));
}

bool is_missing_cell(std::string_view raw) {
  const std::string cell = mskb::trim(raw, " \t\r");
  return cell.empty() || cell == "n/a" || cell == "N/A" || cell == "no data" || cell == "-";
}

std::optional<double> parse_number(std::string_view raw) {
  const std::string cell = mskb::trim(raw, " \t\r");
  if (cell.empty()) return std::nullopt;
  if (cell.find(',') != std::string::npos) {
    if (!is_grouped_number(cell)) return std::nullopt;
    std::string plain;
    for (char c : cell)
      if (c != ',') plain.push_back(c);
    return to_double(plain);
  }
  return to_double(cell);
}

std::vector<std::vector<std::string>> parse_csv_records(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, field_started = false;
  std::size_t i = 0;
  auto end_field = [&] {
    row.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_row = [&] {
    end_field();
    if (!(row.size() == 1 && row[0].empty())) records.push_back(std::move(row));
    row.clear();
  };
  while (i < text.size()) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.push_back('"');
          i += 2;
          continue;
        }
        quoted = false;
      } else {
        field.push_back(c);
      }
      ++i;
      continue;
    }
    // At the start of a line: skip ncu's own messages.
    if (row.empty() && !field_started && field.empty() && c == '=' && text.substr(i, 2) == "==") {
      const std::size_t nl = text.find('\n', i);
      i = nl == std::string_view::npos ? text.size() : nl + 1;
      continue;
    }
    if (c == '"') {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      end_field();
      field_started = true;  // the next field exists even if empty
    } else if (c == '\n') {
      end_row();
    } else if (c != '\r') {
      field.push_back(c);
      field_started = true;
    }
    ++i;
  }
  if (quoted) throw ProfileError("CSV ends inside a quoted field");
  if (field_started || !field.empty() || !row.empty()) end_row();
  return records;
}

ProfileData parse_ncu_csv(std::string_view text, const std::string& source) {
  const std::string where = source.empty() ? std::string("ncu CSV") : source;
  const auto records = parse_csv_records(text);
  std::size_t h = 0;
  while (h < records.size() && !(records[h].size() > 1 && records[h][0] == "ID")) ++h;
  if (h == records.size())
    throw ProfileError(where + ": no Nsight Compute raw-page header (a row starting with \"ID\"); export with "
                              "`ncu --import R.ncu-rep --csv --page raw --print-units base`");
  const std::vector<std::string>& header = records[h];
  std::size_t first = h + 1;
  std::vector<std::string> units(header.size());
  if (first < records.size() && !records[first].empty() && records[first][0].empty()) {
    if (records[first].size() != header.size())
      throw ProfileError(where + ": the units row has " + std::to_string(records[first].size()) + " fields, the header " +
                         std::to_string(header.size()));
    units = records[first];
    ++first;
  }
  ProfileData data;
  data.source = source;
  for (std::size_t r = first; r < records.size(); ++r) {
    const auto& row = records[r];
    if (row.size() != header.size())
      throw ProfileError(where + ": row " + std::to_string(r + 1) + " has " + std::to_string(row.size()) +
                         " fields, the header " + std::to_string(header.size()));
    KernelProfile k;
    for (std::size_t c = 0; c < header.size(); ++c) {
      Metric m;
      m.name = header[c];
      m.unit = units[c];
      m.raw = row[c];
      if (const auto v = parse_number(row[c])) {
        m.kind = ValueKind::number;
        m.value = *v;
      } else {
        m.kind = is_missing_cell(row[c]) ? ValueKind::missing : ValueKind::text;
      }
      // A launch number; an ID that is none (text, a fraction, 3e68: its conversion would be undefined
      // behaviour, found by tests/fuzz) leaves the row without one, as a text ID always did.
      if (m.name == "ID" && m.is_number() && m.value >= 0 && m.value < 9.2e18 && m.value == std::floor(m.value))
        k.id = static_cast<long>(m.value);
      if (m.name == "Kernel Name") k.name = m.raw;
      if (m.name == "Block Size") k.block = m.raw;
      if (m.name == "Grid Size") k.grid = m.raw;
      k.add(std::move(m));
    }
    k.duration_ns = k.number("gpu__time_duration.sum").value_or(0.0);
    data.total_duration_ns += k.duration_ns;
    data.kernels.push_back(std::move(k));
  }
  if (data.kernels.empty()) throw ProfileError(where + ": the export has no kernel rows (no kernel was profiled)");
  data.aggregate = aggregate_kernels(data.kernels);
  return data;
}

ProfileData load_ncu_csv(const std::string& path) {
  std::string text;
  try {
    text = mskb::read_text(path);
  } catch (const std::runtime_error& e) {  // "cannot read PATH", as a ProfileError
    throw ProfileError(e.what());
  }
  return parse_ncu_csv(text, path);
}

KernelProfile aggregate_kernels(const std::vector<KernelProfile>& kernels, std::vector<double>* weights_out) {
  if (kernels.empty()) throw ProfileError("no kernels to aggregate");
  double total = 0;
  for (const auto& k : kernels) total += std::max(0.0, k.duration_ns);
  std::vector<double> w;
  for (const auto& k : kernels)
    w.push_back(total > 0 ? std::max(0.0, k.duration_ns) / total : 1.0 / static_cast<double>(kernels.size()));
  if (weights_out) *weights_out = w;
  if (kernels.size() == 1) return kernels.front();

  const std::size_t longest = static_cast<std::size_t>(std::max_element(w.begin(), w.end()) - w.begin());
  KernelProfile agg;
  agg.name = std::to_string(kernels.size()) + " kernels";
  // Union of metric names, first-seen order.
  std::vector<const Metric*> order;
  std::unordered_map<std::string, bool> seen;
  for (const auto& k : kernels)
    for (const auto& m : k.metrics)
      if (seen.emplace(m.name, true).second) order.push_back(&m);
  for (const Metric* proto : order) {
    Metric m;
    m.name = proto->name;
    m.unit = proto->unit;
    if (m.name == "Kernel Name") {
      m.kind = ValueKind::text;
      m.raw = agg.name;
      agg.add(std::move(m));
      continue;
    }
    if (is_launch_setting(m.name)) {
      const Metric* lm = kernels[longest].find(m.name);
      agg.add(lm ? *lm : *proto);
      continue;
    }
    bool all_numbers = true, any = false, same_text = true;
    std::string text;
    double sum = 0, wsum = 0, wtot = 0;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      const Metric* km = kernels[i].find(proto->name);
      if (!km || km->kind == ValueKind::missing) continue;
      if (!any) text = km->raw;
      any = true;
      if (km->raw != text) same_text = false;
      if (!km->is_number()) {
        all_numbers = false;
        continue;
      }
      sum += km->value;
      wsum += w[i] * km->value;
      wtot += w[i];
    }
    if (!any) {
      m.kind = ValueKind::missing;
      m.raw = proto->raw;
    } else if (all_numbers) {
      m.kind = ValueKind::number;
      m.value = is_extensive(m.name, m.unit) ? sum : (wtot > 0 ? wsum / wtot : 0.0);
      std::ostringstream s;
      s.precision(10);
      s << m.value;
      m.raw = s.str();
    } else {
      m.kind = ValueKind::text;
      m.raw = same_text ? text : "(varies)";
    }
    agg.add(std::move(m));
  }
  agg.duration_ns = total;
  if (const Metric* b = agg.find("Block Size")) agg.block = b->raw;
  if (const Metric* g = agg.find("Grid Size")) agg.grid = g->raw;
  return agg;
}

}  // namespace cudamaster::profile
