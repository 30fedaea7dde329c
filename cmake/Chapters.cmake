# The chapter list, chapters/chapters.txt ("<folder> <executable>" per line, in course order),
# read once for chapters/, tests/ and docs/. Sets:
#   CUDA_TUTORIAL_CHAPTER_FOLDERS      01_execution_model;02_divergence;...
#   CUDA_TUTORIAL_CHAPTER_EXECUTABLES  execution_model;divergence;...   (same order)
# The Makefile and scripts/ read the same file.
set(CUDA_TUTORIAL_CHAPTER_LIST ${PROJECT_SOURCE_DIR}/chapters/chapters.txt)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CUDA_TUTORIAL_CHAPTER_LIST})
file(STRINGS ${CUDA_TUTORIAL_CHAPTER_LIST} _chapter_lines)
set(CUDA_TUTORIAL_CHAPTER_FOLDERS)
set(CUDA_TUTORIAL_CHAPTER_EXECUTABLES)
foreach(_line IN LISTS _chapter_lines)
  if(_line MATCHES "^[ \t]*(#|$)")
    continue()
  endif()
  if(NOT _line MATCHES "^([0-9][0-9]_[A-Za-z0-9_]+)[ \t]+([A-Za-z0-9_]+)[ \t]*$")
    message(FATAL_ERROR "chapters/chapters.txt: '${_line}' is not '<NN_folder> <executable>'")
  endif()
  if(NOT EXISTS ${PROJECT_SOURCE_DIR}/chapters/${CMAKE_MATCH_1}/CMakeLists.txt)
    message(FATAL_ERROR "chapters/chapters.txt names ${CMAKE_MATCH_1}, which has no "
                        "chapters/${CMAKE_MATCH_1}/CMakeLists.txt")
  endif()
  list(APPEND CUDA_TUTORIAL_CHAPTER_FOLDERS ${CMAKE_MATCH_1})
  list(APPEND CUDA_TUTORIAL_CHAPTER_EXECUTABLES ${CMAKE_MATCH_2})
endforeach()

# A chapter folder that the list leaves out would silently not be built: say so.
file(GLOB _chapter_dirs LIST_DIRECTORIES true RELATIVE ${PROJECT_SOURCE_DIR}/chapters
     ${PROJECT_SOURCE_DIR}/chapters/[0-9][0-9]_*)
foreach(_dir IN LISTS _chapter_dirs)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/chapters/${_dir} AND
     NOT _dir IN_LIST CUDA_TUTORIAL_CHAPTER_FOLDERS)
    message(WARNING "chapters/${_dir} is not in chapters/chapters.txt, so it is not built")
  endif()
endforeach()
list(LENGTH CUDA_TUTORIAL_CHAPTER_FOLDERS _chapter_count)
message(STATUS "Chapters: ${_chapter_count} (chapters/chapters.txt)")
