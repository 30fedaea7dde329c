# A chapter's stage list, collected from its stage files. Each file ends with its row: a function
# named after the file (stages/stage3_blelloch_padded.cu defines
# `<namespace>::stage3_blelloch_padded_row()`, which returns the chapter's row type), and the build
# writes the list that calls them, in the order the files are given. A new stage is one new file:
# the glob that finds the chapter's stage files finds it, and the list calls its row.
#
#   cudatutorial_stage_list(<target>
#     NAMESPACE <ns>        namespace of the row functions and of the list ("reduction::rows")
#     ROW_TYPE  <type>      what each row function returns ("reduction::StageInfo")
#     HEADER    <file>      the header that declares ROW_TYPE and the list, relative to the chapter
#     FILES     <files...>  the files that hold a row, in table order)
#
# The list is `const std::vector<ROW_TYPE>& <ns>::stage_list()`, each row's `source` set to its
# file relative to the chapter (the lesson links it; a test checks that it exists). Rows are
# collected by a generated file rather than by static self-registration, which the linker would
# drop from a static library.
function(cudatutorial_stage_list target)
  cmake_parse_arguments(arg "" "NAMESPACE;ROW_TYPE;HEADER" "FILES" ${ARGN})
  if(NOT arg_NAMESPACE OR NOT arg_ROW_TYPE OR NOT arg_HEADER OR NOT arg_FILES)
    message(FATAL_ERROR "cudatutorial_stage_list(${target}): NAMESPACE, ROW_TYPE, HEADER and "
                        "FILES are required")
  endif()
  set(declarations "")
  set(rows "")
  foreach(file IN LISTS arg_FILES)
    get_filename_component(stem ${file} NAME_WE)
    file(RELATIVE_PATH relative ${CMAKE_CURRENT_SOURCE_DIR} ${file})
    if(NOT stem MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
      message(FATAL_ERROR "${relative}: a stage file's name must make a C++ name (its row is "
                          "${stem}_row())")
    endif()
    string(APPEND declarations "${arg_ROW_TYPE} ${stem}_row();  // ${relative}\n")
    string(APPEND rows "        from(${stem}_row(), \"${relative}\"),\n")
  endforeach()
  set(output ${CMAKE_CURRENT_BINARY_DIR}/${target}_stage_list.cpp)
  set(CUDATUTORIAL_STAGE_LIST_HEADER ${arg_HEADER})
  set(CUDATUTORIAL_STAGE_LIST_NAMESPACE ${arg_NAMESPACE})
  set(CUDATUTORIAL_STAGE_LIST_ROW_TYPE ${arg_ROW_TYPE})
  set(CUDATUTORIAL_STAGE_LIST_DECLARATIONS "${declarations}")
  set(CUDATUTORIAL_STAGE_LIST_ROWS "${rows}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/stage_list.cpp.in ${output} @ONLY)
  target_sources(${target} PRIVATE ${output})
endfunction()
