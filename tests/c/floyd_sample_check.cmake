# Runs the FusedFloydAttentionGrad sample on a small shape with 1 and with 2
# threads: the printed summaries (hashes of every output's bytes) must be
# identical, and the counts must be what the sample's reinterpreted fp16
# inputs give (see the sample's header comment): half of dq is 0, half +inf.
# Usage: cmake -DSAMPLE=<path> [-DEMULATOR=<cross-run command>] -P floyd_sample_check.cmake
set(args 16 128 128 32)
foreach(threads 1 2)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ACLNN_EMU_NUM_THREADS=${threads} ${EMULATOR} ${SAMPLE} ${args}
                  OUTPUT_VARIABLE out_${threads} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sample failed with ${threads} thread(s): ${rc}\n${out_${threads}}")
  endif()
endforeach()
if(NOT out_1 STREQUAL out_2)
  message(FATAL_ERROR "outputs differ between 1 and 2 threads:\n${out_1}\n---\n${out_2}")
endif()
if(NOT out_1 MATCHES "dq: 65536 values, 32768 zero, 32768 inf, 0 nan")
  message(FATAL_ERROR "unexpected dq summary:\n${out_1}")
endif()
foreach(name dk1 dv1 dk2 dv2)
  if(NOT out_1 MATCHES "${name}: [0-9]+ values, [0-9]+ zero, [0-9]+ inf, 0 nan, finite sum [^,]+, fnv1a [0-9a-f]+")
    message(FATAL_ERROR "no summary for ${name}:\n${out_1}")
  endif()
endforeach()
message(STATUS "${out_1}")
