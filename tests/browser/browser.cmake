# The HTML report in headless Chromium (tests/browser/html_report_test.py): fixtures, a hostile
# one, and a generated 1,024-rank job (hence bench_gen, built here as a test helper). Skipped
# (exit 77) only where Chromium, chromedriver or Selenium is missing; tools/setup test installs
# them and tools/test sets MEGATRIAGE_REQUIRE_BROWSER=1, which turns that skip into a failure.
# Pages and screenshots land in <build>/browser/.
# Debian's python3-selenium is a module of Debian's python3: run that one, not whatever python3
# comes first in PATH (pyenv, a venv).
find_program(MEGATRIAGE_DEBIAN_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT MEGATRIAGE_DEBIAN_PYTHON)
  set(MEGATRIAGE_DEBIAN_PYTHON python3)
endif()
add_executable(megatriage_bench_gen ${CMAKE_SOURCE_DIR}/tools/bench_gen.cc)
add_test(NAME browser.html-report
         COMMAND ${MEGATRIAGE_DEBIAN_PYTHON} ${CMAKE_SOURCE_DIR}/tests/browser/html_report_test.py
                 --megatriage $<TARGET_FILE:megatriage> --fixtures ${CMAKE_SOURCE_DIR}/fixtures
                 --out ${CMAKE_BINARY_DIR}/browser --bench-gen $<TARGET_FILE:megatriage_bench_gen>)
set_tests_properties(browser.html-report PROPERTIES LABELS browser SKIP_RETURN_CODE 77 TIMEOUT 600)
