# Run by the megatriage_git_commit target at every build: writes the commit the sources are at
# into OUTPUT, touching the file only when the text changes, so an unchanged commit rebuilds
# nothing and a new one rebuilds version.cc alone. Outside a git checkout (a source tarball, a
# Debian source package) the commit is MEGATRIAGE_GIT_COMMIT when the packager set it, else
# "unknown".
# Usage: cmake -DSOURCE_DIR=... -DOUTPUT=... [-DMEGATRIAGE_GIT_COMMIT=...] -P git_commit.cmake
set(commit "${MEGATRIAGE_GIT_COMMIT}")
if(commit STREQUAL "")
  # --exclude='*': no tag counts, so the answer is the hash alone, with -dirty for local edits.
  execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12 --exclude=*
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  endif()
endif()
set(text "// Written by cmake/git_commit.cmake at build time.\n#define MEGATRIAGE_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
