// The fact registry: every fact key the extractors produce, with its value type and how repeated
// values merge, within one file (extract/extract.cc keep_facts) and across the job's files
// (decide/checks.cc collect_job_facts). Both stages ask here instead of naming keys themselves;
// the JSON report asks for the type (model/typed_value.h), of the root cause's own facts too.
// It is a C++ table, not data in rules/: facts are mechanism (what the extractors emit), and a
// key no extractor produces would merge nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace megatriage {

/// How a fact's value, printed as text, is read.
enum class FactType : std::uint8_t {
  Int,    // decimal integer
  Float,  // decimal number (MB figures, loss)
  Bool,   // True/False as Python prints it, or true/false, 1/0 as shells echo it
  Text,   // any text (addresses, paths, GPU model)
  List,   // Python list or comma-separated values (the JSON report writes an array)
};

/// How repeated values of one key merge into one.
enum class FactMerge : std::uint8_t {
  First,           // the first value seen (configuration: rank 0's dump prints first)
  Latest,          // the last value seen (progress figures)
  Max,             // the highest number
  MaxPerRank,      // the highest number per rank; across files, the root cause's rank's when
                   // it printed one, else the highest of any rank
  LaunchVariants,  // the first value, and every distinct value with where it was first seen
                   // (nodes launched with different settings)
  PerProcess,      // says nothing about the job (each process's own rank): not merged across files
};

/// One known key.
struct FactSpec {
  std::string_view key;
  FactType type;
  FactMerge in_file;       // repeats within one file
  FactMerge across_files;  // values of the files, in file order
};

/// The spec of `key`, or nullopt for a key the registry does not know.
std::optional<FactSpec> find_fact(std::string_view key);

/// The spec of `key`; an unknown key is Text and keeps its first value everywhere.
FactSpec fact_spec(std::string_view key);

/// Every known key, sorted by key. For tests and documentation.
const FactSpec* fact_specs_begin();
const FactSpec* fact_specs_end();

/// Whether a printed value means "not set" (Python's `None` in the arguments dump): such a
/// value says nothing about the job.
bool fact_value_unset(std::string_view value);

/// A Bool fact's value: nullopt when `value` is not one of the spellings FactType::Bool lists.
std::optional<bool> parse_fact_bool(std::string_view value);

const char* fact_type_name(FactType t);
const char* fact_merge_name(FactMerge m);

}  // namespace megatriage
