// Extract stage: a traceback printed inside one quoted string, its newlines escaped. Structured
// loggers put `logger.exception()`'s traceback in a JSON member (`"exc_info": "Traceback (most
// recent call last):\n  File \"/w/train.py\", line 3, ..."`), and a repr() of an error or of a
// list of lines does the same with Python's escapes. Such a line holds a whole traceback that no
// line of the log shows; decoded, its lines go through the traceback builder as if printed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace megatriage {

/// The decoded text of the traceback that `line` holds escaped: from its header
/// (`Traceback (most recent call last):` followed by an escaped newline, the two bytes `\n`) to
/// the end of the quoted string the header stands in, with JSON's and Python's escapes decoded
/// (`\n \t \r \" \' \\ \/ \b \f \uXXXX \xHH`; an unknown one is kept as written). Empty when the
/// line holds no such header inside a string. At most `max_bytes` bytes.
std::string escaped_traceback(std::string_view line, std::size_t max_bytes);

}  // namespace megatriage
