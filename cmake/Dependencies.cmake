# Third-party dependencies: the system's packages first (Debian/Ubuntu: libgtest-dev, libcli11-dev),
# FetchContent pinned to a release as the fallback for users who are online.
include(FetchContent)

find_package(CLI11 CONFIG QUIET)
if(CLI11_FOUND)
  message(STATUS "CLI11: found ${CLI11_VERSION} (system)")
else()
  message(STATUS "CLI11: not found on the system, fetching v2.4.2")
  FetchContent_Declare(cli11
    URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz)
  FetchContent_MakeAvailable(cli11)
endif()

if(CUDA_TUTORIAL_BUILD_TESTS)
  find_package(GTest CONFIG QUIET)
  if(NOT GTest_FOUND)
    find_package(GTest QUIET)
  endif()
  if(GTest_FOUND)
    message(STATUS "GoogleTest: found ${GTest_VERSION} (system)")
  else()
    message(STATUS "GoogleTest: not found on the system, fetching v1.14.0")
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    FetchContent_Declare(googletest
      URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz)
    FetchContent_MakeAvailable(googletest)
  endif()
  include(GoogleTest)
endif()
