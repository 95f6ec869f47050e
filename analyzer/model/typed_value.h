// A fact's or a captured field's printed value read as its declared type (FactType): what the
// JSON report writes as a number, a boolean or an array instead of a string. The model keeps the
// printed text (checks and headlines quote it); this is the one place that reads it as data.
// It does not decide what type a key has: the fact registry and the rules' `field_types` do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/fact_registry.h"

namespace megatriage {

/// One value of a known type. `items` holds a List's elements, each Int, Float or Text.
struct TypedValue {
  FactType type = FactType::Text;
  std::int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string text;                // Text; a List element that is no number
  std::vector<TypedValue> items;   // List
};

/// `printed` read as `type`, or nullopt when it does not read as one (`nan` for a Float, `8x`
/// for an Int, an unclosed quote in a List): the caller keeps such a value as text. Text always
/// reads. Int: a decimal integer that fits 64 bits. Float: a finite decimal number. Bool: the
/// spellings parse_fact_bool knows. List: `[a, 'b', "c"]` as Python prints it, or `a,b,c`; each
/// element a number when it is an unquoted one, else its text without the quotes.
std::optional<TypedValue> read_typed_value(FactType type, std::string_view printed);

/// A type name as rule files spell it (`int`, `float`, `bool`, `text`; `list` too), or nullopt.
std::optional<FactType> fact_type_from_name(std::string_view name);

}  // namespace megatriage
