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
