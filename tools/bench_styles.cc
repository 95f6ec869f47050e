// bench_styles: writes tools/bench's trees of other log styles, where most lines carry a
// timestamp or a per-line prefix (the common case on real clusters, and the slow one for a
// triage that parses every stamped line).
//
//   bench_styles STYLE OUTDIR TARGET_MB
//
//   mixed    128 per-rank files (`srun --output=logs/%x-%j-%t.out`, one task per rank): per
//            iteration 4 NCCL INFO lines, one c10 warning `[rank5]:[W1129 10:00:00.015838 ...]`,
//            one Megatron iteration line ` [2026-11-29 10:00:00] iteration ...`, one Python
//            UserWarning line
//   logging  128 per-rank files, every line stamped by Python logging as NeMo/Lightning jobs
//            print them: `2026-11-29 10:00:00,123 - INFO - logger - message`
//   srun     ONE file: `srun --label`, torchrun `--tee` and `[rankN]:` in front of every line,
//            and a c10 stamp on every line: `  3: [default5]:[rank29]:[W1129 10:00:00.015838 ...]`
//   pdsh     ONE file as the DeepSpeed launcher writes it through pdsh: `node012: ` in front of
//            every line, DeepSpeed's `[2026-11-29 10:00:00,123] [INFO] [timer.py:264:stop]`
//            stamps, NCCL INFO and UserWarning lines
//   coloured the logging style as a job with a terminal (`srun --pty`, FORCE_COLOR=1) writes it:
//            colorlog's colours on every stamp and level, `ESC[2m2026-11-29 10:00:00,123ESC[0m
//            - ESC[32mINFOESC[0m - ...`, and Python 3.13's coloured tracebacks
//   levelfirst  the logging style with the level first, `%(levelname)s %(asctime)s %(name)s - ...`:
//            `INFO 2026-11-29 10:00:00,123 megatron.training - ...`
//   pty      the logging style captured through a pseudo-terminal (`srun --pty`, `docker run -t`,
//            `script`): the terminal's output processing (ONLCR) ends every line with `\r\n`
//
// The job: 128 ranks, 16 nodes of 8 GPUs. Rank 77 (node010, local rank 5) raises
// torch.OutOfMemoryError in its backward pass; every other rank's NCCL watchdog fires 10
// minutes later and its process dies with a DistBackendError traceback. The root cause a
// triage must name: category oom, rank 77 (pdsh: host node010; its traceback names no rank).
// Line shapes follow fixtures/*/logs and reference/log-formats.md.
//
// Deterministic (fixed seed through splitmix64, keyed by rank and iteration); the number of
// iterations is chosen so that the tree is about TARGET_MB.
//
// Build: g++ -O2 -std=c++20 -o bench_styles tools/bench_styles.cc   (no dependencies)
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bench_write.h"

namespace {

using bench::kUs;

constexpr std::uint64_t kSeed = 0x7374796c6573ULL;  // "styles"
constexpr int kRanks = 128;
constexpr int kGpusPerNode = 8;
constexpr int kRootRank = 77;
constexpr int kJobId = 51877;
constexpr const char* kWs = "/lustre/proj/llm/megatron-lm";
constexpr const char* kSite = "/lustre/proj/llm/megatron-lm/.venv/lib/python3.11/site-packages";
constexpr std::int64_t kStart = 10 * 3600 * kUs;  // 2026-11-29 10:00:00
constexpr std::int64_t kIterUs = 1912 * 1000;
constexpr std::int64_t kTimeoutUs = 600 * kUs;

enum class Style { Mixed, Logging, Srun, Pdsh, Coloured, Pty, LevelFirst };

using bench::appendf;
using bench::Clock;
using bench::clock_of;
using bench::File;

struct Rng : bench::Rng {
  Rng(std::uint64_t a, std::uint64_t b) : bench::Rng(kSeed, a, b, 0) {}
};

int node_of(int rank) { return rank / kGpusPerNode; }
int local_of(int rank) { return rank % kGpusPerNode; }
int pid_of(int rank) { return 2300000 + rank * 37; }
std::string host(int node) {
  char b[16];
  std::snprintf(b, sizeof b, "node%03d", node + 1);
  return b;
}

// The stamp heads of each style. c10: `[W1129 10:00:00.015838 File.cpp:123] `.
void c10(std::string& o, char level, std::int64_t t, const char* where) {
  Clock c = clock_of(t);
  appendf(o, "[%c1129 %02d:%02d:%02d.%06" PRId64 " %s] ", level, c.h, c.m, c.s, c.us, where);
}
// Python logging's default asctime: `2026-11-29 10:00:00,123`.
void asctime(std::string& o, std::int64_t t) {
  Clock c = clock_of(t);
  appendf(o, "2026-11-29 %02d:%02d:%02d,%03" PRId64, c.h, c.m, c.s, c.us / 1000);
}

// What every line of a rank starts with in this style (none for the per-rank files).
std::string line_head(Style style, int rank) {
  char b[64];
  if (style == Style::Srun) {
    std::snprintf(b, sizeof b, "%3d: [default%d]:[rank%d]:", node_of(rank), local_of(rank), rank);
    return b;
  }
  if (style == Style::Pdsh) return host(node_of(rank)) + ": ";
  return "";
}

void nccl_coll(std::string& o, int rank, std::uint64_t op_count, Rng& r) {
  static const char* kOps[] = {"AllGather", "ReduceScatter", "AllReduce", "AllGather"};
  int pid = pid_of(rank);
  appendf(o, "%s:%d:%d [%d] NCCL INFO %s: opCount %" PRIx64 " sendbuff 0x7f%010" PRIx64 " recvbuff 0x7f%010" PRIx64
             " count %d datatype 9 op 0 root 0 comm 0x55d%09" PRIx64 " [nranks=%d] stream 0x55d%09" PRIx64 "\n",
          host(node_of(rank)).c_str(), pid, pid, local_of(rank), kOps[op_count % 4], op_count,
          r.below(1ULL << 36) << 4, r.below(1ULL << 36) << 4, 4194304 << (op_count % 3),
          static_cast<std::uint64_t>(rank) * 0x1234560 + 0x10, op_count % 4 == 2 ? kRanks : 8,
          static_cast<std::uint64_t>(rank) * 0x654320 + 0x20);
}

void user_warning(std::string& o) {
  appendf(o, "%s/torch/autograd/graph.py:825: UserWarning: c10d::allreduce_: an autograd kernel was not registered to the "
             "Autograd key(s) but we are trying to backprop through it. This may lead to silently incorrect behavior. "
             "(Triggered internally at /pytorch/torch/csrc/autograd/autograd_not_implemented_fallback.cpp:62.)\n", kSite);
}

std::int64_t iter_time(int k) { return kStart + 90 * kUs + static_cast<std::int64_t>(k) * kIterUs; }

// `text` as the coloured style writes it: colorlog's colours on a logging stamp and level, and
// Python 3.13's on a traceback's frames and exception (`File "x.py", line 3, in f` with the
// path, line and function magenta; the exception's name bold magenta, its message magenta).
void colour(std::string_view text, std::string& o) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::size_t level_end = line.find(" - ", 26);
    std::size_t comma = line.find("\", line ");
    std::size_t in = line.find(", in ");
    std::size_t colon = line.find(": ");
    if (line.size() > 26 && line.substr(0, 5) == "2026-" && line.substr(23, 3) == " - " && level_end != std::string_view::npos) {
      std::string_view level = line.substr(26, level_end - 26);
      const char* shade = level == "INFO" ? "32" : level == "WARNING" ? "33" : level == "ERROR" ? "31" : "36";
      appendf(o, "\x1b[2m%.23s\x1b[0m - \x1b[%sm%.*s\x1b[0m", line.data(), shade, static_cast<int>(level.size()), level.data());
      o.append(line.substr(level_end));
    } else if (line.substr(0, 8) == "  File \"" && comma != std::string_view::npos && in != std::string_view::npos) {
      o += "  File \x1b[35m";
      o.append(line.substr(7, comma + 1 - 7));
      o += "\x1b[0m, line \x1b[35m";
      o.append(line.substr(comma + 8, in - comma - 8));
      o += "\x1b[0m, in \x1b[35m";
      o.append(line.substr(in + 5));
      o += "\x1b[0m";
    } else if (colon != std::string_view::npos && line.substr(0, colon).find_first_of(" [") == std::string_view::npos &&
               line.substr(0, colon).find("Error") != std::string_view::npos) {
      o += "\x1b[1;35m";
      o.append(line.substr(0, colon));
      o += "\x1b[0m: \x1b[35m";
      o.append(line.substr(colon + 2));
      o += "\x1b[0m";
    } else {
      o.append(line);
    }
    if (nl != std::string_view::npos) o += '\n';
  }
}

// `text` as a pseudo-terminal passes it on: each '\n' becomes "\r\n" (ONLCR).
void crlf(std::string_view text, std::string& o) {
  for (char c : text) {
    if (c == '\n') o += '\r';
    o += c;
  }
}

// `text` with each logging line's level before its stamp: `2026-11-29 10:00:00,123 - INFO - x -`
// becomes `INFO 2026-11-29 10:00:00,123 x -`.
void level_first(std::string_view text, std::string& o) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::size_t level_end = line.find(" - ", 26);
    if (line.size() > 26 && line.substr(0, 5) == "2026-" && line.substr(23, 3) == " - " && level_end != std::string_view::npos) {
      o.append(line.substr(26, level_end - 26));
      o += ' ';
      o.append(line.substr(0, 23));
      o += ' ';
      o.append(line.substr(level_end + 3));
    } else {
      o.append(line);
    }
    if (nl != std::string_view::npos) o += '\n';
  }
}

// One training iteration of one rank, as its process writes it (no per-line head).
void iteration(Style style, int rank, int k, std::string& o) {
  Rng r(static_cast<std::uint64_t>(rank) + 1, static_cast<std::uint64_t>(k) + 1);
  std::int64_t t = iter_time(k) + static_cast<std::int64_t>(r.below(kUs));
  double loss = 7.5 * std::max(0.3, 1.0 - k / 4000.0) + r.unit() * 0.05;
  Clock c = clock_of(t);
  switch (style) {
    case Style::Coloured: {
      std::string plain;
      iteration(Style::Logging, rank, k, plain);
      colour(plain, o);
      return;
    }
    case Style::Pty: {
      std::string plain;
      iteration(Style::Logging, rank, k, plain);
      crlf(plain, o);
      return;
    }
    case Style::LevelFirst: {
      std::string plain;
      iteration(Style::Logging, rank, k, plain);
      level_first(plain, o);
      return;
    }
    case Style::Mixed:
      for (int i = 0; i < 4; ++i) nccl_coll(o, rank, static_cast<std::uint64_t>(k) * 4 + i, r);
      appendf(o, "[rank%d]:", rank);
      c10(o, 'W', t, "ProcessGroupNCCL.cpp:4718");
      appendf(o, "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus "
                 "deprecated. (function operator())\n");
      appendf(o, " [2026-11-29 %02d:%02d:%02d] iteration %8d/  500000 | consumed samples: %12d | elapsed time per "
                 "iteration (ms): %.1f | learning rate: 3.000000E-04 | global batch size:   256 | lm loss: %.6E | "
                 "loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
              c.h, c.m, c.s, k, k * 256, 1912.0 + r.unit() * 40, loss, 0.3 + r.unit() * 0.2);
      user_warning(o);
      return;
    case Style::Logging: {
      static const char* kLines[] = {
          "INFO - megatron.training - iteration %d/500000 | lm loss: %.6E | grad norm: %.3f",
          "INFO - megatron.core.timers - forward-backward: %.2f ms | optimizer: %.2f ms",
          "INFO - lightning.pytorch.utilities.rank_zero - Epoch 0, global step %d: 'train_loss' reached %.5f",
          "INFO - nemo.collections.llm.gpt.data - Loading batch %d from shard %d",
          "WARNING - py.warnings - %s/torch/utils/checkpoint.py:%d: UserWarning: None of the inputs have requires_grad=True. "
          "Gradients will be None",
          "INFO - megatron.core.optimizer - step %d: found inf/nan: False, scale %.1f",
          "DEBUG - torch.distributed.distributed_c10d - barrier on group %d done in %.3f s",
      };
      for (int i = 0; i < 7; ++i) {
        asctime(o, t + i * 137000);
        o += " - ";
        switch (i) {
          case 0: appendf(o, kLines[0], k, loss, 0.3 + r.unit() * 0.2); break;
          case 1: appendf(o, kLines[1], 1500 + r.unit() * 90, 120 + r.unit() * 9); break;
          case 2: appendf(o, kLines[2], k, loss); break;
          case 3: appendf(o, kLines[3], k * 8 + rank, static_cast<int>(r.below(512))); break;
          case 4: appendf(o, kLines[4], kSite, 61 + static_cast<int>(r.below(3))); break;
          case 5: appendf(o, kLines[5], k, 65536.0); break;
          default: appendf(o, kLines[6], static_cast<int>(r.below(4)), r.unit()); break;
        }
        o += '\n';
      }
      return;
    }
    case Style::Srun: {
      static const char* kWhere[] = {"ProcessGroupNCCL.cpp:4718", "ProcessGroupNCCL.cpp:1985", "CUDAAllocatorConfig.h:28",
                                     "ProcessGroupNCCL.cpp:2291", "Utils.hpp:164"};
      for (int i = 0; i < 7; ++i) {
        c10(o, i == 1 || i == 3 ? 'I' : 'W', t + i * 211000, kWhere[i % 5]);
        switch (i % 5) {
          case 0: appendf(o, "Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated. (function operator())\n"); break;
          case 1: appendf(o, "[PG ID %d PG GUID %d Rank %d] ProcessGroupNCCL broadcast unique ID through store took %.3f ms\n", i, i + 3, rank, r.unit()); break;
          case 2: appendf(o, "Warning: expandable_segments not supported on this platform (function operator())\n"); break;
          case 3: appendf(o, "[PG ID 0 PG GUID 0(default_pg) Rank %d] iteration %d: NCCL work enqueued, SeqNum=%d\n", rank, k, k * 26 + i); break;
          default: appendf(o, "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())\n"); break;
        }
      }
      return;
    }
    case Style::Pdsh:
      for (int i = 0; i < 3; ++i) nccl_coll(o, rank, static_cast<std::uint64_t>(k) * 3 + i, r);
      for (int i = 0; i < 2; ++i) {
        o += '[';
        asctime(o, t + i * 250000);
        appendf(o, "] [INFO] [timer.py:264:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, "
                   "CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB\n",
                k * 2 + i, k, 133.0 + r.unit(), 131.0 + r.unit() * 4, 31.0 + r.unit(), 68.0 + r.unit());
      }
      user_warning(o);
      o += '[';
      asctime(o, t + 600000);
      appendf(o, "] [INFO] [logging.py:128:log_dist] [Rank %d] step=%d, skipped=0, lr=[0.0003], mom=[(0.9, 0.95)]\n", rank, k);
      return;
  }
}

// The root rank's out-of-memory traceback in its backward pass.
void oom_traceback(int rank, std::string& o) {
  const char* frames[][3] = {
      {kWs, "pretrain_gpt.py\", line 322, in <module>", "    pretrain("},
      {kWs, "megatron/training/training.py\", line 1710, in pretrain", "    iteration, num_floating_point_operations_so_far = train("},
      {kWs, "megatron/training/training.py\", line 2210, in train", "    ) = train_step("},
      {kWs, "megatron/training/training.py\", line 2430, in train_step", "    losses_reduced = forward_backward_func("},
      {kWs, "megatron/core/pipeline_parallel/schedules.py\", line 412, in backward_step", "    custom_backward(output_tensor[0], output_tensor_grad[0])"},
      {kSite, "torch/autograd/function.py\", line 307, in apply", "    return user_fn(self, *args)"},
      {kWs, "megatron/core/tensor_parallel/layers.py\", line 640, in backward", "    grad_input = grad_output.matmul(weight)"},
  };
  o += "Traceback (most recent call last):\n";
  for (auto& f : frames) appendf(o, "  File \"%s/%s\n%s\n", f[0], f[1], f[2]);
  appendf(o, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU %d has a total capacity of 79.11 GiB of "
             "which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.88 GiB memory in use. Of the allocated "
             "memory 70.12 GiB is allocated by PyTorch, and 6.28 GiB is reserved by PyTorch but unallocated. If reserved but "
             "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
             "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n",
          local_of(rank));
}

// A surviving rank 10 minutes later: the watchdog's c10 lines and the DistBackendError traceback.
// `rank_prefix`: c10 writes `[rankN]:` itself (the srun style's heads carry it already).
void watchdog(int rank, std::int64_t t, bool rank_prefix, std::string& o) {
  char work[160];
  std::snprintf(work, sizeof work, "WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)", 90210);
  if (rank_prefix) appendf(o, "[rank%d]:", rank);
  c10(o, 'E', t, "ProcessGroupNCCL.cpp:616");
  appendf(o, "[Rank %d] Watchdog caught collective operation timeout: %s ran for 600311 milliseconds before timing out.\n", rank, work);
  if (rank_prefix) appendf(o, "[rank%d]:", rank);
  c10(o, 'E', t, "ProcessGroupNCCL.cpp:1785");
  appendf(o, "[PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: 90210, "
             "last enqueued NCCL work: 90210, last completed NCCL work: 90209.\n", rank);
  o += "Traceback (most recent call last):\n";
  appendf(o, "  File \"%s/megatron/training/training.py\", line 2452, in train_step\n    loss_reduced[key] = numerator / denominator\n", kWs);
  appendf(o, "  File \"%s/torch/distributed/distributed_c10d.py\", line 2501, in all_reduce\n    work.wait()\n", kSite);
  appendf(o, "torch.distributed.DistBackendError: NCCL communicator was aborted on rank %d.\n", rank);
}

// What rank `rank` writes after its last iteration.
void ending(Style style, int rank, int iters, std::string& o) {
  std::int64_t crash = iter_time(iters) + 1340 * 1000;
  if (rank == kRootRank) {
    oom_traceback(rank, o);
    return;
  }
  Rng r(static_cast<std::uint64_t>(rank) + 9, 77);
  watchdog(rank, crash + kTimeoutUs + static_cast<std::int64_t>(r.below(2 * kUs)), style != Style::Srun, o);
}

// Every line of `text` behind `head`.
void with_head(const std::string& head, std::string_view text, std::string& o) {
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    o += head;
    o.append(text.substr(0, end));
    text.remove_prefix(end);
  }
}

// One file per rank (mixed, logging).
std::uint64_t write_per_rank(Style style, int iters, const std::filesystem::path& logs) {
  std::uint64_t total = 0;
  std::string text;
  const bool logging =
      style == Style::Logging || style == Style::Coloured || style == Style::Pty || style == Style::LevelFirst;
  const char* name = logging ? "nemo" : "gpt";
  for (int rank = 0; rank < kRanks; ++rank) {
    File f(logs / (std::string(name) + "-" + std::to_string(kJobId) + "-" + std::to_string(rank) + ".out"));
    for (int k = 1; k <= iters; ++k) {
      text.clear();
      iteration(style, rank, k, text);
      f.put(text);
    }
    text.clear();
    if (logging && rank == kRootRank) {
      asctime(text, iter_time(iters) + 1340 * 1000);
      text += " - ERROR - nemo.collections.llm.api - training step failed, see the traceback below\n";
    }
    ending(style, rank, iters, text);
    if (style == Style::Coloured) {
      std::string coloured;
      colour(text, coloured);
      text.swap(coloured);
    } else if (style == Style::Pty) {
      std::string ended;
      crlf(text, ended);
      text.swap(ended);
    } else if (style == Style::LevelFirst) {
      std::string moved;
      level_first(text, moved);
      text.swap(moved);
    }
    f.put(text);
    total += f.bytes;
  }
  return total;
}

// One file of every rank's lines, each behind its head, interleaved a few lines at a time
// (one write() per buffered print), each process's own lines in order.
std::uint64_t write_interleaved(Style style, int iters, const std::filesystem::path& logs) {
  File f(logs / ((style == Style::Pdsh ? "deepspeed-" : "gpt-") + std::to_string(kJobId) + ".out"));
  std::vector<std::string> heads(kRanks), texts(kRanks);
  for (int rank = 0; rank < kRanks; ++rank) heads[rank] = line_head(style, rank);
  std::vector<std::size_t> pos(kRanks);
  std::vector<int> live;
  std::string block;
  for (int k = 1; k <= iters + 1; ++k) {
    for (int rank = 0; rank < kRanks; ++rank) {
      texts[rank].clear();
      pos[rank] = 0;
      if (k <= iters)
        iteration(style, rank, k, texts[rank]);
      else
        ending(style, rank, iters, texts[rank]);
    }
    live.clear();
    for (int rank = 0; rank < kRanks; ++rank) live.push_back(rank);
    Rng r(4242, static_cast<std::uint64_t>(k));
    block.clear();
    // The root's traceback comes before the others' watchdog output: they fire 10 minutes later.
    if (k == iters + 1) {
      with_head(heads[kRootRank], texts[kRootRank], block);
      live.erase(std::find(live.begin(), live.end(), kRootRank));
    }
    while (!live.empty()) {
      std::size_t pick = r.below(live.size());
      int rank = live[pick];
      const std::string& t = texts[rank];
      int burst = 1 + static_cast<int>(r.below(4));
      for (int b = 0; b < burst && pos[rank] < t.size(); ++b) {
        std::size_t nl = t.find('\n', pos[rank]);
        std::size_t end = nl == std::string::npos ? t.size() : nl + 1;
        block += heads[rank];
        block.append(t, pos[rank], end - pos[rank]);
        pos[rank] = end;
      }
      if (pos[rank] >= t.size()) {
        live[pick] = live.back();
        live.pop_back();
      }
    }
    f.put(block);
  }
  return f.bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench_styles mixed|logging|srun|pdsh|coloured|pty|levelfirst OUTDIR TARGET_MB\n");
    return 2;
  }
  std::string_view name = argv[1];
  Style style;
  if (name == "mixed") style = Style::Mixed;
  else if (name == "logging") style = Style::Logging;
  else if (name == "srun") style = Style::Srun;
  else if (name == "pdsh") style = Style::Pdsh;
  else if (name == "coloured") style = Style::Coloured;
  else if (name == "pty") style = Style::Pty;
  else if (name == "levelfirst") style = Style::LevelFirst;
  else {
    std::fprintf(stderr, "bench_styles: unknown style '%s'\n", argv[1]);
    return 2;
  }
  double target = std::atof(argv[3]) * 1e6;
  // Bytes of one iteration over all ranks, heads included, sizes the tree.
  std::uint64_t per_iter = 0;
  std::string text;
  for (int rank = 0; rank < kRanks; ++rank) {
    text.clear();
    iteration(style, rank, 5, text);
    std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    per_iter += text.size() + lines * line_head(style, rank).size();
  }
  int iters = std::max(2, static_cast<int>(target / static_cast<double>(per_iter)));
  if (iter_time(iters) + 2 * kTimeoutUs > 23LL * 3600 * kUs) {  // c10 stamps carry no date
    std::fprintf(stderr, "bench_styles: TARGET_MB too large for one day of iterations\n");
    return 2;
  }
  std::filesystem::path logs = std::filesystem::path(argv[2]) / "logs";
  std::filesystem::create_directories(logs);
  bool one_file = style == Style::Srun || style == Style::Pdsh;
  std::uint64_t bytes = one_file ? write_interleaved(style, iters, logs) : write_per_rank(style, iters, logs);
  std::printf("%s ranks=%d iterations=%d bytes=%" PRIu64 "\n", argv[1], kRanks, iters, bytes);
  return 0;
}
