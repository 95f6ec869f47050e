# `megatriage postmortem` on a real SLURM 22.05 (tools/local-slurm): needs root; about 2 minutes.
add_test(NAME slurm.postmortem
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/slurm/postmortem_test.sh $<TARGET_FILE:megatriage>
                      ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm.postmortem PROPERTIES TIMEOUT 400 RUN_SERIAL TRUE LABELS slurm)
