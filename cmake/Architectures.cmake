# GPU architectures (included by the root CMakeLists.txt before project(), which enables CUDA
# with whatever CMAKE_CUDA_ARCHITECTURES holds then). A user's -DCMAKE_CUDA_ARCHITECTURES=... or
# the CUDAARCHS environment variable always wins. Otherwise: "native" when nvidia-smi sees a GPU
# now, else a fixed list of real architectures (CUDA 13 supports nothing older than 7.5) plus PTX
# for the newest, so that the binaries also run (JIT-compiled) on GPUs newer than the list.
# The list is short on purpose, because every kernel is compiled once per entry: a cubin runs on
# every GPU of its major version with the same or a higher minor one, so sm_80 also serves 8.6
# (RTX 30, A10) and 8.9 (RTX 40, L4), and no kernel has a code path of its own for 8.6 or 8.9
# (the `__CUDA_ARCH__` checks are < 800 and >= 900). 7.5: T4, RTX 20; 8.0: A100; 9.0: H100, H200;
# newer GPUs JIT-compile the compute_90 PTX. A GPU visible at configure time gets its own (native).
# CUDA_TUTORIAL_DETECT_ARCHITECTURES=OFF (the ci preset of CMakePresets.json) skips the detection
# and builds the fallback list wherever it runs: the list is kept here only.
# Sets CUDA_TUTORIAL_ARCHITECTURES_REASON (why, for the status line printed after project()).
set(CUDA_TUTORIAL_FALLBACK_ARCHITECTURES "75-real;80-real;90"
    CACHE STRING "Architectures used when no GPU is visible at configure time")
option(CUDA_TUTORIAL_DETECT_ARCHITECTURES
       "Build for the visible GPU (native) when there is one; OFF: always the fallback list" ON)
# An earlier configure's automatic choice is remade when detection was switched off since.
set(_cuda_tutorial_automatic FALSE)
if(DEFINED CMAKE_CUDA_ARCHITECTURES AND DEFINED CUDA_TUTORIAL_AUTOMATIC_ARCHITECTURES
   AND CMAKE_CUDA_ARCHITECTURES STREQUAL CUDA_TUTORIAL_AUTOMATIC_ARCHITECTURES)
  set(_cuda_tutorial_automatic TRUE)
endif()
if(_cuda_tutorial_automatic AND (CUDA_TUTORIAL_DETECT_ARCHITECTURES OR
   CMAKE_CUDA_ARCHITECTURES STREQUAL CUDA_TUTORIAL_FALLBACK_ARCHITECTURES))
  set(CUDA_TUTORIAL_ARCHITECTURES_REASON
      "chosen automatically at the first configure; -DCMAKE_CUDA_ARCHITECTURES=... to change")
elseif(_cuda_tutorial_automatic OR
       (NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS}))
  set(_cuda_tutorial_gpu_visible FALSE)
  find_program(NVIDIA_SMI_EXECUTABLE nvidia-smi)
  if(CUDA_TUTORIAL_DETECT_ARCHITECTURES AND NVIDIA_SMI_EXECUTABLE)
    execute_process(
      COMMAND "${NVIDIA_SMI_EXECUTABLE}" --query-gpu=compute_cap --format=csv,noheader
      RESULT_VARIABLE _smi_result
      OUTPUT_VARIABLE _smi_output
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(_smi_result EQUAL 0 AND _smi_output MATCHES "^[0-9]+\\.[0-9]+")
      set(_cuda_tutorial_gpu_visible TRUE)
    endif()
  endif()
  if(_cuda_tutorial_gpu_visible)
    set(CMAKE_CUDA_ARCHITECTURES native CACHE STRING "CUDA architectures" FORCE)
    set(CUDA_TUTORIAL_ARCHITECTURES_REASON "a GPU is visible (compute capability ${_smi_output})")
  else()
    set(CMAKE_CUDA_ARCHITECTURES "${CUDA_TUTORIAL_FALLBACK_ARCHITECTURES}"
        CACHE STRING "CUDA architectures" FORCE)
    if(CUDA_TUTORIAL_DETECT_ARCHITECTURES)
      set(CUDA_TUTORIAL_ARCHITECTURES_REASON "no GPU visible at configure time")
    else()
      set(CUDA_TUTORIAL_ARCHITECTURES_REASON
          "the fallback list: CUDA_TUTORIAL_DETECT_ARCHITECTURES is OFF")
    endif()
  endif()
  set(CUDA_TUTORIAL_AUTOMATIC_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}" CACHE INTERNAL
      "What the automatic choice picked")
else()
  set(CUDA_TUTORIAL_ARCHITECTURES_REASON "chosen by the user")
endif()
