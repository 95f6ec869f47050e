# Run by the megatriage_git_commit target at every build: writes the commit the sources are at
# into OUTPUT, touching the file only when the text changes, so an unchanged commit rebuilds
# nothing and a new one rebuilds version.cc alone. Outside a git checkout (a source tarball, a
# Debian source package) the commit is MEGATRIAGE_GIT_COMMIT when the packager set it, else
# "unknown".
# Usage: cmake -DSOURCE_DIR=... -DOUTPUT=... [-DMEGATRIAGE_GIT_COMMIT=...] -P git_commit.cmake
set(commit "${MEGATRIAGE_GIT_COMMIT}")
if(commit STREQUAL "")
  execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR commit STREQUAL "")
    set(commit "unknown")
  else()
    # -dirty for edits to tracked files. GIT_OPTIONAL_LOCKS=0: a build never takes the index lock
    # (git status would refresh the index), so it cannot fail a git command run beside it.
    execute_process(COMMAND ${CMAKE_COMMAND} -E env GIT_OPTIONAL_LOCKS=0
                            git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes ERROR_QUIET RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND NOT changes STREQUAL "")
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "// Written by cmake/git_commit.cmake at build time.\n#define MEGATRIAGE_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
