# What `cmake --install` puts under a prefix, and the .deb CPack makes of it (`cpack -G DEB`).
# One prefix layout for every way in (README "Install"): bin/megatriage,
# share/megatriage/{rules,modulefiles}, share/man/man1, share/bash-completion/completions,
# share/zsh/site-functions, share/doc/megatriage (README, JSON Schemas, copyright). The binary
# reads its rules at <its dir>/../share/megatriage/rules, so bin and share stay under one prefix.

# Installing never builds (as `cmake --install` never does): cpack, run by the install tests
# while other tests use the build tree, must not relink a binary under them.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY TRUE)
install(TARGETS megatriage RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY rules/ DESTINATION ${MEGATRIAGE_RULES_INSTALL_DIR})

# The manual: docs/megatriage.1.in with the version filled in, gzipped as Debian and man-db
# expect (-n: no name or time stamp inside, so the same source gives the same bytes).
configure_file(docs/megatriage.1.in ${CMAKE_BINARY_DIR}/man/megatriage.1 @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/megatriage.1.gz
  COMMAND gzip -9nkf ${CMAKE_BINARY_DIR}/man/megatriage.1
  DEPENDS ${CMAKE_BINARY_DIR}/man/megatriage.1 VERBATIM)
add_custom_target(megatriage_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/megatriage.1.gz)
install(FILES ${CMAKE_BINARY_DIR}/man/megatriage.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

install(FILES packaging/completions/megatriage.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME megatriage)
install(FILES packaging/completions/_megatriage DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)

# The JSON Schemas of the reports, for the consumers that validate them, beside the README.
install(FILES README.md packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY schema/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/schema)

# The Lmod module file, written at install time: the prefix it falls back to is the one
# installed into (`cmake --install build --prefix P`), not the one configured.
install(CODE "
  set(MEGATRIAGE_VERSION ${PROJECT_VERSION})
  set(MEGATRIAGE_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  configure_file(${CMAKE_SOURCE_DIR}/packaging/lmod/megatriage.lua.in
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/megatriage/modulefiles/megatriage/${PROJECT_VERSION}.lua\"
    @ONLY)
  message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/megatriage/modulefiles/megatriage/${PROJECT_VERSION}.lua\")")

# The Debian package. Depends come from dpkg-shlibdeps on the stripped binary, so they name the
# runtime libraries this build links (RE2, Boost.Iostreams, Vectorscan when in, zlib, bzip2,
# xz, zstd) at the versions it was built against.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME megatriage)
set(CPACK_PACKAGE_VENDOR "megatriage maintainers")
set(CPACK_PACKAGE_CONTACT "megatriage maintainers <maintainers@users.noreply.a-seed-e088d6ff.example>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # Debian ships stripped binaries; this also drops the debug info's build paths
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # megatriage_0.1.0-1_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The decompressors behind Boost.Iostreams' gzip, bzip2, xz and zstd filters: the binary does not
# link them itself, so dpkg-shlibdeps does not list them, yet reading compressed logs needs them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "zlib1g, libbz2-1.0, liblzma5, libzstd1")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, lmod, slurm-client")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "root cause of a failed Megatron-LM / SLURM training job
megatriage reads the logs of every rank of a failed distributed training
job (plain or compressed) and reports the root cause: the first failure
that is not a symptom of another rank's failure, such as a CUDA out of
memory error hidden among thousands of NCCL watchdog timeouts. It
classifies the failure, names the rank, host and log line, lists the
symptoms it explains and the checks to make next.
.
Reports come as text, JSON, HTML, Markdown or GitHub annotations. The
package also has a SLURM post-mortem for epilogs, a watcher for running
jobs, a linter for batch scripts, and rules that a site can extend in
/etc/megatriage/rules.d.")
# changelog.Debian.gz belongs to the package alone, not to every prefix install.
configure_file(packaging/debian/changelog ${CMAKE_BINARY_DIR}/packaging/changelog.Debian COPYONLY)
set(MEGATRIAGE_DEB_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog.Debian)
configure_file(cmake/deb_extras.cmake.in ${CMAKE_BINARY_DIR}/packaging/deb_extras.cmake @ONLY)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_BINARY_DIR}/packaging/deb_extras.cmake)
include(CPack)
