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
# rdrand.so must land where the system's libcrypto looks for modules
# (CMakeLists.txt: CPACK_RDRAND_SYSTEM_MODULESDIR, from dpkg-architecture):
# a package built against a private OpenSSL would put it in that
# OpenSSL's modulesdir, install, depend on the system's libssl, and its
# module would never be found.  A relative RDRAND_MODULESDIR is under /usr.
if(NOT CPACK_RDRAND_SYSTEM_MODULESDIR)
  message(FATAL_ERROR "No .deb: the system libcrypto's modules directory "
    "is unknown, as dpkg-architecture was missing when the build was "
    "configured.  Install dpkg-dev (apt-get install dpkg-dev), configure "
    "the build again and run cpack again.")
endif()
get_filename_component(rdrand_modulesdir "${CPACK_RDRAND_MODULESDIR}"
  ABSOLUTE BASE_DIR "${CPACK_PACKAGING_INSTALL_PREFIX}") # also drops a last /
if(NOT rdrand_modulesdir STREQUAL CPACK_RDRAND_SYSTEM_MODULESDIR)
  message(FATAL_ERROR "No .deb: rdrand.so would be installed in "
    "${rdrand_modulesdir}, not in the system libcrypto's modules directory "
    "${CPACK_RDRAND_SYSTEM_MODULESDIR}, so the system's OpenSSL would "
    "never load it: this build is against another OpenSSL (found through "
    "PKG_CONFIG_PATH, its modules directory is its own), or "
    "RDRAND_MODULESDIR names another directory.  To make the .deb, "
    "build the package against the system's libssl-dev (apt-get install "
    "libssl-dev; configure without PKG_CONFIG_PATH), or configure with "
    "-DRDRAND_MODULESDIR=${CPACK_RDRAND_SYSTEM_MODULESDIR}, what "
    "`pkg-config --variable=modulesdir libcrypto` prints without "
    "PKG_CONFIG_PATH.")
endif()
