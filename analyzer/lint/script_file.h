// Lint stage, the way in: a batch script named on the command line (`megatriage lint`,
// `--script`, one found beside the logs), read with the log reader's checks and recognised as a
// shell script before any rule looks at it. Does not lint (lint.h) or pick scripts
// (app/script_discovery.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/diagnostics.h"

namespace megatriage {

/// SLURM's own default limit on a batch script (`max_script_size`, 4 MB): a larger file is not
/// one sbatch would take.
inline constexpr std::uint64_t kMaxBatchScriptBytes = 4u << 20;

/// True when `text` is a shell script lint has something to say about: a `#!` line naming a
/// shell, an `#SBATCH` directive, or an srun / torchrun / torch.distributed.run launch.
bool looks_like_batch_script(std::string_view text);

/// The text of the batch script at `path`, or nullopt after one diagnostic in `diags` (codes of
/// input/reader.h read_whole_file; `read.binary-file` for binary data; `lint.not-a-script` for
/// text that is no shell script). Never throws except std::bad_alloc; never blocks on a FIFO.
std::optional<std::string> read_batch_script(const std::string& path, const std::string& display_path,
                                             DiagnosticSink& diags);

}  // namespace megatriage
