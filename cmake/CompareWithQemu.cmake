# Runs a board firmware under QEMU (QEMU_ARGS, with -kernel ELF) and under
# `rtcosim firmware run` (CMD) and requires byte-identical UART0 text on
# stdout, the same semihosting text on stderr and the same exit code. Prints "SKIPPED" when qemu-system-arm is
# absent (the test's SKIP_REGULAR_EXPRESSION). Used by tests/vecu.
find_program(QEMU qemu-system-arm)
if(NOT QEMU)
  message("SKIPPED: qemu-system-arm not found (scripts/deps.sh installs it)")
  return()
endif()
separate_arguments(qemu_args UNIX_COMMAND "${QEMU_ARGS}")
execute_process(COMMAND ${QEMU} ${qemu_args} -kernel ${ELF}
                RESULT_VARIABLE qemu_rc OUTPUT_VARIABLE qemu_out ERROR_VARIABLE qemu_err
                INPUT_FILE /dev/null TIMEOUT 60)
execute_process(COMMAND ${CMD} firmware run --board ${BOARD} --stop-time 60 ${ELF}
                RESULT_VARIABLE our_rc OUTPUT_VARIABLE our_out ERROR_VARIABLE our_err
                INPUT_FILE /dev/null TIMEOUT 60)
message("qemu: exit ${qemu_rc}\n${qemu_out}${qemu_err}")
message("rtcosim: exit ${our_rc}\n${our_out}${our_err}")
if(NOT qemu_out STREQUAL our_out)
  message(FATAL_ERROR "UART text differs from QEMU's")
endif()
if(NOT qemu_err STREQUAL our_err)
  message(FATAL_ERROR "semihosting text (stderr) differs from QEMU's")
endif()
if(NOT qemu_rc STREQUAL our_rc)
  message(FATAL_ERROR "exit code ${our_rc} differs from QEMU's ${qemu_rc}")
endif()
if(NOT "${EXPECT_EXIT}" STREQUAL "" AND NOT our_rc STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT} from both")
endif()
