# The board as an LP of the event kernel (`rtcosim events --board-ecu`)
# against `rtcosim firmware run` of the same ELF (itself compared byte for
# byte with QEMU's mps2-an386 by CompareWithQemu.cmake): the same UART0 bytes
# and exit code under the sequential, conservative (2 threads) and
# speculative (2 threads) schedulers, and the same board and vehicle
# checksums across them. CMD: the CLI; ELF: the firmware.
execute_process(COMMAND mktemp -d OUTPUT_VARIABLE dir OUTPUT_STRIP_TRAILING_WHITESPACE)
set(failure "")
execute_process(COMMAND ${CMD} firmware run --stop-time 1 ${ELF} OUTPUT_FILE ${dir}/firmware.txt
                RESULT_VARIABLE fw_rc ERROR_QUIET INPUT_FILE /dev/null TIMEOUT 60)
set(board_line "")
set(vehicle_sum "")
foreach(sched "sequential" "conservative;--threads;2" "speculative;--threads;2")
  string(REPLACE ";" "_" tag "${sched}")
  execute_process(COMMAND ${CMD} events -q --ecus 1 --stop-time 0.1 --scheduler ${sched}
                          --board-ecu io=mps2-an386:${ELF},uart=${dir}/${tag}.txt
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  INPUT_FILE /dev/null TIMEOUT 120)
  message("${tag}: exit ${rc}\n${out}${err}")
  string(REGEX MATCH "board io [^\n]*" line "${out}")
  string(REGEX MATCH "\nchecksum +[0-9a-f]+" sum "${out}")
  if(NOT rc EQUAL 0 OR line STREQUAL "")
    set(failure "${tag}: the run failed or printed no board line")
    break()
  endif()
  if(NOT line MATCHES "exited with ${fw_rc} at")
    set(failure "${tag}: the board did not exit with ${fw_rc} as `firmware run` did")
    break()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${dir}/firmware.txt ${dir}/${tag}.txt
                  RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    set(failure "${tag}: UART0 bytes differ from `rtcosim firmware run`'s")
    break()
  endif()
  if(board_line STREQUAL "")
    set(board_line "${line}")
    set(vehicle_sum "${sum}")
  elseif(NOT line STREQUAL board_line OR NOT sum STREQUAL vehicle_sum)
    set(failure "${tag}: board line or vehicle checksum differ from the sequential run's")
    break()
  endif()
endforeach()
file(REMOVE_RECURSE ${dir})
if(NOT failure STREQUAL "")
  message(FATAL_ERROR "${failure}")
endif()
