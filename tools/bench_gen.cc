// bench_gen: writes the synthetic failed-job log trees that tools/bench measures megatriage on.
//
//   bench_gen logdir      OUTDIR RANKS TARGET_MB   # per-rank torchrun --log-dir tree
//   bench_gen interleaved OUTDIR RANKS TARGET_MB   # the same job as one srun --label file
//
// The job: RANKS ranks (8 per node) of a Megatron-LM GPT run (TP 8, PP 1, distributed
// optimizer), NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,COLL, launched as one torchrun per
// node by srun. Rank 517 (node065, local rank 5) raises torch.OutOfMemoryError in backward;
// its agent SIGTERMs its 7 node-mates; every other rank hangs in the next all-reduce and its
// NCCL watchdog fires ~10 minutes later (c10 watchdog family, the C++ `terminate called` dump
// and a `DistBackendError` Python traceback), after which every agent reports its failed
// workers. Line shapes are copied from fixtures/*/logs and reference/log-formats.md §1–§5.
//
// Deterministic: every byte comes from a fixed seed through splitmix64, keyed by (rank,
// phase), so both layouts hold the same lines and a rerun writes identical files. The number
// of training iterations before the crash is chosen so that the tree is about TARGET_MB.
//
// Build: g++ -O2 -std=c++20 -o bench_gen tools/bench_gen.cc   (no dependencies)
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

constexpr std::uint64_t kSeed = 0x6d656761747269ULL;  // "megatri"
constexpr int kGpusPerNode = 8;
constexpr int kRootRank = 517;
constexpr int kJobId = 48213;
constexpr const char* kWs = "/lustre/proj/llm/megatron-lm";
constexpr const char* kSite = "/lustre/proj/llm/megatron-lm/.venv/lib/python3.11/site-packages";
constexpr std::int64_t kStart = (6 * 3600 + 40 * 60 + 3) * kUs;  // 2026-11-30 06:40:03
constexpr std::int64_t kIterUs = 1912 * 1000;                     // ~1.9 s per iteration
constexpr std::int64_t kTimeoutUs = 600 * kUs;                   // Megatron's 10 min NCCL timeout

using bench::appendf;
using bench::Clock;
using bench::clock_of;
using bench::File;

struct Rng : bench::Rng {
  Rng(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0) : bench::Rng(kSeed, a, b, c) {}
};

// ---------------------------------------------------------------- formatting helpers

// c10 C++ log header: `[W1130 06:41:02.512345678 file.cpp:123] ` (9 digits from the monotonic clock).
void c10(std::string& o, int rank, char level, std::int64_t t, Rng& r, const char* where) {
  Clock c = clock_of(t);
  if (rank >= 0) appendf(o, "[rank%d]:", rank);
  appendf(o, "[%c1130 %02d:%02d:%02d.%09" PRIu64 " %s] ", level, c.h, c.m, c.s, r.below(1000000000ULL), where);
}

// torch Python (torchelastic agent) glog-like header: `E1130 07:08:30.601000 618 path:line] `.
void glog(std::string& o, char level, std::int64_t t, int pid, const char* where) {
  Clock c = clock_of(t);
  appendf(o, "%c1130 %02d:%02d:%02d.%06" PRId64 " %d %s] ", level, c.h, c.m, c.s, c.us / 1000 * 1000, pid, where);
}

std::string hms(std::int64_t t) {
  Clock c = clock_of(t);
  char b[48];
  std::snprintf(b, sizeof b, "%02d:%02d:%02d", c.h, c.m, c.s);
  return b;
}

// ---------------------------------------------------------------- the job

struct Job {
  int ranks = 1024;
  int nodes = 128;
  int iters = 100;  // completed iterations before the crash iteration
  int tp = 8;
  int dp() const { return ranks / tp; }
  int node_of(int rank) const { return rank / kGpusPerNode; }
  int local_of(int rank) const { return rank % kGpusPerNode; }
  int root_node() const { return node_of(kRootRank); }
  bool killed_mate(int rank) const { return rank != kRootRank && node_of(rank) == root_node(); }
  std::string host(int node) const {
    char b[32];
    std::snprintf(b, sizeof b, "node%03d", node + 1);
    return b;
  }
  int pid(int rank) const { return 1700000 + static_cast<int>((static_cast<std::uint64_t>(rank) * 7919) % 600000); }
  int agent_pid(int node) const { return 1600000 + node * 131; }
  // Phases: 0 startup, 1..iters training, iters+1 the crash iteration, iters+2 watchdog, iters+3 exit.
  int phases() const { return iters + 4; }
  std::int64_t iter_time(int k) const { return kStart + 75 * kUs + static_cast<std::int64_t>(k) * kIterUs; }
  std::int64_t crash_time() const { return iter_time(iters + 1) + 1340 * 1000; }
  std::int64_t hang_time() const { return iter_time(iters + 1) + 1120 * 1000; }  // the all-reduce that never completes
  std::int64_t seq_of_hang() const { return 37 + static_cast<std::int64_t>(iters + 1) * 6 - 2; }
};

// Comm pointers, stream pointers, buffers: stable per (rank, comm).
std::uint64_t ptr(int rank, int what) {
  Rng r(static_cast<std::uint64_t>(rank) + 1, static_cast<std::uint64_t>(what) + 77);
  return 0x55d000000000ULL + (r.next() & 0xffffff0ULL) * 16;
}
std::uint64_t dev_ptr(int rank, int what) {
  Rng r(static_cast<std::uint64_t>(rank) + 1, static_cast<std::uint64_t>(what) + 991);
  return 0x7f0000000000ULL + (r.next() & 0xfffff0ULL) * 0x10000;
}

void nccl(std::string& o, const Job& job, int rank, int tid_off = 0) {
  int pid = job.pid(rank);
  appendf(o, "%s:%d:%d [%d] NCCL INFO ", job.host(job.node_of(rank)).c_str(), pid, pid + tid_off, job.local_of(rank));
}

struct CommSpec {
  const char* name;
  int id;
  int nranks;
  int rank_in;
  int nnodes;
  int channels;
};

std::vector<CommSpec> comms_of(const Job& job, int rank) {
  int l = job.local_of(rank);
  int n = job.node_of(rank);
  return {
      {"world", 0, job.ranks, rank, job.nodes, 16},
      {"tp", 1, job.tp, l, 1, 32},
      {"dp", 2, job.dp(), n, job.nodes, 16},
      {"dp-cp", 3, job.dp(), n, job.nodes, 16},
      {"embd", 4, 1, 0, 1, 2},
  };
}

void nccl_init_comm(std::string& o, const Job& job, int rank, const CommSpec& c, Rng& r) {
  std::uint64_t comm = ptr(rank, c.id);
  std::uint64_t commid = (Rng(static_cast<std::uint64_t>(c.id) + 5, static_cast<std::uint64_t>(rank % (c.id == 1 ? 1 : 8)) + 1).next());
  int l = job.local_of(rank);
  int bus = 0x18 + l * 0x11;
  nccl(o, job, rank);
  appendf(o, "ncclCommInitRank comm 0x%" PRIx64 " rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%" PRIx64 " - Init START\n",
          comm, c.rank_in, c.nranks, l, l, bus, commid);
  nccl(o, job, rank);
  appendf(o, "Setting affinity for GPU %d to %s\n", l, l < 4 ? "ffffffff,00000000,ffffffff" : "ffffffff,00000000,ffffffff,00000000");
  nccl(o, job, rank);
  appendf(o, "NVLS multicast support is not available on dev %d\n", l);
  nccl(o, job, rank);
  appendf(o, "comm 0x%" PRIx64 " rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0\n", comm, c.rank_in, c.nranks,
          c.nnodes, c.nnodes == 1 ? c.nranks : kGpusPerNode, c.nnodes == 1 ? c.rank_in : l);
  int prev = (c.rank_in + c.nranks - 1) % c.nranks, next = (c.rank_in + 1) % c.nranks;
  for (int ch = 0; ch < c.channels; ch += 8) {
    nccl(o, job, rank);
    for (int k = ch; k < std::min(ch + 8, c.channels); ++k)
      appendf(o, "%sTrees [%d] %d/-1/-1->%d->%d", k == ch ? "" : " ", k, prev, c.rank_in, next);
    o += '\n';
  }
  nccl(o, job, rank);
  appendf(o, "P2P Chunksize set to 524288\n");
  if (c.rank_in == 0 && c.nranks <= 128) {  // rank 0 of a communicator prints its rings
    for (int ch = 0; ch < c.channels; ++ch) {
      nccl(o, job, rank);
      appendf(o, "Channel %02d/%02d :", ch, c.channels);
      for (int k = 0; k < c.nranks; ++k) appendf(o, " %3d", (k + ch) % c.nranks);
      o += '\n';
    }
  }
  nccl(o, job, rank, 211 + c.id);
  appendf(o, "[Proxy Service] Device %d CPU core %d\n", l, static_cast<int>(r.below(96)));
  nccl(o, job, rank, 212 + c.id);
  appendf(o, "[Proxy Service UDS] Device %d CPU core %d\n", l, static_cast<int>(r.below(96)));
  bool net = c.nnodes > 1 && (l == 0 || l == kGpusPerNode - 1);
  for (int ch = 0; ch < c.channels; ++ch) {
    nccl(o, job, rank);
    if (net && l == kGpusPerNode - 1)
      appendf(o, "Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA\n", ch, c.rank_in, l, next, 0, ch % 4);
    else if (net)
      appendf(o, "Channel %02d/0 : %d[%d] -> %d[%d] [receive] via NET/IB/%d/GDRDMA\n", ch, prev, kGpusPerNode - 1, c.rank_in, l, ch % 4);
    else
      appendf(o, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read\n", ch, c.rank_in, l, next, (l + 1) % kGpusPerNode);
  }
  nccl(o, job, rank);
  appendf(o, "Connected all rings\n");
  nccl(o, job, rank);
  appendf(o, "Connected all trees\n");
  nccl(o, job, rank);
  appendf(o, "threadThresholds 8/8/64 | %d/8/64 | 512 | 512\n", 8 * c.nranks);
  nccl(o, job, rank);
  appendf(o, "%d coll channels, %d collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer\n", c.channels, c.channels);
  nccl(o, job, rank);
  appendf(o, "TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: No such file or directory : when loading libnccl-tuner.so\n");
  nccl(o, job, rank);
  appendf(o, "TUNER/Plugin: Using internal tuner plugin.\n");
  nccl(o, job, rank);
  appendf(o, "ncclCommInitRank comm 0x%" PRIx64 " rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%" PRIx64 " - Init COMPLETE\n",
          comm, c.rank_in, c.nranks, l, l, bus, commid);
}

// One NCCL_DEBUG_SUBSYS=COLL line: `AllReduce: opCount 3f2 sendbuff 0x... recvbuff 0x... count N datatype 7 op 0 root 0 comm 0x... [nranks=128] stream 0x...`
void nccl_coll(std::string& o, const Job& job, int rank, const char* op, std::uint64_t opcount, int buf, std::uint64_t count,
               int dtype, int redop, int comm_id, int nranks) {
  nccl(o, job, rank);
  std::uint64_t send = dev_ptr(rank, buf), recv = std::string_view(op) == "AllReduce" ? send : dev_ptr(rank, buf + 500);
  appendf(o, "%s: opCount %" PRIx64 " sendbuff 0x%" PRIx64 " recvbuff 0x%" PRIx64 " count %" PRIu64
             " datatype %d op %d root 0 comm 0x%" PRIx64 " [nranks=%d] stream 0x%" PRIx64 "\n",
          op, opcount, send, recv, count, dtype, redop, ptr(rank, comm_id), nranks, ptr(rank, 40 + comm_id));
}

// The collectives of one training iteration as rank `rank` enqueues them (sequence-parallel
// all-gathers / reduce-scatters in the TP group, the distributed optimizer's gradient
// reduce-scatter and parameter all-gather in the DP group, loss and grad-norm all-reduces).
// `limit` stops after that many lines (the crash iteration).
void iteration_colls(std::string& o, const Job& job, int rank, int k, int limit = 1 << 30) {
  static const struct {
    const char* op;
    int comm;
    std::uint64_t count;
    int dtype, redop, buf;
  } kPlan[] = {
      {"AllGather", 1, 4194304, 9, 0, 1},       {"AllGather", 1, 4194304, 9, 0, 2},
      {"ReduceScatter", 1, 33554432, 9, 0, 3},  {"AllGather", 1, 4194304, 9, 0, 1},
      {"AllGather", 1, 4194304, 9, 0, 2},       {"ReduceScatter", 1, 33554432, 9, 0, 3},
      {"AllGather", 1, 4194304, 9, 0, 1},       {"AllGather", 1, 4194304, 9, 0, 2},
      {"ReduceScatter", 1, 33554432, 9, 0, 3},  {"AllGather", 1, 4194304, 9, 0, 4},
      {"ReduceScatter", 1, 33554432, 9, 0, 5},  {"AllGather", 1, 4194304, 9, 0, 4},
      {"ReduceScatter", 1, 33554432, 9, 0, 5},  {"AllGather", 1, 4194304, 9, 0, 4},
      {"ReduceScatter", 1, 33554432, 9, 0, 5},  {"AllReduce", 0, 1, 7, 0, 6},
      {"ReduceScatter", 2, 67108864, 7, 0, 7},  {"ReduceScatter", 2, 67108864, 7, 0, 8},
      {"ReduceScatter", 2, 67108864, 7, 0, 9},  {"ReduceScatter", 2, 45875200, 7, 0, 10},
      {"AllReduce", 1, 1, 7, 0, 11},            {"AllReduce", 0, 1, 7, 0, 12},
      {"AllGather", 2, 8388608, 9, 0, 13},      {"AllGather", 2, 8388608, 9, 0, 14},
      {"AllGather", 2, 8388608, 9, 0, 15},      {"AllGather", 2, 5734400, 9, 0, 16},
  };
  constexpr int kPerIter = static_cast<int>(sizeof kPlan / sizeof kPlan[0]);
  int n = 0;
  for (const auto& p : kPlan) {
    if (n++ >= limit) break;
    int nranks = p.comm == 0 ? job.ranks : p.comm == 1 ? job.tp : job.dp();
    std::uint64_t opcount = static_cast<std::uint64_t>(k) * kPerIter + static_cast<std::uint64_t>(n) + 0x40;
    nccl_coll(o, job, rank, p.op, opcount, p.buf, p.count, p.dtype, p.redop, p.comm, nranks);
  }
}

// The C++ stack PyTorch attaches to a c10::DistBackendError (§4.7).
void cpp_stack(std::string& o, int rank, bool check_timeout) {
  struct F {
    const char* fn;
    const char* lib;
  };
  static const F kTimeout[] = {
      {"c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x96", "torch/lib/libc10.so"},
      {"c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2", "torch/lib/libtorch_cuda.so"},
      {"c10d::ProcessGroupNCCL::watchdogHandler() + 0x233", "torch/lib/libtorch_cuda.so"},
      {"c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d", "torch/lib/libtorch_cuda.so"},
      {"<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"},
      {"<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"},
      {"<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"},
  };
  static const F kWatchdog[] = {
      {"c10::Error::Error(c10::SourceLocation, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >) + 0x96", "torch/lib/libc10.so"},
      {"<unknown function> + 0xe5c6fc", "torch/lib/libtorch_cuda.so"},
      {"<unknown function> + 0xdc253", "/lib/x86_64-linux-gnu/libstdc++.so.6"},
      {"<unknown function> + 0x94ac3", "/lib/x86_64-linux-gnu/libc.so.6"},
      {"<unknown function> + 0x126850", "/lib/x86_64-linux-gnu/libc.so.6"},
  };
  appendf(o, "Exception raised from %s at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:%d (most recent call first):\n",
          check_timeout ? "checkTimeout" : "ncclCommWatchdog", check_timeout ? 618 : 1601);
  const F* frames = check_timeout ? kTimeout : kWatchdog;
  int n = check_timeout ? 7 : 5;
  for (int i = 0; i < n; ++i) {
    bool torch_lib = frames[i].lib[0] != '/';
    appendf(o, "frame #%d: %s (0x%" PRIx64 " in %s%s%s)\n", i, frames[i].fn, static_cast<std::uint64_t>(0x7f0000000000ULL + (ptr(rank, 200 + i) & 0xfffffffff0ULL)),
            torch_lib ? kSite : "", torch_lib ? "/" : "", frames[i].lib);
  }
}

// ---------------------------------------------------------------- per-rank phases

void rank_phase(const Job& job, int rank, int phase, std::string& out, std::string& err) {
  Rng r(static_cast<std::uint64_t>(rank) + 1000, static_cast<std::uint64_t>(phase) + 1);
  int l = job.local_of(rank);
  bool last = rank == job.ranks - 1;
  int k = phase;  // iteration number in training phases

  if (phase == 0) {
    std::int64_t t = kStart + 21 * kUs + static_cast<std::int64_t>(r.below(4 * kUs));
    if (rank == 0) {
      appendf(out, "using world size: %d, data-parallel size: %d, context-parallel size: 1, hierarchical context-parallel sizes: None, "
                   "tensor-model-parallel size: %d, pipeline-model-parallel size: 1\n", job.ranks, job.dp(), job.tp);
      appendf(out, "------------------------ arguments ------------------------\n");
      struct { const char* k; std::string v; } args[] = {
          {"accumulate_allreduce_grads_in_fp32", "True"}, {"adam_beta1", "0.9"}, {"adam_beta2", "0.95"},
          {"attention_dropout", "0.0"}, {"bf16", "True"}, {"clip_grad", "1.0"}, {"context_parallel_size", "1"},
          {"data_parallel_size", std::to_string(job.dp())}, {"data_path", "['/lustre/proj/llm/data/pile_text_document']"},
          {"distributed_backend", "nccl"}, {"distributed_timeout_minutes", "10"}, {"ffn_hidden_size", "28672"},
          {"global_batch_size", std::to_string(job.dp() * 8)}, {"hidden_size", "8192"}, {"log_interval", "1"},
          {"lr", "0.0003"}, {"micro_batch_size", "1"}, {"num_attention_heads", "64"}, {"num_layers", "80"},
          {"num_query_groups", "8"}, {"overlap_grad_reduce", "True"}, {"overlap_param_gather", "True"},
          {"pipeline_model_parallel_size", "1"}, {"save", "/lustre/proj/llm/ckpt/gpt-70b"}, {"seq_length", "8192"},
          {"sequence_parallel", "True"}, {"tensor_model_parallel_size", std::to_string(job.tp)},
          {"train_iters", "500000"}, {"use_distributed_optimizer", "True"}, {"use_megatron_fsdp", "False"},
          {"use_torch_fsdp2", "False"}, {"world_size", std::to_string(job.ranks)},
      };
      for (auto& a : args) {
        std::string dots(std::max<std::size_t>(3, 48 - std::strlen(a.k)), '.');
        appendf(out, "  %s %s %s\n", a.k, dots.c_str(), a.v.c_str());
      }
      appendf(out, "-------------------- end of arguments ---------------------\n");
      appendf(out, "INFO:megatron.core.num_microbatches_calculator:setting number of microbatches to constant 8\n");
      appendf(out, "> initializing torch distributed ...\n");
      nccl(out, job, rank);
      appendf(out, "NCCL version 2.21.5+cuda12.4\n");
    }
    nccl(out, job, rank);
    appendf(out, "cudaDriverVersion 12040\n");
    nccl(out, job, rank);
    appendf(out, "Bootstrap : Using ib0:10.1.%d.%d<0>\n", job.node_of(rank) / 200, job.node_of(rank) % 200 + 10);
    nccl(out, job, rank);
    appendf(out, "NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.\n");
    nccl(out, job, rank);
    appendf(out, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB ; OOB ib0:10.1.%d.%d<0>\n",
            job.node_of(rank) / 200, job.node_of(rank) % 200 + 10);
    nccl(out, job, rank);
    appendf(out, "Using non-device net plugin version 0\n");
    nccl(out, job, rank);
    appendf(out, "Using network IB\n");
    c10(err, rank, 'W', t, r, "ProcessGroupNCCL.cpp:4115");
    appendf(err, "[PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. "
                 "This can potentially cause a hang if this rank to GPU mapping is incorrect. Specify device_id in init_process_group() "
                 "to force use of a particular device.\n", rank, l);
    for (const CommSpec& c : comms_of(job, rank)) nccl_init_comm(out, job, rank, c, r);
    c10(err, rank, 'W', t + 2 * kUs, r, "Utils.hpp:164");
    appendf(err, "Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function operator())\n");
    if (l == rank && rank < kGpusPerNode) {  // dp rank 0 of each TP group
      appendf(out, " > number of parameters on (tensor, pipeline) model parallel rank (%d, 0): 8805675008\n", rank);
    }
    if (rank == 0) {
      appendf(out, "> learning rate decay style: cosine\n");
      appendf(out, "[after megatron is initialized] datetime: 2026-11-30 %s \n", hms(kStart + 62 * kUs).c_str());
      appendf(out, "[after dataloaders are built] datetime: 2026-11-30 %s \n", hms(kStart + 71 * kUs).c_str());
      appendf(out, "done with setup ...\n");
      appendf(out, "training ...\n");
    }
    return;
  }

  if (phase <= job.iters) {  // a completed training iteration
    iteration_colls(out, job, rank, k);
    if (k == 1) {
      appendf(err, "%s/torch/distributed/c10d_logger.py:83: FutureWarning: `torch.distributed._all_gather_base` is a private function "
                   "and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.\n", kSite);
      appendf(err, "  return func(*args, **kwargs)\n");
    }
    if (k == 10 && rank < kGpusPerNode) {
      appendf(out, "[Rank %d] (after 10 iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | reserved: %.2f | max reserved: %.2f\n",
              rank, 52011.41 + l * 3.5, 71234.88 + l * 2.25, 76800.0, 76800.0);
    }
    if (last) {
      std::int64_t t = job.iter_time(k);
      double ms = 1912.0 + (r.unit() - 0.5) * 40.0 + (k == 1 ? 6100.0 : 0.0);
      double loss = 11.2 * std::max(0.27, 1.0 / (1.0 + 0.012 * k)) + r.unit() * 0.05;
      appendf(out, " [2026-11-30 %s] iteration %8d/  500000 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                   "throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | "
                   "loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   0 |\n",
              hms(t).c_str(), k, k * job.dp() * 8, ms, 402.0 * 1912.0 / ms, 3.0e-4 * std::min(1.0, k / 2000.0), job.dp() * 8,
              loss, 0.35 + r.unit() * 0.2);
    }
    return;
  }

  if (phase == job.iters + 1) {  // the crash iteration
    if (rank == kRootRank) {
      iteration_colls(out, job, rank, k, 9);
      const char* p = "[rank517]: ";
      appendf(err, "%sTraceback (most recent call last):\n", p);
      appendf(err, "%s  File \"%s/pretrain_gpt.py\", line 322, in <module>\n", p, kWs);
      appendf(err, "%s    pretrain(\n", p);
      appendf(err, "%s  File \"%s/megatron/training/training.py\", line 1710, in pretrain\n", p, kWs);
      appendf(err, "%s    iteration, num_floating_point_operations_so_far = train(\n", p);
      appendf(err, "%s                                                      ^^^^^^\n", p);
      appendf(err, "%s  File \"%s/megatron/training/training.py\", line 2210, in train\n", p, kWs);
      appendf(err, "%s    ) = train_step(\n", p);
      appendf(err, "%s        ^^^^^^^^^^^\n", p);
      appendf(err, "%s  File \"%s/megatron/training/training.py\", line 2430, in train_step\n", p, kWs);
      appendf(err, "%s    losses_reduced = forward_backward_func(\n", p);
      appendf(err, "%s                     ^^^^^^^^^^^^^^^^^^^^^^\n", p);
      appendf(err, "%s  File \"%s/megatron/core/pipeline_parallel/schedules.py\", line 588, in forward_backward_no_pipelining\n", p, kWs);
      appendf(err, "%s    backward_step(input_tensor, output_tensor, output_tensor_grad, model_type, config)\n", p);
      appendf(err, "%s  File \"%s/megatron/core/pipeline_parallel/schedules.py\", line 412, in backward_step\n", p, kWs);
      appendf(err, "%s    custom_backward(output_tensor[0], output_tensor_grad[0])\n", p);
      appendf(err, "%s  File \"%s/megatron/core/pipeline_parallel/schedules.py\", line 174, in custom_backward\n", p, kWs);
      appendf(err, "%s    Variable._execution_engine.run_backward(\n", p);
      appendf(err, "%s  File \"%s/torch/autograd/function.py\", line 307, in apply\n", p, kSite);
      appendf(err, "%s    return user_fn(self, *args)\n", p);
      appendf(err, "%s           ^^^^^^^^^^^^^^^^^^^^\n", p);
      appendf(err, "%s  File \"%s/megatron/core/tensor_parallel/layers.py\", line 640, in backward\n", p, kWs);
      appendf(err, "%s    grad_input = grad_output.matmul(weight)\n", p);
      appendf(err, "%s                 ^^^^^^^^^^^^^^^^^^^^^^^^^^\n", p);
      appendf(err, "%storch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU %d has a total capacity of 79.11 GiB of "
                   "which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.88 GiB memory in use. Of the allocated "
                   "memory 70.12 GiB is allocated by PyTorch, and 6.28 GiB is reserved by PyTorch but unallocated. If reserved but "
                   "unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  "
                   "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n",
              p, l);
      c10(err, rank, 'W', job.crash_time() + 610 * 1000, r, "ProcessGroupNCCL.cpp:1250");
      appendf(err, "Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more "
                   "info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())\n");
      return;
    }
    // Everyone else enqueues up to the world all-reduce after the backward pass and hangs there.
    iteration_colls(out, job, rank, k, 16);
    return;
  }

  if (phase == job.iters + 2) {  // ~10 minutes later: the NCCL watchdog on every surviving rank
    if (rank == kRootRank || job.killed_mate(rank)) return;
    std::int64_t t = job.hang_time() + kTimeoutUs + 400 * 1000 + static_cast<std::int64_t>(r.below(2 * kUs));
    std::int64_t seq = job.seq_of_hang();
    long ran = 600000 + static_cast<long>((t - job.hang_time() - kTimeoutUs) / 1000);
    char work[256];
    std::snprintf(work, sizeof work, "WorkNCCL(SeqNum=%" PRId64 ", OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000)", seq);
    char pg[64];
    std::snprintf(pg, sizeof pg, "[PG ID 0 PG GUID 0(default_pg) Rank %d]", rank);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:616");
    appendf(err, "[Rank %d] Watchdog caught collective operation timeout: %s ran for %ld milliseconds before timing out.\n", rank, work, ran);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:1785");
    appendf(err, "%s Exception (either an error or timeout) detected by watchdog at work: %" PRId64 ", last enqueued NCCL work: %" PRId64
                 ", last completed NCCL work: %" PRId64 ".\n", pg, seq, seq, seq - 1);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:1834");
    appendf(err, "%s Timeout at NCCL work: %" PRId64 ", last enqueued NCCL work: %" PRId64 ", last completed NCCL work: %" PRId64 ".\n",
            pg, seq, seq, seq - 1);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:630");
    appendf(err, "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent "
                 "GPU operations might run on corrupted/incomplete data.\n", rank);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:636");
    appendf(err, "[Rank %d] To avoid data inconsistency, we are taking the entire process down.\n", rank);
    c10(err, rank, 'E', t, r, "ProcessGroupNCCL.cpp:1595");
    appendf(err, "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: "
                 "%s ran for %ld milliseconds before timing out.\n", pg, rank, work, ran);
    cpp_stack(err, rank, true);
    err += '\n';
    appendf(err, "terminate called after throwing an instance of 'c10::DistBackendError'\n");
    // The main thread, blocked in the loss all-reduce's .item(), gets the abort as a Python error.
    char p[32];
    std::snprintf(p, sizeof p, "[rank%d]: ", rank);
    appendf(err, "%sTraceback (most recent call last):\n", p);
    appendf(err, "%s  File \"%s/pretrain_gpt.py\", line 322, in <module>\n", p, kWs);
    appendf(err, "%s    pretrain(\n", p);
    appendf(err, "%s  File \"%s/megatron/training/training.py\", line 1710, in pretrain\n", p, kWs);
    appendf(err, "%s    iteration, num_floating_point_operations_so_far = train(\n", p);
    appendf(err, "%s                                                      ^^^^^^\n", p);
    appendf(err, "%s  File \"%s/megatron/training/training.py\", line 2210, in train\n", p, kWs);
    appendf(err, "%s    ) = train_step(\n", p);
    appendf(err, "%s        ^^^^^^^^^^^\n", p);
    appendf(err, "%s  File \"%s/megatron/training/training.py\", line 2452, in train_step\n", p, kWs);
    appendf(err, "%s    loss_reduced[key] = numerator / denominator\n", p);
    appendf(err, "%s  File \"%s/torch/distributed/c10d_logger.py\", line 83, in wrapper\n", p, kSite);
    appendf(err, "%s    return func(*args, **kwargs)\n", p);
    appendf(err, "%s           ^^^^^^^^^^^^^^^^^^^^^\n", p);
    appendf(err, "%s  File \"%s/torch/distributed/distributed_c10d.py\", line 2501, in all_reduce\n", p, kSite);
    appendf(err, "%s    work.wait()\n", p);
    appendf(err, "%storch.distributed.DistBackendError: NCCL communicator was aborted on rank %d.\n", p, rank);
    appendf(err, "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation "
                 "timeout: %s ran for %ld milliseconds before timing out.\n", pg, rank, work, ran);
    cpp_stack(err, rank, true);
    err += '\n';
    cpp_stack(err, rank, false);
    err += '\n';
    return;
  }
  // phase iters+3: nothing more from the workers.
}

// The torchrun agent of one node (its srun task's output: stderr only).
void agent_phase(const Job& job, int node, int phase, std::string& out, std::string& err) {
  (void)out;
  Rng r(static_cast<std::uint64_t>(node) + 90000, static_cast<std::uint64_t>(phase) + 1);
  int apid = job.agent_pid(node);
  int first = node * kGpusPerNode;
  const char* api = "torch/distributed/elastic/multiprocessing/api.py";
  std::string bin = std::string(kWs) + "/.venv/bin/python3";
  auto table = [&](std::int64_t t, const std::vector<int>& failed, const std::vector<int>& codes) {
    appendf(err, "Traceback (most recent call last):\n");
    appendf(err, "  File \"%s/.venv/bin/torchrun\", line 10, in <module>\n", kWs);
    appendf(err, "    sys.exit(main())\n");
    appendf(err, "             ^^^^^^\n");
    appendf(err, "  File \"%s/torch/distributed/elastic/multiprocessing/errors/__init__.py\", line 355, in wrapper\n", kSite);
    appendf(err, "    return f(*args, **kwargs)\n");
    appendf(err, "           ^^^^^^^^^^^^^^^^^^\n");
    appendf(err, "  File \"%s/torch/distributed/run.py\", line 919, in main\n", kSite);
    appendf(err, "    run(args)\n");
    appendf(err, "  File \"%s/torch/distributed/run.py\", line 910, in run\n", kSite);
    appendf(err, "    elastic_launch(\n");
    appendf(err, "  File \"%s/torch/distributed/launcher/api.py\", line 138, in __call__\n", kSite);
    appendf(err, "    return launch_agent(self._config, self._entrypoint, list(args))\n");
    appendf(err, "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n");
    appendf(err, "  File \"%s/torch/distributed/launcher/api.py\", line 269, in launch_agent\n", kSite);
    appendf(err, "    raise ChildFailedError(\n");
    appendf(err, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
    appendf(err, "============================================================\n");
    appendf(err, "%s/pretrain_gpt.py FAILED\n", kWs);
    appendf(err, "------------------------------------------------------------\n");
    appendf(err, "Failures:\n");
    auto entry = [&](std::size_t i) {
      appendf(err, "[%zu]:\n", i);
      Clock c = clock_of(t);
      appendf(err, "  time      : 2026-11-30_%02d:%02d:%02d\n", c.h, c.m, c.s);
      appendf(err, "  host      : %s.cluster.local\n", job.host(node).c_str());
      appendf(err, "  rank      : %d (local_rank: %d)\n", failed[i], job.local_of(failed[i]));
      appendf(err, "  exitcode  : %d (pid: %d)\n", codes[i], job.pid(failed[i]));
      appendf(err, "  error_file: <N/A>\n");
      if (codes[i] < 0)
        appendf(err, "  traceback : Signal %d (%s) received by PID %d\n", -codes[i], codes[i] == -6 ? "SIGABRT" : "SIGTERM", job.pid(failed[i]));
      else
        appendf(err, "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n");
    };
    if (failed.size() == 1) appendf(err, "  <NO_OTHER_FAILURES>\n");
    for (std::size_t i = 1; i < failed.size(); ++i) entry(i);
    appendf(err, "------------------------------------------------------------\n");
    appendf(err, "Root Cause (first observed failure):\n");
    entry(0);
    appendf(err, "============================================================\n");
  };

  if (phase == 0) {
    glog(err, 'W', kStart, apid, "torch/distributed/run.py:793");
    appendf(err, "\n");
    glog(err, 'W', kStart, apid, "torch/distributed/run.py:793");
    appendf(err, "*****************************************\n");
    glog(err, 'W', kStart, apid, "torch/distributed/run.py:793");
    appendf(err, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being "
                 "overloaded, please further tune the variable for optimal performance in your application as needed. \n");
    glog(err, 'W', kStart, apid, "torch/distributed/run.py:793");
    appendf(err, "*****************************************\n");
    return;
  }
  if (phase == job.iters + 1 && node == job.root_node()) {
    std::int64_t t = job.crash_time() + 1400 * 1000;
    for (int lr = 0; lr < kGpusPerNode; ++lr) {
      if (first + lr == kRootRank) continue;
      glog(err, 'W', t, apid, "torch/distributed/elastic/multiprocessing/api.py:897");
      appendf(err, "Sending process %d closing signal SIGTERM\n", job.pid(first + lr));
    }
    t += 330 * 1000;
    glog(err, 'E', t, apid, "torch/distributed/elastic/multiprocessing/api.py:869");
    appendf(err, "failed (exitcode: 1) local_rank: %d (pid: %d) of binary: %s\n", job.local_of(kRootRank), job.pid(kRootRank), bin.c_str());
    table(t, {kRootRank}, {1});
    return;
  }
  if (phase == job.iters + 3 && node != job.root_node()) {
    std::int64_t t = job.hang_time() + kTimeoutUs + 3 * kUs + static_cast<std::int64_t>(r.below(kUs));
    glog(err, 'E', t, apid, api);
    std::vector<int> failed, codes;
    for (int lr = 0; lr < kGpusPerNode; ++lr) {
      if (first + lr >= job.ranks) break;
      failed.push_back(first + lr);
      codes.push_back(-6);
    }
    appendf(err, "failed (exitcode: -6) local_rank: 0 (pid: %d) of binary: %s\n", job.pid(first), bin.c_str());
    table(t, failed, codes);
  }
}

// The batch script's own output (`#SBATCH --output=logs/%x-%j.out`): launch echoes and srun.
void batch_phase(const Job& job, int phase, std::string& out) {
  if (phase == 0) {
    appendf(out, "MASTER_ADDR=node001 MASTER_PORT=29500 NNODES=%d GPUS_PER_NODE=%d CUDA_DEVICE_MAX_CONNECTIONS=1\n", job.nodes, kGpusPerNode);
    appendf(out, "SLURM_JOB_NODELIST=node[001-%03d]\n", job.nodes);
    appendf(out, "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-3f2a9c1e-0000-0000-0000-000000000000)\n");
    return;
  }
  if (phase == job.iters + 1) {
    appendf(out, "srun: error: %s: task %d: Exited with exit code 1\n", job.host(job.root_node()).c_str(), job.root_node());
    return;
  }
  if (phase == job.iters + 3) {
    for (int n = 0; n < job.nodes; ++n) {
      if (n == job.root_node()) continue;
      appendf(out, "srun: error: %s: task %d: Exited with exit code 1\n", job.host(n).c_str(), n);
    }
  }
}

// ---------------------------------------------------------------- writers

std::string run_dir_name(int node) {
  Rng r(static_cast<std::uint64_t>(node) + 424242);
  static const char kAlnum[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
  std::string s = "none_";
  for (int i = 0; i < 8; ++i) s += kAlnum[r.below(sizeof kAlnum - 1)];
  return s;
}

std::uint64_t write_logdir(const Job& job, const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  fs::path logs = root / "logs";
  fs::create_directories(logs);
  std::uint64_t total = 0;
  std::string out, err;
  {
    File b(logs / ("gpt-" + std::to_string(kJobId) + ".out"));
    for (int p = 0; p < job.phases(); ++p) {
      out.clear();
      batch_phase(job, p, out);
      b.put(out);
    }
    total += b.bytes;
  }
  for (int n = 0; n < job.nodes; ++n) {
    std::string stem = "gpt-" + std::to_string(kJobId) + "-" + std::to_string(n);
    File ao(logs / (stem + ".out")), ae(logs / (stem + ".err"));
    for (int p = 0; p < job.phases(); ++p) {
      out.clear();
      err.clear();
      agent_phase(job, n, p, out, err);
      ao.put(out);
      ae.put(err);
    }
    total += ao.bytes + ae.bytes;
    fs::path run = logs / "torchrun" / job.host(n) / run_dir_name(n) / "attempt_0";
    for (int l = 0; l < kGpusPerNode; ++l) {
      int rank = n * kGpusPerNode + l;
      if (rank >= job.ranks) break;
      fs::create_directories(run / std::to_string(l));
      File so(run / std::to_string(l) / "stdout.log"), se(run / std::to_string(l) / "stderr.log");
      for (int p = 0; p < job.phases(); ++p) {
        out.clear();
        err.clear();
        rank_phase(job, rank, p, out, err);
        so.put(out);
        se.put(err);
      }
      total += so.bytes + se.bytes;
    }
  }
  return total;
}

// One file: the batch output plus every srun task's output, `srun --label` in front of each
// task's lines and torchrun's `--tee 3` `[default<local_rank>]:` in front of each worker's;
// lines of different processes interleave at random, each process's own lines stay in order.
std::uint64_t write_interleaved(const Job& job, const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  fs::path logs = root / "logs";
  fs::create_directories(logs);
  File f(logs / ("gpt-" + std::to_string(kJobId) + ".out"));
  int width = static_cast<int>(std::to_string(job.nodes - 1).size());
  struct Source {
    std::string text;
    std::size_t pos = 0;
    std::string prefix;
  };
  std::vector<Source> src;
  std::vector<std::size_t> live;
  std::string block;
  for (int p = 0; p < job.phases(); ++p) {
    src.clear();
    auto add = [&](std::string text, std::string prefix) {
      if (text.empty()) return;
      src.push_back({std::move(text), 0, std::move(prefix)});
    };
    std::string out, err;
    batch_phase(job, p, out);
    add(std::move(out), "");
    for (int n = 0; n < job.nodes; ++n) {
      char label[32];
      std::snprintf(label, sizeof label, "%*d: ", width, n);
      out.clear();
      err.clear();
      agent_phase(job, n, p, out, err);
      add(out, label);
      add(err, label);
      for (int l = 0; l < kGpusPerNode; ++l) {
        int rank = n * kGpusPerNode + l;
        if (rank >= job.ranks) break;
        out.clear();
        err.clear();
        rank_phase(job, rank, p, out, err);
        std::string pre = std::string(label) + "[default" + std::to_string(l) + "]:";
        add(out, pre);
        add(err, pre);
      }
    }
    live.resize(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) live[i] = i;
    Rng r(777, static_cast<std::uint64_t>(p));
    block.clear();
    while (!live.empty()) {
      std::size_t pick = r.below(live.size());
      Source& s = src[live[pick]];
      // A process writes a few lines at a time (one write() per buffered print or log record).
      int burst = 1 + static_cast<int>(r.below(4));
      for (int b = 0; b < burst && s.pos < s.text.size(); ++b) {
        std::size_t nl = s.text.find('\n', s.pos);
        std::size_t end = nl == std::string::npos ? s.text.size() : nl + 1;
        block += s.prefix;
        block.append(s.text, s.pos, end - s.pos);
        s.pos = end;
      }
      if (s.pos >= s.text.size()) {
        live[pick] = live.back();
        live.pop_back();
      }
      if (block.size() > (1u << 22)) {
        f.put(block);
        block.clear();
      }
    }
    f.put(block);
  }
  return f.bytes;
}

// Bytes of one training iteration over all ranks (to size the tree).
std::uint64_t iteration_bytes(const Job& job) {
  std::uint64_t total = 0;
  std::string out, err;
  for (int rank = 0; rank < job.ranks; ++rank) {
    out.clear();
    err.clear();
    rank_phase(job, rank, 5, out, err);
    total += out.size() + err.size();
  }
  return total;
}

std::uint64_t fixed_bytes(const Job& job) {
  std::uint64_t total = 0;
  std::string out, err;
  for (int p : {0, job.iters + 1, job.iters + 2, job.iters + 3}) {
    for (int rank = 0; rank < job.ranks; ++rank) {
      out.clear();
      err.clear();
      rank_phase(job, rank, p, out, err);
      total += out.size() + err.size();
    }
    for (int n = 0; n < job.nodes; ++n) {
      out.clear();
      err.clear();
      agent_phase(job, n, p, out, err);
      total += out.size() + err.size();
    }
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: bench_gen logdir|interleaved OUTDIR RANKS TARGET_MB\n");
    return 2;
  }
  std::string layout = argv[1];
  std::filesystem::path root = argv[2];
  Job job;
  job.ranks = std::atoi(argv[3]);
  double target_mb = std::atof(argv[4]);
  if (job.ranks <= kRootRank || job.ranks % kGpusPerNode != 0) {
    std::fprintf(stderr, "bench_gen: RANKS must be a multiple of %d above %d\n", kGpusPerNode, kRootRank);
    return 2;
  }
  job.nodes = job.ranks / kGpusPerNode;
  job.iters = 10;
  double per_iter = static_cast<double>(iteration_bytes(job));
  double fixed = static_cast<double>(fixed_bytes(job));
  job.iters = std::max(2, static_cast<int>((target_mb * 1e6 - fixed) / per_iter));
  // No stamp may cross midnight (c10/glog stamps carry no date).
  if (job.crash_time() + 2 * kTimeoutUs > 23LL * 3600 * kUs) {
    std::fprintf(stderr, "bench_gen: TARGET_MB too large for one day of iterations\n");
    return 2;
  }
  std::uint64_t bytes = 0;
  if (layout == "logdir")
    bytes = write_logdir(job, root);
  else if (layout == "interleaved")
    bytes = write_interleaved(job, root);
  else {
    std::fprintf(stderr, "bench_gen: unknown layout '%s'\n", layout.c_str());
    return 2;
  }
  std::printf("%s ranks=%d nodes=%d iterations=%d bytes=%" PRIu64 "\n", layout.c_str(), job.ranks, job.nodes, job.iters + 1, bytes);
  return 0;
}
