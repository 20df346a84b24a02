# rtcosim run --real-time --virtual-clock --variants with --rt-report: the
# report's frames.csv gets variant.D and variant_missed.D per frame and
# summary.csv the variants.D.* rows. On the virtual clock the FMU variants
# take no time, so every one of the 100 frames (H = 0.01 s over 1 s)
# delivers the finest, h=0.001, on time.
file(REMOVE_RECURSE ${DIR})
execute_process(COMMAND ${CMD} run ${SSD} --step-size 0.01 --variants D=steps:1e-2,1e-3
                        --real-time --virtual-clock --rt-report ${DIR} --output-file ${DIR}.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "run failed (${rc}): ${err}")
endif()
file(STRINGS ${DIR}/frames.csv lines)
list(GET lines 0 header)
if(NOT header MATCHES ",variant\\.D,variant_missed\\.D$")
  message(FATAL_ERROR "frames.csv header without the variant columns: ${header}")
endif()
list(LENGTH lines n)
if(NOT n EQUAL 101)
  message(FATAL_ERROR "frames.csv has ${n} lines, not 1 + 100 frames")
endif()
list(REMOVE_AT lines 0)
set(k 0)
foreach(line IN LISTS lines)
  if(NOT line MATCHES ",h=0\\.001,0$")
    message(FATAL_ERROR "frame ${k}: not the finest variant on time: ${line}")
  endif()
  math(EXPR k "${k} + 1")
endforeach()
file(READ ${DIR}/summary.csv summary)
foreach(row "variants.D.periods,100," "variants.D.misses,0," "variants.D.share.h=0.001,1.000000,"
            "variants.D.share.h=0.01,0.000000,")
  string(FIND "${summary}" "${row}" at)
  if(at LESS 0)
    message(FATAL_ERROR "summary.csv lacks '${row}':\n${summary}")
  endif()
endforeach()
file(REMOVE_RECURSE ${DIR})
file(REMOVE ${DIR}.csv)
