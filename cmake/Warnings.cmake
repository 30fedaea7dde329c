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

# One exception, for one file that holds no kernel of ours: CUB's DeviceHistogram sweep kernel for
# 16-bit samples, which chapters/05_histogram/stages/wide_cub_baseline.cu instantiates, spills
# 14 bytes on sm_90 (CUB's own tuning, CUDA 13.0; harmless for us: the spill report is there to
# catch our kernels'). ptxas warnings are turned off for that translation unit only. Deferred to
# the end of the top-level CMakeLists.txt, when chapters/05_histogram has been added.
cmake_language(DEFER CALL set_property
  SOURCE ${PROJECT_SOURCE_DIR}/chapters/05_histogram/stages/wide_cub_baseline.cu
  DIRECTORY ${PROJECT_SOURCE_DIR}/chapters/05_histogram
  APPEND PROPERTY COMPILE_OPTIONS -Xptxas=-w)
