// typed_value: printed values read as their declared type, and what does not read stays text.
#include "model/typed_value.h"

#include <doctest/doctest.h>

#include "model/report.h"

using namespace megatriage;

TEST_SUITE("typed_value") {
TEST_CASE("typed_value: integers, floats and booleans as logs print them") {
  CHECK(read_typed_value(FactType::Int, "8")->int_value == 8);
  CHECK(read_typed_value(FactType::Int, " -3 ")->int_value == -3);
  CHECK(read_typed_value(FactType::Int, "274877906944")->int_value == 274877906944LL);
  CHECK(read_typed_value(FactType::Float, "1234.56")->float_value == doctest::Approx(1234.56));
  CHECK(read_typed_value(FactType::Float, "7")->float_value == doctest::Approx(7.0));
  CHECK(read_typed_value(FactType::Float, "1e-3")->float_value == doctest::Approx(0.001));
  CHECK(read_typed_value(FactType::Bool, "True")->bool_value);
  CHECK_FALSE(read_typed_value(FactType::Bool, "false")->bool_value);
  CHECK(read_typed_value(FactType::Text, "  kept as is ")->text == "  kept as is ");
}

TEST_CASE("typed_value: a value that is not its type does not read") {
  for (const char* bad : {"", "8x", "1.5", "0x10", "99999999999999999999", "+"}) {
    CAPTURE(bad);
    CHECK_FALSE(read_typed_value(FactType::Int, bad));
  }
  // JSON has no NaN or infinity: Python's `nan` and `inf` stay text.
  for (const char* bad : {"", "nan", "inf", "-inf", "1.5 MB", "1,5"}) {
    CAPTURE(bad);
    CHECK_FALSE(read_typed_value(FactType::Float, bad));
  }
  CHECK_FALSE(read_typed_value(FactType::Bool, "yes"));
  CHECK_FALSE(read_typed_value(FactType::Bool, "None"));
}

TEST_CASE("typed_value: lists as Python prints them or comma-separated") {
  auto list = read_typed_value(FactType::List, "['/data/a_text_document', \"b\", 3, 0.5, c]");
  REQUIRE(list);
  REQUIRE(list->items.size() == 5);
  CHECK(list->items[0].type == FactType::Text);
  CHECK(list->items[0].text == "/data/a_text_document");
  CHECK(list->items[1].text == "b");
  CHECK(list->items[2].type == FactType::Int);
  CHECK(list->items[2].int_value == 3);
  CHECK(list->items[3].type == FactType::Float);
  CHECK(list->items[4].text == "c");
  CHECK(read_typed_value(FactType::List, "[]")->items.empty());
  CHECK(read_typed_value(FactType::List, "a,b")->items.size() == 2);
  CHECK(read_typed_value(FactType::List, "['a, with comma']")->items.size() == 1);
  CHECK(read_typed_value(FactType::List, "[1,]")->items.size() == 1);
  for (const char* bad : {"['unclosed]", "[[1, 2], [3]]", "[1", "a,,b"}) {
    CAPTURE(bad);
    CHECK_FALSE(read_typed_value(FactType::List, bad));
  }
}

TEST_CASE("typed_value: type names as rule files spell them") {
  CHECK(fact_type_from_name("int") == FactType::Int);
  CHECK(fact_type_from_name("float") == FactType::Float);
  CHECK(fact_type_from_name("bool") == FactType::Bool);
  CHECK(fact_type_from_name("text") == FactType::Text);
  CHECK_FALSE(fact_type_from_name("integer"));
}

TEST_CASE("typed_value: a fact or field that does not read as its type is an info diagnostic") {
  RootCauseReport r;
  r.facts = {{"micro_batch_size", "8"}, {"lm_loss", "nan"}, {"gpu_model", "H100"}};
  r.fields = {{"gpu", "0"}, {"rank", "three"}, {"host", "node1"}};
  r.field_types = {{"gpu", FactType::Int}, {"rank", FactType::Int}};
  std::vector<Diagnostic> d = untyped_value_diagnostics(r);
  REQUIRE(d.size() == 2);
  CHECK(d[0].code == "report.untyped-value");
  CHECK(d[0].severity == Severity::Info);
  CHECK(d[0].message.find("'lm_loss'") != std::string::npos);
  CHECK(d[1].message.find("'rank'") != std::string::npos);
}
}
