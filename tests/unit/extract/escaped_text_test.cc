// escaped_text: a docker JSON record's line, and a traceback a structured logger or a repr()
// printed inside one string.
#include "extract/escaped_text.h"

#include <doctest/doctest.h>

#include <string>

namespace megatriage {

TEST_SUITE("escaped_text") {
  TEST_CASE("escaped_text: a container runtime's JSON record carries one printed line") {
    // docker's json-file driver (and fluentd): the line with its end, the stream, the time.
    CHECK(json_record_text(R"~({"log":"  File \"/w/train.py\", line 3, in f\n","stream":"stderr","time":"2026-11-29T10:01:32.1Z"})~",
                           4096) == "  File \"/w/train.py\", line 3, in f");
    CHECK(json_record_text(R"~({"stream": "stdout", "time": "x", "log": "tab\there \u00e9\r\n"})~", 4096) == "tab\there \xc3\xa9");
    CHECK(json_record_text(R"~({"log":""})~", 4096) == "");
    CHECK(json_record_text(R"~({"log":"cut at the limit\n"})~", 3) == "cut");
    // Not such a record: the line stays as it is.
    for (const char* line : {R"~({"time": "2026-11-29T10:01:32Z", "message": "a structured logger's record"})~",
                             R"~({"a": 1, "b": 2, "c": 3, "d": 4, "log": "past the first four"})~",
                             R"~({"log": 42})~", R"~({"log": {"nested": "x"}})~", R"~(["log", "x"])~", "{'log': 'x'}",
                             "log: x", ""}) {
      CAPTURE(line);
      CHECK_FALSE(json_record_text(line, 4096).has_value());
    }
  }

  TEST_CASE("escaped_text: the members of a flat JSON object, in order") {
    std::string keys;
    const std::string_view record = R"~(  {"a": 1, "b\"q": "x, y", "c": true , "d": null, "e": "z"})~";
    const std::size_t at = find_json_member(record, 4, [&](std::string_view key, std::size_t value) {
      keys += std::string(key) + "@" + std::to_string(value) + " ";
      return false;
    });
    CHECK(at == std::string_view::npos);
    CHECK(keys == "a@8 b\\\"q@19 c@32 d@44 ");  // the fifth is past the limit
    CHECK(find_json_member(record, 4, [](std::string_view key, std::size_t) { return key == "c"; }) == 32);
  }

  TEST_CASE("escaped_traceback: a JSON record's exc_info, decoded to the string's end") {
    const std::string line =
        R"~({"time": "2026-11-29T10:01:31.500Z", "level": "ERROR", "message": "training failed", )~"
        R"~("exc_info": "Traceback (most recent call last):\n  File \"/w/train.py\", line 3, in <module>\n)~"
        R"~(    main()\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB \u2014 GPU 3\t(of 4)", "pid": 7})~";
    CHECK(escaped_traceback(line, 4096) ==
          "Traceback (most recent call last):\n  File \"/w/train.py\", line 3, in <module>\n    main()\n"
          "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB \xe2\x80\x94 GPU 3\t(of 4)");
    CHECK(escaped_traceback(line, 20) == "Traceback (most rece");
  }

  TEST_CASE("escaped_traceback: in a JSON record, apostrophes before the header are text") {
    // loguru's `serialize=True`: the whole formatted text, the catch message's quotes included.
    const std::string line =
        R"~({"text": "2026-12-05 06:10:37.437 | ERROR    | __main__:<module>:15 - An error has been caught in )~"
        R"~(function '<module>', process 'MainProcess' (28997):\nTraceback (most recent call last):\n\n)~"
        R"~(> File \"/w/t.py\", line 15, in <module>\n    main()\n\nModuleNotFoundError: No module named )~"
        R"~('transformer_engine'\n", "record": {"level": {"name": "ERROR"}}})~";
    CHECK(escaped_traceback(line, 4096) ==
          "Traceback (most recent call last):\n\n> File \"/w/t.py\", line 15, in <module>\n    main()\n\n"
          "ModuleNotFoundError: No module named 'transformer_engine'\n");
    // A header outside the record's strings is none.
    CHECK(escaped_traceback(R"~({"a": "x", Traceback (most recent call last):\n "b"})~", 4096).empty());
  }

  TEST_CASE("escaped_traceback: Python's repr, single-quoted, with text before the header") {
    const std::string line =
        R"~(ERROR worker failed: 'step 3 raised\nTraceback (most recent call last):\n  File "/w/a.py", line 9, in f\n)~"
        R"~(    raise KeyError(\'x\')\nKeyError: \'x\'\n' (retrying))~";
    CHECK(escaped_traceback(line, 4096) ==
          "Traceback (most recent call last):\n  File \"/w/a.py\", line 9, in f\n    raise KeyError('x')\nKeyError: 'x'\n");
  }

  TEST_CASE("escaped_traceback: lines that hold none") {
    CHECK(escaped_traceback("Traceback (most recent call last):", 4096).empty());  // printed, not escaped
    CHECK(escaped_traceback(R"~(see Traceback (most recent call last):\n in the docs)~", 4096).empty());  // no string
    CHECK(escaped_traceback(R"~({"msg": "Traceback (most recent call)", "x": "\n"})~", 4096).empty());
    // A quote escaped before the header opens nothing; the string's own quote does.
    CHECK(escaped_traceback(R"~(x = "a \"b\" Traceback (most recent call last):\nE: y")~", 4096) ==
          "Traceback (most recent call last):\nE: y");
    // Bad or unknown escapes stay as written; the string may run to the line's end.
    CHECK(escaped_traceback(R"~("Traceback (most recent call last):\nE: \q \u12 \xZZ)~", 4096) ==
          "Traceback (most recent call last):\nE: \\q \\u12 \\xZZ");
  }
}

}  // namespace megatriage
