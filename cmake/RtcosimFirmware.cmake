# rtcosim_add_firmware(NAME SOURCES src...): cross-compile a Cortex-M4
# firmware ELF for the virtual ECU (src/vecu) with arm-none-eabi-gcc at build
# time, linked by examples/firmware/vecu.ld with its startup code. Sets
# RTCOSIM_FIRMWARE_<NAME> to the ELF's path and makes target firmware_<NAME>.
# Without the cross compiler (scripts/deps.sh installs gcc-arm-none-eabi),
# RTCOSIM_FIRMWARE is OFF and callers skip firmware and its tests.
find_program(RTCOSIM_ARM_GCC arm-none-eabi-gcc)
if(RTCOSIM_ARM_GCC)
  set(RTCOSIM_FIRMWARE ON)
else()
  set(RTCOSIM_FIRMWARE OFF)
  message(STATUS "arm-none-eabi-gcc not found: the virtual-ECU firmware (examples/firmware) and"
                 " its tests are skipped; scripts/deps.sh installs gcc-arm-none-eabi")
endif()

set(RTCOSIM_FIRMWARE_DIR ${PROJECT_SOURCE_DIR}/examples/firmware)
function(rtcosim_add_firmware name)
  cmake_parse_arguments(F "" "" "SOURCES" ${ARGN})
  set(elf ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf)
  set(sources ${F_SOURCES} ${RTCOSIM_FIRMWARE_DIR}/startup.c)
  add_custom_command(
    OUTPUT ${elf}
    COMMAND ${RTCOSIM_ARM_GCC} -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -g -std=gnu17
            -Wall -Wextra -Werror -ffreestanding -fno-tree-loop-distribute-patterns
            -ffunction-sections -fdata-sections -nostdlib -nostartfiles
            -I${PROJECT_SOURCE_DIR}/include -T ${RTCOSIM_FIRMWARE_DIR}/vecu.ld
            -Wl,--gc-sections -o ${elf} ${sources} -lgcc
    DEPENDS ${sources} ${RTCOSIM_FIRMWARE_DIR}/vecu.ld
            ${PROJECT_SOURCE_DIR}/include/rtcosim/vecu_periph.h
    COMMENT "Cross-compiling firmware ${name}.elf (Cortex-M4)"
    VERBATIM)
  add_custom_target(firmware_${name} ALL DEPENDS ${elf})
  set(RTCOSIM_FIRMWARE_${name} ${elf} PARENT_SCOPE)
endfunction()

# rtcosim_add_board_firmware(NAME LINKER_SCRIPT ld SOURCES src... [DEPENDS headers...]): firmware
# for a real board (src/vecu/board.c), freestanding with its own startup code
# and memory map; sets RTCOSIM_FIRMWARE_<NAME> and target firmware_<NAME>.
function(rtcosim_add_board_firmware name)
  cmake_parse_arguments(F "" "LINKER_SCRIPT" "SOURCES;DEPENDS" ${ARGN})
  set(elf ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf)
  add_custom_command(
    OUTPUT ${elf}
    COMMAND ${RTCOSIM_ARM_GCC} -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -g
            -std=gnu17 -Wall -Wextra -Werror -ffreestanding -fno-math-errno
            -fno-tree-loop-distribute-patterns -ffunction-sections -fdata-sections -nostdlib
            -nostartfiles -I${RTCOSIM_FIRMWARE_DIR}/mps2 -T ${F_LINKER_SCRIPT} -Wl,--gc-sections
            -o ${elf} ${F_SOURCES} -lgcc
    DEPENDS ${F_SOURCES} ${F_LINKER_SCRIPT} ${F_DEPENDS}
    COMMENT "Cross-compiling board firmware ${name}.elf (Cortex-M4)"
    VERBATIM)
  add_custom_target(firmware_${name} ALL DEPENDS ${elf})
  set(RTCOSIM_FIRMWARE_${name} ${elf} PARENT_SCOPE)
endfunction()

# rtcosim_add_picolibc_firmware(NAME SOURCES src... [DEPENDS headers...]):
# firmware for the MPS2 memory map (code at 0, 4 MiB; data at 0x20000000,
# 4 MiB) built with Debian's picolibc, its crt0 and linker script.
function(rtcosim_add_picolibc_firmware name)
  cmake_parse_arguments(F "" "" "SOURCES;DEPENDS" ${ARGN})
  set(elf ${CMAKE_CURRENT_BINARY_DIR}/${name}.elf)
  add_custom_command(
    OUTPUT ${elf}
    COMMAND ${RTCOSIM_ARM_GCC} --specs=picolibc.specs -mcpu=cortex-m4 -mthumb
            -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -g -std=gnu17 -Wall -Wextra -Werror
            -I${RTCOSIM_FIRMWARE_DIR}/mps2 -Wl,--defsym=__flash=0 -Wl,--defsym=__flash_size=4M
            -Wl,--defsym=__ram=0x20000000 -Wl,--defsym=__ram_size=4M
            -Wl,--defsym=__stack_size=8k -o ${elf} ${F_SOURCES}
    DEPENDS ${F_SOURCES} ${F_DEPENDS}
    COMMENT "Cross-compiling board firmware ${name}.elf with picolibc (Cortex-M4)"
    VERBATIM)
  add_custom_target(firmware_${name} ALL DEPENDS ${elf})
  set(RTCOSIM_FIRMWARE_${name} ${elf} PARENT_SCOPE)
endfunction()
