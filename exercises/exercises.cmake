# Exercises (docs/exercises.md): compile a student's copy of one stage file in its place.
# Included at the end of chapters/CMakeLists.txt, once every chapter's targets exist.
#
#   cmake -S . -B build-exercise \
#     -DCUDA_TUTORIAL_EXERCISE_STAGE=chapters/03_reduction/stages/stage03_sequential_addressing.cu \
#     -DCUDA_TUTORIAL_EXERCISE_SOURCE=exercises/student/stage03_sequential_addressing.cu
#
# Every target of the chapters that lists the stage file (chapter 6 compiles its scenarios into
# two libraries: both) then compiles SOURCE instead, with the stage's folder on its include path
# so that the copy's #include "..." lines find what the original finds. Relative paths are taken
# from the repository root. scripts/exercise.py grade sets both variables (build_with() in
# scripts/exercising/building.py); an empty STAGE (the default) changes nothing.

# An exercise that is not a chapter's stage (exercises/<id>/CMakeLists.txt: the student's file
# and a program that checks it, such as multi-gpu-4's two-GPU harness) is added here, under the
# chapters, so that the replacement below finds its targets like any chapter's.
file(GLOB _exercise_folders ${PROJECT_SOURCE_DIR}/exercises/*/CMakeLists.txt)
foreach(_lists IN LISTS _exercise_folders)
  get_filename_component(_folder "${_lists}" DIRECTORY)
  get_filename_component(_name "${_folder}" NAME)
  add_subdirectory("${_folder}" "${PROJECT_BINARY_DIR}/exercises/${_name}")
endforeach()

set(CUDA_TUTORIAL_EXERCISE_STAGE "" CACHE STRING
    "Exercises: the stage file (relative to the repository root) to replace")
set(CUDA_TUTORIAL_EXERCISE_SOURCE "" CACHE STRING
    "Exercises: the file compiled instead of CUDA_TUTORIAL_EXERCISE_STAGE")

if(CUDA_TUTORIAL_EXERCISE_STAGE OR CUDA_TUTORIAL_EXERCISE_SOURCE)
  get_filename_component(_exercise_stage "${CUDA_TUTORIAL_EXERCISE_STAGE}" ABSOLUTE
                         BASE_DIR ${PROJECT_SOURCE_DIR})
  get_filename_component(_exercise_source "${CUDA_TUTORIAL_EXERCISE_SOURCE}" ABSOLUTE
                         BASE_DIR ${PROJECT_SOURCE_DIR})
  if(NOT CUDA_TUTORIAL_EXERCISE_STAGE OR NOT CUDA_TUTORIAL_EXERCISE_SOURCE)
    message(FATAL_ERROR "Exercises: set both CUDA_TUTORIAL_EXERCISE_STAGE and "
                        "CUDA_TUTORIAL_EXERCISE_SOURCE, or neither")
  endif()
  foreach(_file IN ITEMS "${_exercise_stage}" "${_exercise_source}")
    if(NOT EXISTS "${_file}" OR IS_DIRECTORY "${_file}")
      message(FATAL_ERROR "Exercises: no such file: ${_file}")
    endif()
  endforeach()
  get_filename_component(_exercise_stage_dir "${_exercise_stage}" DIRECTORY)
  set(_exercise_targets)
  get_directory_property(_exercise_dirs SUBDIRECTORIES)
  foreach(_dir IN LISTS _exercise_dirs)
    get_directory_property(_targets DIRECTORY "${_dir}" BUILDSYSTEM_TARGETS)
    foreach(_target IN LISTS _targets)
      get_target_property(_type ${_target} TYPE)
      if(_type STREQUAL "INTERFACE_LIBRARY" OR _type STREQUAL "UTILITY")
        continue()
      endif()
      get_target_property(_sources ${_target} SOURCES)
      get_target_property(_target_dir ${_target} SOURCE_DIR)
      set(_new_sources)
      set(_found FALSE)
      foreach(_src IN LISTS _sources)
        get_filename_component(_abs "${_src}" ABSOLUTE BASE_DIR "${_target_dir}")
        if(_abs STREQUAL _exercise_stage)
          list(APPEND _new_sources "${_exercise_source}")
          set(_found TRUE)
        else()
          list(APPEND _new_sources "${_src}")
        endif()
      endforeach()
      if(_found)
        set_property(TARGET ${_target} PROPERTY SOURCES ${_new_sources})
        target_include_directories(${_target} PRIVATE "${_exercise_stage_dir}")
        list(APPEND _exercise_targets ${_target})
      endif()
    endforeach()
  endforeach()
  if(NOT _exercise_targets)
    message(FATAL_ERROR "Exercises: no chapter target compiles ${_exercise_stage}")
  endif()
  list(JOIN _exercise_targets ", " _exercise_list)
  message(STATUS "Exercise: ${_exercise_source} compiled instead of ${_exercise_stage} "
                 "(in ${_exercise_list})")
endif()
