# `megatriage postmortem` on a real SLURM 22.05 (tools/local-slurm): needs root; about 2 minutes.
add_test(NAME slurm.postmortem
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/slurm/postmortem_test.sh $<TARGET_FILE:megatriage>
                      ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm.postmortem PROPERTIES TIMEOUT 400 RUN_SERIAL TRUE LABELS slurm)
# `megatriage partial` + `merge` on a 2-node job with node-local log folders, README's wirings
# (in the job, node Epilog, EpilogSlurmctld): needs root; about a minute.
add_test(NAME slurm.partial
         COMMAND bash ${CMAKE_SOURCE_DIR}/tests/slurm/partial_test.sh $<TARGET_FILE:megatriage> ${CMAKE_SOURCE_DIR})
set_tests_properties(slurm.partial PROPERTIES TIMEOUT 400 RUN_SERIAL TRUE LABELS slurm)
