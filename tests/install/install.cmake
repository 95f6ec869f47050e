# Installing megatriage the three ways README "Install" shows (cmake --install to a prefix, the
# .deb, an Lmod module on shared storage) and what comes with it (man page, completions, site
# rules). Label `install`: `ctest -L install`. Each script: BINARY BUILD_DIR SOURCE_DIR JSON_GET.
set(INSTALL_TESTS prefix deb module completion site-rules)
foreach(name ${INSTALL_TESTS})
  add_test(NAME install.${name}
           COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/${name}_test.sh $<TARGET_FILE:megatriage>
                   ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR} ${JSON_GET})
  # One at a time: the .deb test installs /usr/bin/megatriage for a moment, which the module
  # test's "not on PATH after unload" would see (ctest -j2 ran them side by side).
  set_tests_properties(install.${name} PROPERTIES LABELS install TIMEOUT 300 SKIP_RETURN_CODE 77
                                                  RESOURCE_LOCK system-install)
endforeach()
# Every flag of every subcommand's --help, every exit code and environment variable is in the
# man page, which groff renders without a warning.
add_test(NAME install.man-page
         COMMAND python3 ${CMAKE_SOURCE_DIR}/tests/install/man_page_test.py $<TARGET_FILE:megatriage>
                 ${CMAKE_BINARY_DIR}/man/megatriage.1 ${CMAKE_SOURCE_DIR})
set_tests_properties(install.man-page PROPERTIES LABELS install)
