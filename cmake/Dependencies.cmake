# Third-party dependencies. Each is declared once, with FetchContent_Declare(... URL ... URL_HASH
# ... FIND_PACKAGE_ARGS ...): FetchContent_MakeAvailable first calls find_package() (the system's
# packages: Debian/Ubuntu's libcli11-dev and libgtest-dev, which `make deps` installs), and only if
# that finds nothing downloads the pinned release and checks its SHA256.
#
# The hashes are those of GitHub's tarballs of the release tags, as package recipes publish them
# (CLI11 2.4.2: Homebrew's cli11 formula, Spack's and xmake-repo's cli11 packages; GoogleTest
# 1.14.0: the Bazel http_archive pins of many projects). A new release: change URL and SHA256.
#
# Neither installed nor downloadable (offline): left to itself, FetchContent's download step
# retries for a minute and a half, then prints its log and a CMake stack. So for a package that
# find_package() does not find, cuda_tutorial_dependency() downloads the tarball itself first
# (once, with timeouts) into the folder where FetchContent's download step looks (which then finds
# it, checks the hash and downloads nothing). If that fails, the package is added to
# CUDA_TUTORIAL_MISSING_DEPENDENCIES, and the root CMakeLists.txt stops with one line.
include(FetchContent)
set(CUDA_TUTORIAL_DOWNLOAD_DIR ${FETCHCONTENT_BASE_DIR}/downloads)
set(CUDA_TUTORIAL_MISSING_DEPENDENCIES)

# cuda_tutorial_dependency(<package> URL <url> SHA256 <hash> [FIND_PACKAGE_ARGS <args...>])
function(cuda_tutorial_dependency name)
  cmake_parse_arguments(ARG "" "URL;SHA256" "FIND_PACKAGE_ARGS" ${ARGN})
  get_filename_component(url_file ${ARG_URL} NAME)
  set(tarball_name ${name}-${url_file})
  FetchContent_Declare(${name}
    URL ${ARG_URL}
    URL_HASH SHA256=${ARG_SHA256}
    DOWNLOAD_NAME ${tarball_name}
    DOWNLOAD_DIR ${CUDA_TUTORIAL_DOWNLOAD_DIR}
    DOWNLOAD_EXTRACT_TIMESTAMP TRUE
    FIND_PACKAGE_ARGS ${ARG_FIND_PACKAGE_ARGS} QUIET)

  # Will FetchContent_MakeAvailable have to download? Not with the user's own source folder
  # (FETCHCONTENT_SOURCE_DIR_<NAME>) or FETCHCONTENT_FULLY_DISCONNECTED, nor when the
  # find_package() it calls first finds the package (asked here, the same call: it then finds
  # the same thing again at once).
  string(TOUPPER ${name} upper)
  set(download TRUE)
  if(NOT "${FETCHCONTENT_SOURCE_DIR_${upper}}" STREQUAL "" OR FETCHCONTENT_FULLY_DISCONNECTED)
    set(download FALSE)
  elseif(NOT FETCHCONTENT_TRY_FIND_PACKAGE_MODE STREQUAL "NEVER")
    find_package(${name} ${ARG_FIND_PACKAGE_ARGS} QUIET)
    if(${name}_FOUND)
      message(STATUS "${name}: found ${${name}_VERSION} (system)")
      set(download FALSE)
    endif()
  endif()
  set(tarball ${CUDA_TUTORIAL_DOWNLOAD_DIR}/${tarball_name})
  if(download AND NOT EXISTS ${tarball})
    message(STATUS "${name}: not found on the system, downloading ${ARG_URL}")
    file(DOWNLOAD ${ARG_URL} ${tarball}.part TIMEOUT 120 INACTIVITY_TIMEOUT 15 STATUS status)
    list(GET status 0 code)
    if(NOT code EQUAL 0)
      file(REMOVE ${tarball}.part)
      list(GET status 1 why)
      message(STATUS "${name}: not installed, and the download failed (${why})")
      set(CUDA_TUTORIAL_MISSING_DEPENDENCIES ${CUDA_TUTORIAL_MISSING_DEPENDENCIES} ${name}
          PARENT_SCOPE)
      return()
    endif()
    file(SHA256 ${tarball}.part actual)
    if(NOT actual STREQUAL ARG_SHA256)
      message(FATAL_ERROR "${ARG_URL}: SHA256 ${actual}, expected ${ARG_SHA256}")
    endif()
    file(RENAME ${tarball}.part ${tarball})
  endif()
  FetchContent_MakeAvailable(${name})
  if(download)
    message(STATUS "${name}: built from ${url_file} (downloaded to ${CUDA_TUTORIAL_DOWNLOAD_DIR})")
  endif()
endfunction()

cuda_tutorial_dependency(CLI11
  URL https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.4.2.tar.gz
  SHA256 f2d893a65c3b1324c50d4e682c0cdc021dd0477ae2c048544f39eed6654b699a
  FIND_PACKAGE_ARGS CONFIG)

if(CUDA_TUTORIAL_BUILD_TESTS)
  # find_package(GTest) is CMake's FindGTest: GoogleTest's own CMake package, else its libraries.
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  cuda_tutorial_dependency(GTest
    URL https://github.com/google/googletest/archive/refs/tags/v1.14.0.tar.gz
    SHA256 8ad598c73ad796e0d8280b082cebd82a630d73e73cd3c70057938a6501bba5d7)
  include(GoogleTest)
endif()
