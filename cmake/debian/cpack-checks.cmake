# SPDX-License-Identifier: Apache-2.0
# Read by cpack before it packs (CPACK_PROJECT_CONFIG_FILE): what would
# otherwise give a wrong .deb fails here instead.  CPack's DEB generator
# builds a package with no Depends at all, after a one-line note, when
# dpkg-shlibdeps is missing; it needs `file` to find the binaries that
# dpkg-shlibdeps reads.  Both are looked up as CPack itself looks them
# up, into the variables it then uses, so the tools checked here are the
# tools it runs.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
if(CPACK_RDRAND_DEB_PROBLEM)
  message(FATAL_ERROR "No .deb: ${CPACK_RDRAND_DEB_PROBLEM}")
endif()
find_program(SHLIBDEPS_EXECUTABLE dpkg-shlibdeps)
if(NOT SHLIBDEPS_EXECUTABLE)
  message(FATAL_ERROR "No .deb: dpkg-shlibdeps is not installed, and "
    "without it the package would have no Depends (libc6, libssl3 or "
    "libssl3t64).  Install dpkg-dev (apt-get install dpkg-dev) and run "
    "cpack again.")
endif()
find_program(FILE_EXECUTABLE file)
if(NOT FILE_EXECUTABLE)
  message(FATAL_ERROR "No .deb: the file program is not installed, and "
    "CPack needs it to find the binaries whose Depends dpkg-shlibdeps "
    "computes.  Install file (apt-get install file) and run cpack again.")
endif()
