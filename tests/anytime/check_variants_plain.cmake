# A component with one variant whose micro step is the macro step computes
# exactly what the component computes on its own: the oscillator's mass1
# (native, its force an input from mass2) under --variants mass1=steps:H
# gives the plain run's CSV byte for byte, so the inputs reach the variant
# from the system at every step and its outputs reach mass2.
foreach(kind plain variants)
  set(extra)
  if(kind STREQUAL "variants")
    set(extra --variants mass1=steps:1e-3)
  endif()
  execute_process(COMMAND ${CMD} run ${SSD} --parameter-set ${SSV} --step-size 1e-3 --stop-time 1
                          ${extra} --output-file ${OUT}_${kind}.csv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${kind} run failed (${rc}): ${err}")
  endif()
endforeach()
if(NOT out MATCHES "variants of mass1 \\(escalate\\): 1000 periods, [0-9]+ missed")
  message(FATAL_ERROR "no variant summary: ${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}_plain.csv ${OUT}_variants.csv
                RESULT_VARIABLE differ)
file(REMOVE ${OUT}_plain.csv ${OUT}_variants.csv)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "the variant run's results differ from the plain run's")
endif()
