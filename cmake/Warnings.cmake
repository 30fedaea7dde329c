# One warning policy for every target: -Wall -Wextra on host code (g++ directly, and nvcc's host
# pass through -Xcompiler), plus nvcc's own checks and a ptxas report of register spills.
add_library(cuda_tutorial_warnings INTERFACE)
target_compile_options(cuda_tutorial_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --Wreorder -Xptxas=-warn-spills>)
option(CUDA_TUTORIAL_WERROR "Treat warnings as errors" OFF)
if(CUDA_TUTORIAL_WERROR)
  target_compile_options(cuda_tutorial_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Werror>)
endif()

# A chapter executable: sources, the common library, warnings, output in build/bin/.
function(cuda_tutorial_chapter name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE cudatutorial::common ${ARG_LIBRARIES})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
endfunction()
