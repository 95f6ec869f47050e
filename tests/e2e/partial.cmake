# `megatriage partial` + `merge` give the one-scan report (tests/e2e/partial_test.py): on every
# fixture, and on a generated 1,024-rank job (tools/bench_gen.cc, ~8 MB).
foreach(case_dir ${E2E_CASES})
  if(NOT IS_DIRECTORY ${case_dir}/logs)
    continue()
  endif()
  get_filename_component(case ${case_dir} NAME)
  add_test(NAME e2e.partial.${case}
           COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/e2e/partial_test.py $<TARGET_FILE:megatriage>
                   ${CMAKE_SOURCE_DIR} ${case_dir})
endforeach()
add_test(NAME e2e.partial-1024-ranks
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/partial_generated_test.sh $<TARGET_FILE:megatriage>
                 ${CMAKE_SOURCE_DIR} $<TARGET_FILE:megatriage_bench_gen>)
set_tests_properties(e2e.partial-1024-ranks PROPERTIES TIMEOUT 600)
add_test(NAME e2e.partial-cli
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/partial_cli_test.sh $<TARGET_FILE:megatriage>
                 ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
