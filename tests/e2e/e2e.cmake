# End-to-end tests: one CTest entry per fixture and check (golden, invariance, label).
add_executable(megatriage_label_check ${CMAKE_SOURCE_DIR}/tests/e2e/label_check.cc)
target_link_libraries(megatriage_label_check PRIVATE nlohmann_json::nlohmann_json)
# The scripts read report fields through this (a JSON path in, the values out), never by grep.
add_executable(megatriage_json_get ${CMAKE_SOURCE_DIR}/tests/e2e/json_get.cc)
target_link_libraries(megatriage_json_get PRIVATE nlohmann_json::nlohmann_json)
set(JSON_GET $<TARGET_FILE:megatriage_json_get>)
# tools/score's scorer: accuracy over every labelled fixture (run by tools/score).
add_executable(megatriage_score ${CMAKE_SOURCE_DIR}/tools/score.cc)
target_link_libraries(megatriage_score PRIVATE nlohmann_json::nlohmann_json)

file(GLOB E2E_CASES LIST_DIRECTORIES true ${CMAKE_SOURCE_DIR}/fixtures/*)
foreach(case_dir ${E2E_CASES})
  if(NOT IS_DIRECTORY ${case_dir}/logs)
    continue()
  endif()
  get_filename_component(case ${case_dir} NAME)
  foreach(check golden invariance label)
    if(check STREQUAL "label" AND NOT EXISTS ${case_dir}/label.json)
      continue()
    endif()
    add_test(NAME e2e.${check}.${case}
             COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/check_case.sh ${check}
                     $<TARGET_FILE:megatriage> ${case_dir}
                     ${CMAKE_SOURCE_DIR}/tests/e2e/expected $<TARGET_FILE:megatriage_label_check>)
  endforeach()
endforeach()

add_test(NAME e2e.cli COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/cli_test.sh $<TARGET_FILE:megatriage>
                              ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
add_test(NAME e2e.report-text COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/report_text_test.sh $<TARGET_FILE:megatriage>
                                      ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
add_test(NAME e2e.lint COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/lint_test.sh $<TARGET_FILE:megatriage>
                               ${CMAKE_SOURCE_DIR}/fixtures/lint)
add_test(NAME e2e.script-input COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/script_input_test.sh
                                       $<TARGET_FILE:megatriage> ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
set_tests_properties(e2e.script-input PROPERTIES TIMEOUT 300)
add_test(NAME e2e.watch COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/watch_test.sh $<TARGET_FILE:megatriage> ${JSON_GET})
add_test(NAME e2e.postmortem-fallback COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/postmortem_fallback_test.sh
                                           $<TARGET_FILE:megatriage> ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
add_test(NAME e2e.bad-input COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/bad_input_test.sh
                                    $<TARGET_FILE:megatriage> ${CMAKE_SOURCE_DIR}/fixtures
                                    $<TARGET_FILE:megatriage_label_check> ${JSON_GET})
# The checks of every fixture's report: unique ids, host-memory checks for a host OOM, shapes
# for a plain PyTorch shape error, a site's checks without a rebuild.
add_test(NAME e2e.checks COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/checks_test.sh $<TARGET_FILE:megatriage>
                                 ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
# Every report, --all-jobs envelope and lint JSON output validates against schema/ (python3-jsonschema).
add_test(NAME e2e.schema COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/e2e/schema_test.py $<TARGET_FILE:megatriage>
                                 ${CMAKE_SOURCE_DIR})
set_tests_properties(e2e.schema PROPERTIES TIMEOUT 300)
# --format markdown/github on every fixture, lint --format sarif on every script, their goldens.
add_test(NAME e2e.ci-formats COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/e2e/ci_formats_test.py $<TARGET_FILE:megatriage>
                                     ${CMAKE_SOURCE_DIR})
set_tests_properties(e2e.ci-formats PROPERTIES TIMEOUT 300)
# README.md's GitHub Actions and GitLab CI snippets, run on a fixture.
add_test(NAME e2e.readme-ci COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/e2e/readme_ci_test.py $<TARGET_FILE:megatriage>
                                    ${CMAKE_SOURCE_DIR})
# README.md as a newcomer reads it: the sample report is today's, every subcommand is listed, links work.
add_test(NAME e2e.readme COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/readme_test.sh $<TARGET_FILE:megatriage>
                                 ${CMAKE_SOURCE_DIR})
include(${CMAKE_SOURCE_DIR}/tests/slurm/slurm.cmake)
include(${CMAKE_SOURCE_DIR}/tests/browser/browser.cmake)
include(${CMAKE_SOURCE_DIR}/tests/e2e/partial.cmake)  # after browser.cmake: uses its megatriage_bench_gen

# Bad input, one case per script (tests/e2e/bad_input/lib.sh is their shared harness).
file(GLOB BAD_INPUT_CASES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/e2e/bad_input/*.sh)
list(FILTER BAD_INPUT_CASES EXCLUDE REGEX "/lib\\.sh$")
foreach(script ${BAD_INPUT_CASES})
  get_filename_component(name ${script} NAME_WE)
  add_test(NAME e2e.bad-input.${name} COMMAND bash ${script} $<TARGET_FILE:megatriage>
                                              ${CMAKE_SOURCE_DIR}/fixtures $<TARGET_FILE:megatriage_label_check>
                                              ${JSON_GET})
  set_tests_properties(e2e.bad-input.${name} PROPERTIES TIMEOUT 300)
endforeach()
# tools/bench --quick: the benchmark harness runs and prints every ratio (timing is not asserted).
add_test(NAME e2e.bench-quick COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/bench_quick.sh $<TARGET_FILE:megatriage>)
set_tests_properties(e2e.bench-quick PROPERTIES RUN_SERIAL TRUE TIMEOUT 600)
# tools/style-sweep, small: every style's report names the root, and has a time where its stamps are read.
add_test(NAME e2e.style-sweep COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/style_sweep_test.sh $<TARGET_FILE:megatriage>)
set_tests_properties(e2e.style-sweep PROPERTIES TIMEOUT 300)
# Several jobs in one folder (--job, --all-jobs), own reports read back, `-` for standard input.
add_test(NAME e2e.jobs COMMAND bash ${CMAKE_SOURCE_DIR}/tests/e2e/jobs_test.sh $<TARGET_FILE:megatriage>
                               ${CMAKE_SOURCE_DIR}/fixtures ${JSON_GET})
