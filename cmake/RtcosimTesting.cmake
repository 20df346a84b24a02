# rtcosim_add_test(NAME SOURCES src... [LIBS lib...] [LABELS label...] [TIMEOUT s])
# Builds a cmocka test executable linked to the library and registers it.
function(rtcosim_add_test name)
  cmake_parse_arguments(T "" "TIMEOUT;WORKING_DIRECTORY" "SOURCES;LIBS;LABELS;DEPENDS;ENVIRONMENT" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE rtcosim PkgConfig::CMOCKA ${T_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  if(T_DEPENDS)
    add_dependencies(${name} ${T_DEPENDS})
  endif()
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${name} COMMAND ${name} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  if(T_LABELS)
    set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  endif()
  if(T_ENVIRONMENT)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENVIRONMENT}")
  endif()
endfunction()

# rtcosim_add_cli_test(NAME COMMAND args... [EXPECT_EXIT n] [EXPECT_STDERR regex] [EXPECT_STDOUT regex])
# Runs the rtcosim CLI and checks exit code and output (for bad-input tests).
# A ';' in a pattern is kept (PARSE_ARGV) and passed encoded, since add_test
# would split the argument there; RunCliTest.cmake decodes it.
function(rtcosim_add_cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 T "" "EXPECT_EXIT;EXPECT_STDERR;EXPECT_STDOUT" "COMMAND")
  foreach(stream STDERR STDOUT)
    string(REPLACE "\\;" "<semicolon>" T_EXPECT_${stream} "${T_EXPECT_${stream}}")
    string(REPLACE ";" "<semicolon>" T_EXPECT_${stream} "${T_EXPECT_${stream}}")
  endforeach()
  if(NOT DEFINED T_EXPECT_EXIT)
    set(T_EXPECT_EXIT 0)
  endif()
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND}
             -DCMD=$<TARGET_FILE:rtcosim_cli>
             "-DARGS=${T_COMMAND}"
             -DEXPECT_EXIT=${T_EXPECT_EXIT}
             "-DEXPECT_STDERR=${T_EXPECT_STDERR}"
             "-DEXPECT_STDOUT=${T_EXPECT_STDOUT}"
             -P ${PROJECT_SOURCE_DIR}/cmake/RunCliTest.cmake
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120)
endfunction()
