// A generated job log for tests that compare two ways of analysing the same bytes (fast path,
// chunked and incremental reads): every extractor's shapes, NULs, CRs, escapes and over-long
// lines, repeated with noise so that they fall across many buffer borders.
#pragma once

#include <sstream>
#include <string>

namespace megatriage::test {

// `text` as it comes through a pseudo-terminal (`srun --pty`, `docker run -t`): each '\n' is
// "\r\n" (the terminal's ONLCR).
inline std::string with_crlf(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 32);
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

// A job log with the shapes of every extractor, repeated with noise between them.
inline std::string generated_log() {
  std::ostringstream out;
  for (int block = 0; block < 40; ++block) {
    int rank = block % 4;
    std::string p = "[rank" + std::to_string(rank) + "]:";
    for (int i = 0; i < 60; ++i)
      out << "node00" << rank << ":12345:12345 [" << rank << "] NCCL INFO AllReduce: opCount " << i
          << " sendbuff 0x7f00 recvbuff 0x7f00 count 1 datatype 7 op 0 root 0 comm 0x55 [nranks=4]\n";
    if (block % 8 == 0) {
      out << "node00" << rank << ":12345:12345 [" << rank << "] NCCL INFO Bootstrap : Using eth0:10.0.0."
          << rank << "<0>\n";
      out << "------------------------ arguments ------------------------\n"
             "  micro_batch_size ................................ 4\n"
          << "node00" << rank << ":1:1 [0] NCCL INFO Channel 00 : interleaved inside the dump\n"
          << "  tensor_model_parallel_size ...................... 2\n"
             "  seq_length ...................................... 8192\n"
             "-------------------- end of arguments ---------------------\n"
             "MASTER_ADDR=node000 MASTER_PORT=29500 NNODES=2\n"
             "using world size: 4, data-parallel size: 2, context-parallel size: 1, tensor-model-parallel size: 2, pipeline-model-parallel size: 1\n"
             "GPU 0: NVIDIA H100 80GB HBM3 (compute capability 9.0)\n";
    }
    out << " [2026-11-30 06:4" << block % 10 << ":0" << block % 10 << "] iteration      " << block
        << "/     100 | consumed samples: 10 | lm loss: 2.5E+00 |\n";
    out << "[Rank " << rank << "] (after " << block << " iterations) memory (MB) | allocated: 1.0 | max allocated: "
        << 70000 + block << ".5 | reserved: 2.0 | max reserved: 76800.00\n";
    // Lines whose only trigger is their stamp, from writers that repeat their heads (the
    // stamped line's shortcut, stamp_routes.h), one stamp that is not a log stamp, and a clock
    // that steps back.
    out << "2026-11-30 06:4" << block % 10 << ":1" << block % 10 << ",123 - INFO - trainer - step " << block << "\n";
    out << p << "[W1130 06:4" << block % 10 << ":2" << block % 10 << ".00" << block << " Utils.hpp:164] Warning: old env\n";
    out << "eta 00:12:" << 10 + block << " remaining\n";
    if (block == 20) out << "2026-11-30 04:00:00,000 - INFO - trainer - replayed from an older run\n";
    if (block % 5 == 1) out << "progress 10%\rprogress 50%\r" << p << "[W1130 06:40:2" << block % 10 << ".1 x.cpp:1] warn\n";
    if (block % 7 == 2) out << p << std::string(" text with a NUL\0 inside: srun: error:\0node1\n", 46);
    if (block % 9 == 3) out << std::string(400 + block * 300, 'x') << " Traceback (most recent call last):\n";
    if (block % 6 == 4) out << p << " \x1b[31mTrace\x1b[0mback (most recent call last):\n";
    if (block % 10 == 5) {
      out << p << " Traceback (most recent call last):\n";
      for (int i = 0; i < 8; ++i)
        out << "node009:1:1 [1] NCCL INFO interleaved " << i << "\n"
            << p << "   File \"/ws/m.py\", line " << 10 + i << ", in f" << i << "\n"
            << p << "     x = y" << i << "\n";
      out << p << " torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n";
    }
    if (block == 37) {
      out << "[rank3]:[E1130 06:57:11.797384169 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught "
             "collective operation timeout: WorkNCCL(SeqNum=1133, OpType=ALLREDUCE) ran for 602361 "
             "milliseconds before timing out.\n"
          << "node003:1:1 [3] NCCL WARN Cuda failure 'out of memory'\n"
          << "E1130 06:57:12.053000 1606812 torch/distributed/elastic/multiprocessing/api.py] failed "
             "(exitcode: 1) local_rank: 1 (pid: 2002223) of binary: /usr/bin/python3\n"
          << "Failures:\n"
             "[1]:\n"
             "  time      : 2026-11-30_06:57:12\n"
             "  host      : node053.cluster.local\n"
             "  rank      : 3 (local_rank: 1)\n"
             "  exitcode  : 1 (pid: 2002223)\n"
             "  error_file: <N/A>\n";
    }
  }
  out << "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/ws/z.py\", line 1, in <module>\n"
         "[rank0]: ValueError: the last line has no newline";
  return out.str();
}

}  // namespace megatriage::test
