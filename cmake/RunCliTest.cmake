# Runs CMD with ARGS (a ;-list) and checks the exit code and output against
# the expectations; used by rtcosim_add_cli_test for end-to-end CLI tests.
# The command runs in a fresh scratch directory, removed afterwards, so that
# whatever it writes by a relative name (default output files, plots) lands
# there and never in the tree the tests were started from.
if(DEFINED ENV{TMPDIR} AND NOT "$ENV{TMPDIR}" STREQUAL "")
  set(scratch_parent "$ENV{TMPDIR}")
else()
  set(scratch_parent "/tmp")
endif()
string(RANDOM LENGTH 12 tag)
set(scratch "${scratch_parent}/rtcosim-cli-${tag}")
file(MAKE_DIRECTORY "${scratch}")
execute_process(COMMAND ${CMD} ${ARGS}
                WORKING_DIRECTORY "${scratch}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                TIMEOUT 100)
file(REMOVE_RECURSE "${scratch}")
message("exit ${rc}\n--- stdout\n${out}--- stderr\n${err}")
if(NOT "${rc}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got ${rc}")
endif()
string(REPLACE "<semicolon>" ";" EXPECT_STDERR "${EXPECT_STDERR}")
string(REPLACE "<semicolon>" ";" EXPECT_STDOUT "${EXPECT_STDOUT}")
if(EXPECT_STDERR AND NOT err MATCHES "${EXPECT_STDERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_STDERR}'")
endif()
if(EXPECT_STDOUT AND NOT out MATCHES "${EXPECT_STDOUT}")
  message(FATAL_ERROR "stdout does not match '${EXPECT_STDOUT}'")
endif()
# A crash must never pass as an expected failure.
if(err MATCHES "AddressSanitizer|runtime error:|Segmentation fault|LeakSanitizer")
  message(FATAL_ERROR "sanitizer report or crash in output")
endif()
