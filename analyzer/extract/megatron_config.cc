#include "extract/megatron_config.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <iterator>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "model/facts.h"

namespace megatriage {
namespace {

using std::string_view;

// Arguments-dump keys we keep. Megatron prints ~850 keys; everything else is dropped after one
// binary search over this table (names are ASCII-sorted; the static_assert keeps them so).
constexpr std::array<string_view, 35> kDumpKeys = {
    "bf16",
    "context_parallel_size",
    "data_parallel_sharding_strategy",
    "data_parallel_size",
    "data_path",
    "distributed_timeout_minutes",
    "expert_model_parallel_size",
    "expert_tensor_parallel_size",
    "ffn_hidden_size",
    "fp16",
    "global_batch_size",
    "hidden_size",
    "load",
    "local_rank",
    "micro_batch_size",
    "num_attention_heads",
    "num_experts",
    "num_layers",
    "num_query_groups",
    "overlap_moe_expert_parallel_comm",
    "pipeline_model_parallel_size",
    "rank",
    "recompute_granularity",
    "save",
    "seq_length",
    "sequence_parallel",
    "tensor_model_parallel_size",
    "tensorboard_dir",
    "train_iters",
    "use_custom_fsdp",
    "use_distributed_optimizer",
    "use_megatron_fsdp",
    "use_torch_fsdp2",
    "virtual_pipeline_model_parallel_size",
    "world_size",
};
static_assert(std::is_sorted(kDumpKeys.begin(), kDumpKeys.end()));

// Launcher variables that batch scripts echo (`MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2
// NODELIST=node[1-2]` in the fixtures/slurm-* jobs) and the fact key each one becomes.
struct EnvKey {
  string_view name;
  string_view key;
};
constexpr std::array<EnvKey, 11> kEnvKeys = {{
    {"MASTER_ADDR", "master_addr"},
    {"MASTER_PORT", "master_port"},
    {"NNODES", "nnodes"},
    {"WORLD_SIZE", "world_size_env"},
    {"GPUS_PER_NODE", "gpus_per_node"},
    {"NODE_RANK", "node_rank"},
    {"NPROC_PER_NODE", "nproc_per_node"},
    {"CUDA_DEVICE_MAX_CONNECTIONS", "cuda_device_max_connections"},
    {"SLURM_JOB_NODELIST", "nodelist"},
    {"SLURM_NODELIST", "nodelist"},
    {"NODELIST", "nodelist"},
}};

// A dump whose end banner never comes (the job died while printing, the banner line was cut)
// must not keep us parsing dump lines for the rest of a multi-GB file. The real dump has no
// foreign lines at all; 64 allows for some interleaved output from a sibling process.
constexpr int kMaxDumpGapLines = 64;

// `[2024-05-01 12:00:00.123456]` is 28 bytes; anything longer in front of `iteration` is not
// Megatron's stamp.
constexpr std::size_t kMaxIterationStampBytes = 40;

constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool is_ident(char c) { return is_lower(c) || is_upper(c) || is_digit(c) || c == '_'; }
constexpr bool is_env_name_char(char c) { return is_upper(c) || is_digit(c) || c == '_'; }
constexpr bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

string_view ltrim(string_view s) {
  std::size_t i = 0;
  while (i < s.size() && is_blank(s[i])) ++i;
  return s.substr(i);
}

string_view rtrim(string_view s) {
  std::size_t n = s.size();
  while (n > 0 && is_blank(s[n - 1])) --n;
  return s.substr(0, n);
}

string_view trim(string_view s) { return rtrim(ltrim(s)); }

void emit(FactOut& out, string_view key, string_view value, std::uint64_t line, int rank) {
  if (value.size() <= ConfigExtractor::kMaxFactValueBytes) {
    out.add(key, value, line, rank);
    return;
  }
  std::size_t cut = ConfigExtractor::kMaxFactValueBytes - 3;
  // Do not cut inside a UTF-8 sequence (paths may hold non-ASCII names).
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  std::string v(value.substr(0, cut));
  v += "...";
  out.add(key, v, line, rank);
}

// The run of digits at the start of `s` (a non-negative integer that fits 64 bits), or an
// empty view. Does not look past the digits.
string_view leading_uint(string_view s) {
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || s.empty() || !is_digit(s[0])) return {};
  return s.substr(0, static_cast<std::size_t>(p - s.data()));
}

// Like leading_uint, but the integer must be the whole token: followed by the end, a blank or
// one of `stops`.
string_view uint_token(string_view s, string_view stops = ",") {
  string_view d = leading_uint(s);
  if (d.empty()) return {};
  if (d.size() < s.size()) {
    char next = s[d.size()];
    if (!is_blank(next) && stops.find(next) == string_view::npos) return {};
  }
  return d;
}

// `-d.ddd`, `d.dddddE+dd` and the like, with at most 20 digits before an exponent of at most two
// digits: what std::from_chars reads whole and in range (a loss on every iteration line would
// otherwise go through it).
bool plain_decimal(string_view t) {
  std::size_t i = t[0] == '-' ? 1 : 0, digits = 0;
  for (; i < t.size() && is_digit(t[i]); ++i) ++digits;
  const std::size_t whole = digits;
  if (i < t.size() && t[i] == '.')
    for (++i; i < t.size() && is_digit(t[i]); ++i) ++digits;
  if (whole == 0 || digits > 20) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exp = 0;
    for (; i < t.size() && is_digit(t[i]); ++i) ++exp;
    if (exp == 0 || exp > 2) return false;
  }
  return i == t.size();
}

// A decimal number (Megatron's `%.2f` MB figures, `%E` losses, also `nan`/`inf`) up to the
// next blank or `|`; empty when the token is not a number.
string_view number_token(string_view s) {
  std::size_t n = 0;
  while (n < s.size() && !is_blank(s[n]) && s[n] != '|' && s[n] != ',') ++n;
  string_view tok = s.substr(0, n);
  if (tok.empty()) return {};
  if (plain_decimal(tok)) return tok;
  double v = 0;
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc() || p != tok.data() + tok.size()) return {};
  return tok;
}

// Sets `rest` to what follows the first `label` in `s`; false when `label` is absent. One memchr
// per occurrence of the label's first byte and a test of its third (the word after `| `)
// before comparing: string_view::find compares at every occurrence (an iteration line's dozen
// `|`, ~450 instructions a label).
bool after(string_view s, string_view label, string_view& rest) {
  if (label.empty() || label.size() > s.size()) return false;
  const std::size_t last = s.size() - label.size();  // where a label can start, at most
  const std::size_t probe = std::min<std::size_t>(2, label.size() - 1);
  for (std::size_t i = 0; i <= last;) {
    const void* hit = std::memchr(s.data() + i, label.front(), last - i + 1);
    if (hit == nullptr) return false;
    const auto at = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    if (s[at + probe] == label[probe] && s.substr(at, label.size()) == label) {
      rest = s.substr(at + label.size());
      return true;
    }
    i = at + 1;
  }
  return false;
}

// ---- arguments dump ----

// `  name ..... value` or, for names of 48+ chars, `  name  value` (Megatron pads with
// `48 - len(name)` dots). Views into `body`.
bool split_dump_line(string_view body, string_view& key, string_view& value) {
  if (body.size() < 4 || body[0] != ' ' || body[1] != ' ') return false;
  char first = body[2];
  if (!is_lower(first) && !is_upper(first) && first != '_') return false;
  std::size_t i = 3;
  while (i < body.size() && is_ident(body[i])) ++i;
  key = body.substr(2, i - 2);
  string_view rest = body.substr(i);
  if (rest.size() >= 2 && rest[0] == ' ' && rest[1] == '.') {
    std::size_t j = 1;
    while (j < rest.size() && rest[j] == '.') ++j;
    if (j < rest.size() && rest[j] != ' ') return false;  // `name ...x`: not the dump's shape
    value = trim(rest.substr(j));
    return true;
  }
  // No dots: two spaces then the value. A traceback line `  File "x", line 3, in f` has one
  // space after the name, so it is rejected here.
  if (rest.size() >= 2 && rest[0] == ' ' && rest[1] == ' ') {
    value = trim(rest);
    return true;
  }
  return false;
}

bool wanted_dump_key(string_view key) {
  return std::binary_search(kDumpKeys.begin(), kDumpKeys.end(), key);
}

// ---- world-size line ----

struct WorldSizeLine {
  string_view world, dp, cp, tp, pp;  // cp is empty before Megatron had context parallelism
};

// The integer after the first `label` that is not the tail of `encoder-<label>` (core_v0.9-0.12
// print encoder-tensor-/encoder-pipeline-model-parallel sizes after the decoder ones).
string_view size_after(string_view s, string_view label) {
  constexpr string_view kEncoder = "encoder-";
  std::size_t from = 0;
  while (true) {
    std::size_t pos = s.find(label, from);
    if (pos == string_view::npos) return {};
    bool encoder = pos >= kEncoder.size() &&
                   s.substr(pos - kEncoder.size(), kEncoder.size()) == kEncoder;
    if (!encoder) return uint_token(s.substr(pos + label.size()));
    from = pos + label.size();
  }
}

bool parse_world_size(string_view body, WorldSizeLine& ws) {
  constexpr string_view kHead = "using world size: ";
  string_view s = ltrim(body);
  if (s.substr(0, kHead.size()) != kHead) return false;
  ws.world = uint_token(s.substr(kHead.size()));
  if (ws.world.empty()) return false;
  // `data-parallel-size:` is the pre-2023 spelling.
  ws.dp = size_after(s, "data-parallel size: ");
  if (ws.dp.empty()) ws.dp = size_after(s, "data-parallel-size: ");
  // ≤core_v0.8 prints `context-parallel size: 1 tensor-model-parallel size` (no comma), and
  // r0.10-0.12 glue `None` to `tensor-model-parallel size`; searching each label on its own
  // handles both. `context-parallel size: ` is not a substring of `context-parallel sizes: `.
  ws.cp = size_after(s, "context-parallel size: ");
  ws.tp = size_after(s, "tensor-model-parallel size: ");
  ws.pp = size_after(s, "pipeline-model-parallel size: ");
  return !ws.dp.empty() && !ws.tp.empty() && !ws.pp.empty();
}

void emit_world_size(const WorldSizeLine& ws, std::uint64_t line, int rank,
                     FactOut& out) {
  emit(out, "world_size", ws.world, line, rank);
  emit(out, "data_parallel_size", ws.dp, line, rank);
  if (!ws.cp.empty()) emit(out, "context_parallel_size", ws.cp, line, rank);
  emit(out, "tensor_model_parallel_size", ws.tp, line, rank);
  emit(out, "pipeline_model_parallel_size", ws.pp, line, rank);
}

// ---- one-line prints ----

// `<literal><integer>` → one fact.
bool literal_then_uint(string_view s, string_view literal, string_view key, std::uint64_t line,
                       int rank, FactOut& out) {
  if (s.substr(0, literal.size()) != literal) return false;
  string_view n = uint_token(s.substr(literal.size()));
  if (n.empty()) return false;
  emit(out, key, n, line, rank);
  return true;
}

// `setting global batch size to 8`, `setting number of micro-batches to constant 64` (print,
// ≤≈core_v0.8) and `setting number of microbatches to constant 64` (logger, after its
// `INFO:megatron.core.num_microbatches_calculator:` header has been removed).
bool parse_setting(string_view s, std::uint64_t line, int rank, FactOut& out) {
  return literal_then_uint(s, "setting global batch size to ", "global_batch_size", line, rank,
                           out) ||
         literal_then_uint(s, "setting number of micro-batches to constant ", "num_microbatches",
                           line, rank, out) ||
         literal_then_uint(s, "setting number of microbatches to constant ", "num_microbatches",
                           line, rank, out);
}

bool parse_initialized(string_view s, std::uint64_t line, int rank, FactOut& out) {
  if (literal_then_uint(s, "> initialized tensor model parallel with size ",
                        "tensor_model_parallel_size", line, rank, out) ||
      literal_then_uint(s, "> initialized pipeline model parallel with size ",
                        "pipeline_model_parallel_size", line, rank, out) ||
      literal_then_uint(s, "> initialized data parallel with size ", "data_parallel_size", line,
                        rank, out)) {
    return true;
  }
  // `> initializing torch distributed with 4 workers ...` (fixtures/slurm-*); Megatron itself
  // prints `> initializing torch distributed ...` without a count.
  constexpr string_view kInit = "> initializing torch distributed with ";
  if (s.substr(0, kInit.size()) != kInit) return false;
  string_view rest = s.substr(kInit.size());
  string_view n = uint_token(rest);
  if (n.empty() || rest.substr(n.size(), 8) != " workers") return false;
  emit(out, "world_size", n, line, rank);
  return true;
}

// `[Rank 12] (after 10 iterations) memory (MB) | allocated: … | max allocated: 70321.55 |
// reserved: … | max reserved: 72000.00`. The rank in brackets is the global rank (§2.6).
bool parse_memory_report(string_view s, std::uint64_t line, FactOut& out) {
  constexpr string_view kRank = "[Rank ";
  if (s.substr(0, kRank.size()) != kRank) return false;
  string_view r = leading_uint(s.substr(kRank.size()));
  if (r.empty()) return false;
  string_view rest = s.substr(kRank.size() + r.size());
  if (rest.substr(0, 2) != "] " || rest.find(" memory (MB) |") == string_view::npos) return false;
  int rank = -1;
  std::from_chars(r.data(), r.data() + r.size(), rank);  // stays -1 on overflow
  string_view v;
  string_view peak, reserved;
  if (after(rest, "max allocated: ", v)) peak = number_token(v);
  if (after(rest, "max reserved: ", v)) reserved = number_token(v);
  if (peak.empty() && reserved.empty()) return false;
  if (!peak.empty()) emit(out, "peak_allocated_mb", peak, line, rank);
  if (!reserved.empty()) emit(out, "max_reserved_mb", reserved, line, rank);
  return true;
}

// ` [2024-05-01 12:00:00] iteration      100/   10000 | … | global batch size:   256 |
// lm loss: 2.345678E+00 | …` (stamp with 6 more digits from core 0.16, absent in older or
// custom loops: ` iteration        1/      12 | consumed samples: …`). `s` is left-trimmed.
// Here: the counts of such a line and what follows them (`| consumed samples: …`); false when
// `s` is not one.
bool iteration_head(string_view s, string_view& done, string_view& total, string_view& rest) {
  if (!s.empty() && s[0] == '[') {
    std::size_t close = s.find(']');
    if (close == string_view::npos || close > kMaxIterationStampBytes) return false;
    s = s.substr(close + 1);
    if (s.empty() || s[0] != ' ') return false;
    s = ltrim(s);
  }
  constexpr string_view kIter = "iteration ";
  if (s.substr(0, kIter.size()) != kIter) return false;
  s = ltrim(s.substr(kIter.size()));
  done = leading_uint(s);
  if (done.empty() || s.size() <= done.size() || s[done.size()] != '/') return false;
  s = ltrim(s.substr(done.size() + 1));
  total = uint_token(s, "|");
  if (total.empty()) return false;
  s = ltrim(s.substr(total.size()));
  if (s.empty() || s[0] != '|') return false;  // `iteration 3/10 of warmup` is prose
  rest = s;
  return true;
}

bool parse_iteration(string_view s, std::uint64_t line, int rank, FactOut& out) {
  string_view done, total;
  if (!iteration_head(s, done, total, s)) return false;
  emit(out, "last_iteration", done, line, rank);
  emit(out, "train_iters_total", total, line, rank);
  string_view v;
  if (after(s, "| global batch size:", v)) {
    string_view gbs = uint_token(ltrim(v), "|");
    if (!gbs.empty()) emit(out, "global_batch_size", gbs, line, rank);
  }
  if (after(s, "| lm loss:", v)) {
    string_view loss = number_token(ltrim(v));
    if (!loss.empty()) emit(out, "lm_loss", loss, line, rank);
  }
  return true;
}

// Every key parse_iteration() may add.
constexpr string_view kIterationKeys[] = {"last_iteration", "train_iters_total", "global_batch_size", "lm_loss"};
constexpr FactOut::ReplacedLine kIterationLine{parse_iteration, kIterationKeys};

// An iteration line comes every step and its facts replace the previous one's: `out` may keep
// it to be parsed when they can still matter (FactKeeper), or it is parsed now.
bool iteration_line(string_view s, std::uint64_t line, int rank, FactOut& out) {
  string_view done, total, rest;
  if (!iteration_head(s, done, total, rest)) return false;
  if (!out.defer(s, line, rank, kIterationLine)) parse_iteration(s, line, rank, out);
  return true;
}

// `Theoretical memory footprints: weight and optimizer=… MB, activation=… MB, total=… MB`;
// without activation (older or recompute setups) there is no total and we emit nothing.
bool parse_theoretical(string_view s, std::uint64_t line, int rank, FactOut& out) {
  constexpr string_view kHead = "Theoretical memory footprints:";
  if (s.substr(0, kHead.size()) != kHead) return false;
  string_view v;
  if (!after(s, "total=", v)) return false;
  string_view total = number_token(v);
  if (total.empty()) return false;
  emit(out, "theoretical_total_mb", total, line, rank);
  return true;
}

string_view env_key_for(string_view name) {
  for (const EnvKey& e : kEnvKeys) {
    if (e.name == name) return e.key;
  }
  return {};
}

// `MASTER_ADDR=node1 MASTER_PORT=29510 NNODES=2 NODELIST=node[1-2]`, `+ export NNODES=2`
// (bash -x), `env` output. `s` is left-trimmed and starts with an upper-case letter.
bool parse_env_echo(string_view s, std::uint64_t line, int rank, FactOut& out) {
  bool found = false;
  std::size_t from = 0;
  while (from < s.size()) {
    const void* hit = std::memchr(s.data() + from, '=', s.size() - from);
    if (hit == nullptr) break;
    std::size_t eq = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    from = eq + 1;
    std::size_t start = eq;
    while (start > 0 && is_env_name_char(s[start - 1])) --start;
    // The name must be a whole token: `MY_MASTER_ADDR=` or `--master-addr=` are not echoes.
    if (start == eq || (start > 0 && !is_blank(s[start - 1]) && s[start - 1] != '"' &&
                        s[start - 1] != '\'' && s[start - 1] != ';')) {
      continue;
    }
    string_view key = env_key_for(s.substr(start, eq - start));
    if (key.empty()) continue;
    std::size_t end = eq + 1;
    while (end < s.size() && !is_blank(s[end])) ++end;
    string_view value = s.substr(eq + 1, end - eq - 1);
    while (!value.empty() && (value.back() == ',' || value.back() == ';')) value.remove_suffix(1);
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    } else if (!value.empty() && (value.back() == '"' || value.back() == '\'')) {
      value.remove_suffix(1);  // `echo "MASTER_ADDR=$X"` quoted as a whole
    }
    // `cat job.sh` shows `MASTER_ADDR=$(scontrol show hostnames …)`: a script, not a value.
    if (value.empty() || value.front() == '$' || value.front() == '`') continue;
    emit(out, key, value, line, rank);
    from = end;
    found = true;
  }
  return found;
}

// ---- GPU model ----

// Words in front of the model number that belong to the name (`GeForce RTX 4090`, `RTX A6000`,
// `Quadro RTX 8000`); `Tesla` is dropped so `NVIDIA Tesla V100` and `Tesla V100` agree.
bool is_brand_word(string_view w) {
  return w == "GeForce" || w == "RTX" || w == "Quadro" || w == "TITAN";
}

string_view word_at(string_view s) {
  std::size_t n = 0;
  while (n < s.size() && (is_upper(s[n]) || is_lower(s[n]) || is_digit(s[n]))) ++n;
  return s.substr(0, n);
}

// The model after `NVIDIA `/`Tesla `: `H100 80GB HBM3` → `H100`, `A100-SXM4-80GB` → `A100`,
// `GeForce RTX 4090` → `GeForce RTX 4090`. The model word must contain a digit, which rejects
// prose such as `NVIDIA Corporation`, `NVIDIA Apex` or `NVIDIA driver`.
string_view gpu_model_at(string_view s) {
  if (s.substr(0, 6) == "Tesla ") s = s.substr(6);
  std::size_t begin = 0, pos = 0;
  for (int words = 0; words < 4; ++words) {
    string_view w = word_at(s.substr(pos));
    if (w.empty()) return {};
    if (is_brand_word(w)) {
      pos += w.size();
      if (pos >= s.size() || s[pos] != ' ') return {};
      ++pos;
      continue;
    }
    if (!is_upper(w[0]) && !is_digit(w[0])) return {};
    if (std::none_of(w.begin(), w.end(), is_digit)) return {};
    return s.substr(begin, pos + w.size() - begin);
  }
  return {};
}

// `9` `0` → "9.0"; 1-2 digit major, 1 digit minor (sm_100 is 10.0, sm_120 is 12.0).
bool capability_digits(string_view major, string_view minor, std::string& cc) {
  if (major.empty() || major.size() > 2 || minor.size() != 1) return false;
  cc.assign(major);
  cc += '.';
  cc += minor;
  return true;
}

// `sm_90`, `sm_90a`, `sm_100` → major/minor digits.
bool capability_from_sm(string_view s, std::string& cc) {
  string_view d = leading_uint(s);
  if (d.size() < 2 || d.size() > 3) return false;
  return capability_digits(d.substr(0, d.size() - 1), d.substr(d.size() - 1), cc);
}

// Compute capability on a line that names a GPU: `compute capability 9.0`, `CUDA capability
// sm_90`, `cuda capability 9.0`, `major=9, minor=0` (torch device properties) or `(9, 0)`
// (torch.cuda.get_device_capability()). Only called on GPU lines, so cost does not matter.
bool find_capability(string_view s, std::string& cc) {
  string_view v;
  if (after(s, "apability", v)) {  // compute/Compute/cuda/CUDA capability
    std::size_t i = 0;
    while (i < v.size() && (v[i] == ' ' || v[i] == ':' || v[i] == '=')) ++i;
    v = v.substr(i);
    if (v.substr(0, 3) == "sm_" && capability_from_sm(v.substr(3), cc)) return true;
    string_view major = leading_uint(v);
    if (!major.empty() && v.size() > major.size() + 1 && v[major.size()] == '.') {
      string_view minor = leading_uint(v.substr(major.size() + 1));
      if (capability_digits(major, minor, cc)) return true;
    }
  }
  if (after(s, "sm_", v) && capability_from_sm(v, cc)) return true;
  string_view minor_rest;
  if (after(s, "major=", v) && after(v, "minor=", minor_rest) &&
      capability_digits(leading_uint(v), leading_uint(minor_rest), cc)) {
    return true;
  }
  for (std::size_t p = s.find('('); p != string_view::npos; p = s.find('(', p + 1)) {
    string_view t = s.substr(p + 1);
    string_view major = leading_uint(t);
    t = t.substr(major.size());
    if (major.empty() || t.substr(0, 2) != ", ") continue;
    string_view minor = leading_uint(t.substr(2));
    if (t.substr(2 + minor.size(), 1) != ")") continue;
    if (capability_digits(major, minor, cc)) return true;
  }
  return false;
}

// Positions of `NVIDIA ` and `Tesla ` in `s`, in order, starting at `from`; npos at the end.
// This is the one gate that looks at the whole line: GPU names appear anywhere (nvidia-smi
// table cells, `GPU 0: NVIDIA H200`, `… on vm (NVIDIA H200)`). It anchors on the rare bytes
// 'V' and 'T' with memchr; string_view::find would anchor on 'N', which every `NCCL INFO`
// line has (docs/performance.md, "Figures behind code comments").
std::size_t find_vendor(string_view s, std::size_t from, std::size_t& vendor_len) {
  constexpr string_view kNvidia = "NVIDIA ", kTesla = "Tesla ";
  std::size_t best = string_view::npos;
  for (std::size_t p = from + 1; p < s.size();) {
    const void* hit = std::memchr(s.data() + p, 'V', s.size() - p);
    if (hit == nullptr) break;
    p = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    if (s.substr(p - 1, kNvidia.size()) == kNvidia) {
      best = p - 1;
      vendor_len = kNvidia.size();
      break;
    }
    ++p;
  }
  for (std::size_t p = from; p < s.size() && p < best;) {
    const void* hit = std::memchr(s.data() + p, 'T', std::min(best, s.size()) - p);
    if (hit == nullptr) break;
    p = static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
    if (s.substr(p, kTesla.size()) == kTesla) {
      best = p;
      vendor_len = 0;  // gpu_model_at drops `Tesla ` itself
      break;
    }
    ++p;
  }
  return best;
}

bool parse_gpu_line(string_view body, std::uint64_t line, int rank, FactOut& out) {
  std::size_t vendor_len = 0;
  for (std::size_t pos = find_vendor(body, 0, vendor_len); pos != string_view::npos;
       pos = find_vendor(body, pos + 1, vendor_len)) {
    string_view model = gpu_model_at(body.substr(pos + vendor_len));
    if (model.empty()) continue;
    emit(out, "gpu_model", model, line, rank);
    std::string cc;
    if (find_capability(body, cc)) emit(out, "compute_capability", cc, line, rank);
    return true;
  }
  return false;
}

// The Hugging Face Trainer (and TRL, LLaMA-Factory, ...) logs progress as a Python dict:
// `{'loss': 1.2345, 'grad_norm': 3.2, 'learning_rate': 1e-05, 'epoch': 0.12}`, evaluations as
// `{'eval_loss': ...}` and the end of training as `{'train_runtime': ...}`; often glued to a tqdm
// bar on the same line. Gives `logged_progress`: the epoch when printed, else "yes".
constexpr string_view kTrainerLogHeads[] = {"{'loss': ", "{'eval_loss': ", "{'train_runtime': "};
bool parse_trainer_log(string_view s, std::uint64_t line, int rank, FactOut& out) {
  // Every head starts with `{`: one look for that byte per line (most lines have none), the
  // heads compared only where it is. The first head of the list that occurs wins, as it would
  // with one search per head.
  constexpr std::size_t kHeads = std::size(kTrainerLogHeads);
  std::size_t first[kHeads];
  std::fill(std::begin(first), std::end(first), string_view::npos);
  for (std::size_t at = s.find('{'); at != string_view::npos; at = s.find('{', at + 1)) {
    for (std::size_t h = 0; h < kHeads; ++h)
      if (first[h] == string_view::npos && s.substr(at, kTrainerLogHeads[h].size()) == kTrainerLogHeads[h]) first[h] = at;
  }
  const std::size_t* found =
      std::find_if(std::begin(first), std::end(first), [](std::size_t at) { return at != string_view::npos; });
  if (found == std::end(first)) return false;
  const std::size_t at = *found;
  string_view v;
  string_view epoch;
  if (after(s.substr(at), "'epoch': ", v)) epoch = number_token(v.substr(0, v.find('}')));
  emit(out, "logged_progress", epoch.empty() ? string_view("yes") : epoch, line, rank);
  return true;
}

// Every line goes through here: a switch on the first non-blank byte, then one literal compare
// per candidate shape. Returns true when the line gave facts.
bool parse_startup_line(string_view body, std::uint64_t line, int rank, FactOut& out) {
  string_view s = ltrim(body);
  if (s.empty()) return false;
  switch (s[0]) {
    case 'u': {
      WorldSizeLine ws;
      if (!parse_world_size(s, ws)) return false;
      emit_world_size(ws, line, rank, out);
      return true;
    }
    case 's':
      return parse_setting(s, line, rank, out);
    case '>':
      return parse_initialized(s, line, rank, out);
    case '[':
      return parse_memory_report(s, line, out) || iteration_line(s, line, rank, out);
    case 'i':
      return iteration_line(s, line, rank, out);
    case '+': {
      // bash -x: `+ export MASTER_ADDR=node1`, `++ NNODES=2`.
      std::size_t i = 0;
      while (i < s.size() && s[i] == '+') ++i;
      s = ltrim(s.substr(i));
      if (s.substr(0, 7) == "export ") s = ltrim(s.substr(7));
      return !s.empty() && is_upper(s[0]) && parse_env_echo(s, line, rank, out);
    }
    case 'e':
      if (s.substr(0, 7) != "export ") return false;
      s = ltrim(s.substr(7));
      return !s.empty() && is_upper(s[0]) && parse_env_echo(s, line, rank, out);
    default:
      break;
  }
  if (!is_upper(s[0])) return false;
  constexpr string_view kMicrobatchLogger = "INFO:megatron.core.num_microbatches_calculator:";
  if (s.substr(0, kMicrobatchLogger.size()) == kMicrobatchLogger) {
    return parse_setting(s.substr(kMicrobatchLogger.size()), line, rank, out);
  }
  if (s[0] == 'T' && parse_theoretical(s, line, rank, out)) return true;
  // Env echoes are only looked for on lines that start with an upper-case letter (after `+ ` or
  // `export `): that is how `echo "MASTER_ADDR=…"`, `env` and bash -x print them, and it keeps
  // the memchr for '=' off the NCCL/hostname-led lines that make up most of a log.
  return parse_env_echo(s, line, rank, out);
}

}  // namespace

bool parse_world_size_line(std::string_view body, std::vector<Fact>& out) {
  WorldSizeLine ws;
  if (!parse_world_size(body, ws)) return false;
  FactList list(out);
  emit_world_size(ws, 0, -1, list);
  return true;
}

bool parse_args_dump_line(std::string_view body, std::string& key, std::string& value) {
  string_view k, v;
  if (!split_dump_line(body, k, v)) return false;
  key.assign(k);
  value.assign(v);
  return true;
}

const std::vector<std::string>& ConfigExtractor::gpu_vendor_literals() {
  static const std::vector<std::string> literals = {"NVIDIA ", "Tesla "};  // find_vendor's
  return literals;
}

const std::vector<std::string>& ConfigExtractor::trigger_literals() {
  static const std::vector<std::string> literals = [] {
    std::vector<std::string> l = {
        " arguments ", "end of arguments",                    // dump banners
        "using world size: ",                                 // parse_world_size
        "setting global batch size to ", "setting number of micro",  // parse_setting
        "> initializ",                                        // parse_initialized
        " memory (MB) |",                                     // parse_memory_report
        "iteration ",                                         // parse_iteration
        "Theoretical memory footprints:",                     // parse_theoretical
    };
    for (string_view head : kTrainerLogHeads) l.emplace_back(head);  // parse_trainer_log
    l.insert(l.end(), gpu_vendor_literals().begin(), gpu_vendor_literals().end());  // find_vendor
    for (const EnvKey& e : kEnvKeys) l.push_back(std::string(e.name) + "=");  // parse_env_echo
    return l;
  }();
  return literals;
}

void ConfigExtractor::feed(std::string_view body, std::uint64_t line, int rank, std::vector<Fact>& out,
                           bool may_name_gpu) {
  FactList list(out);
  feed(body, line, rank, list, may_name_gpu);
}

void ConfigExtractor::feed(std::string_view body, std::uint64_t line, int rank, FactOut& out,
                           bool may_name_gpu) {
  if (body.empty()) return;
  // Dump banners: `------------------------ arguments ------------------------` and
  // `-------------------- end of arguments ---------------------` (dash counts differ between
  // versions, so only the words are matched).
  if (body[0] == '-') {
    if (body.substr(0, 3) != "---") return;
    if (body.find("end of arguments") != string_view::npos) {
      if (in_dump_) emit(out, "args_dump_seen", "1", line, rank);
      in_dump_ = false;
      return;
    }
    if (body.find(" arguments ") != string_view::npos) {
      in_dump_ = true;
      dump_gap_lines_ = 0;
    }
    return;
  }
  if (in_dump_) {
    string_view key, value;
    if (split_dump_line(body, key, value)) {
      dump_gap_lines_ = 0;
      if (wanted_dump_key(key)) emit(out, key, value, line, rank);
      return;
    }
    if (++dump_gap_lines_ > kMaxDumpGapLines) in_dump_ = false;
    // Not a dump line: an interleaved line may still carry a fact below.
  }
  if (parse_startup_line(body, line, rank, out)) return;
  if (parse_trainer_log(body, line, rank, out)) return;
  if (may_name_gpu) parse_gpu_line(body, line, rank, out);
}

}  // namespace megatriage
