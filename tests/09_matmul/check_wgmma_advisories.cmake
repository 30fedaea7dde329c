# Compiles each sm_90a stage file of chapter 9 for sm_90a and fails on any ptxas advisory that
# wgmma was serialized or waited on (C7510, C7515, C7517 and the like, "Potential Performance
# Loss"): such a kernel is correct but falls back to a slow path, and only the compiler says so.
#   cmake -DNVCC=<nvcc> -DSOURCES=<a;b> -DINCLUDES=<dir;dir> -P check_wgmma_advisories.cmake
set(include_flags "")
foreach(dir ${INCLUDES})
  list(APPEND include_flags "-I${dir}")
endforeach()
set(failed "")
foreach(source ${SOURCES})
  execute_process(
    COMMAND ${NVCC} -std=c++17 -O3 --generate-code=arch=compute_90a,code=sm_90a ${include_flags}
            -Xptxas -v -c ${source} -o /dev/null
    RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  get_filename_component(name ${source} NAME)
  if(NOT status EQUAL 0)
    message(SEND_ERROR "${name}: nvcc failed\n${out}${err}")
    list(APPEND failed ${name})
  elseif("${out}${err}" MATCHES "Potential Performance Loss[^\n]*")
    message(SEND_ERROR "${name}: ${CMAKE_MATCH_0}")
    list(APPEND failed ${name})
  else()
    message(STATUS "${name}: no wgmma advisory from ptxas")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "ptxas advisories in: ${failed}")
endif()
