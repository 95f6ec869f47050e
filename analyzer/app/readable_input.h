// Whether a run had anything to read. A folder holding only a core dump, only binary files or
// only empty files is "nothing readable" (a usage error, README "Exit codes"), never "no failure
// found": a job that died before writing a line is not a success. Shared by the one-shot run
// and the watcher.
#pragma once

#include <string>
#include <vector>

#include "extract/file_result.h"

namespace megatriage {

/// The file gave text to analyse: it opened, is not binary and is not empty.
bool has_text(const FileResult& result);

/// "no readable log files under the given path(s)", followed by what was there instead (counts
/// and a first path of each kind: binary, empty, unreadable).
std::string nothing_readable_message(const std::vector<FileResult>& results);

}  // namespace megatriage
