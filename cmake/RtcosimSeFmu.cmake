# Builds a model for FMI 3.0 scheduled execution (chapter 5) as an FMU:
#
# rtcosim_add_se_fmu(NAME <ModelName> SOURCES <model.c>... [NO_INSTALL]
#                    [COSIMULATION] [FILES <path-in-fmu>...])
#
# COSIMULATION: the model's clocks in FMI 3.0 co-simulation with Event Mode
# instead (models/common/fmi3_cs_clocks_glue.c, a CoSimulation element):
# <ModelName>-fmi3.fmu, RTCOSIM_FMU_<NAME>_FMI3. FILES: files beside the
# model's CMakeLists.txt packed into the FMU at the same relative path
# (terminalsAndIcons/terminalsAndIcons.xml, extra/<standard>/...).
#
# The model defines model_definition (models/common/model.h) and
# se_model_definition (models/common/se_model.h). Its binary is the shared
# co-simulation glue with the scheduled-execution functions of
# models/common/fmi3_se_glue.c; modelDescription.xml is written at build time
# by models/common/describe_se.c from the same tables. The result is
# ${CMAKE_BINARY_DIR}/fmus/<ModelName>-fmi3se.fmu, target fmu_<lower>_fmi3se,
# and RTCOSIM_FMU_<NAME>_FMI3SE in rtcosim_test_fmus.h (see RtcosimFmu.cmake).

include_guard(GLOBAL)
include(RtcosimFmu)

function(rtcosim_add_se_fmu)
  cmake_parse_arguments(F "NO_INSTALL;COSIMULATION" "NAME" "SOURCES;FILES" ${ARGN})
  if(NOT F_NAME OR NOT F_SOURCES)
    message(FATAL_ERROR "rtcosim_add_se_fmu: NAME and SOURCES are required")
  endif()
  set(RTCOSIM_FMU_DIR ${CMAKE_BINARY_DIR}/fmus)
  set(common ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../models/common)
  string(TOLOWER ${F_NAME} lower)
  string(TOUPPER ${F_NAME} upper)
  if(F_COSIMULATION)
    set(suffix fmi3)
    set(glue ${common}/fmi3_cs_clocks_glue.c)
  else()
    set(suffix fmi3se)
    set(glue ${common}/fmi3_se_glue.c)
  endif()
  string(TOUPPER ${suffix} usuffix)
  set(target fmu_${lower}_${suffix})
  set(layout ${RTCOSIM_FMU_DIR}/${F_NAME}-${suffix})
  set(fmu ${RTCOSIM_FMU_DIR}/${F_NAME}-${suffix}.fmu)
  _rtcosim_fmu_platform(3 platform)
  set(sources "")
  foreach(src IN LISTS F_SOURCES)
    get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND sources ${abs})
  endforeach()

  add_library(${target}_binary MODULE ${sources} ${common}/instance.c ${common}/fmu_state.c
              ${common}/me.c ${common}/cs_events.c ${glue})
  set_target_properties(${target}_binary PROPERTIES
    PREFIX "" SUFFIX ".so" OUTPUT_NAME ${F_NAME}
    LIBRARY_OUTPUT_DIRECTORY ${layout}/binaries/${platform}
    C_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_include_directories(${target}_binary PRIVATE ${common} ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target}_binary PRIVATE m)

  add_executable(${target}_describe ${common}/describe_se.c ${common}/instance.c ${common}/cs_events.c ${sources})
  target_include_directories(${target}_describe PRIVATE ${common})
  target_link_libraries(${target}_describe PRIVATE m)
  if(F_COSIMULATION)
    target_compile_definitions(${target}_describe PRIVATE DESCRIBE_COSIMULATION=1)
  endif()
  add_custom_command(OUTPUT ${layout}/modelDescription.xml
    COMMAND ${target}_describe ${F_NAME} ${layout}/modelDescription.xml
    DEPENDS ${target}_describe
    COMMENT "Generating ${F_NAME}-${suffix}/modelDescription.xml" VERBATIM)
  set(packed modelDescription.xml binaries)
  set(copied "")
  foreach(file IN LISTS F_FILES)
    string(REGEX REPLACE "/.*" "" top "${file}")
    add_custom_command(OUTPUT ${layout}/${file}
      COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_CURRENT_SOURCE_DIR}/${file} ${layout}/${file}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${file} VERBATIM)
    list(APPEND copied ${layout}/${file})
    list(APPEND packed ${top})
  endforeach()
  list(REMOVE_DUPLICATES packed)
  add_custom_command(OUTPUT ${fmu}
    COMMAND ${CMAKE_COMMAND} -E rm -f ${fmu}
    COMMAND ${RTCOSIM_ZIP_EXECUTABLE} -q -X -r ${fmu} ${packed}
    WORKING_DIRECTORY ${layout}
    DEPENDS ${layout}/modelDescription.xml ${target}_binary ${copied}
    COMMENT "Packaging ${F_NAME}-${suffix}.fmu" VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${fmu})
  if(NOT TARGET fmus)
    message(FATAL_ERROR "rtcosim_add_se_fmu: declare after the first rtcosim_add_fmu")
  endif()
  add_dependencies(fmus ${target})
  if(NOT F_NO_INSTALL)
    install(FILES ${fmu} DESTINATION ${CMAKE_INSTALL_DATADIR}/rtcosim/fmus)
  endif()
  set(binary ${layout}/binaries/${platform}/${F_NAME}.so)
  set_property(GLOBAL PROPERTY RTCOSIM_FMU_${upper}_${usuffix} ${fmu})
  set_property(GLOBAL APPEND PROPERTY RTCOSIM_FMU_HEADER_LINES
    "#define RTCOSIM_FMU_${upper}_${usuffix} \"${fmu}\""
    "#define RTCOSIM_FMU_${upper}_${usuffix}_DIR \"${layout}\""
    "#define RTCOSIM_FMU_${upper}_${usuffix}_BINARY \"${binary}\"")
endfunction()
