# SPDX-License-Identifier: Apache-2.0
# rdrand_debian_release(OS_RELEASE_FILE OVERRIDE RELEASE CODENAME PROBLEM)
# The Debian release a .deb built here is for: OVERRIDE if set (a major
# release number), else VERSION_ID of OS_RELEASE_FILE when its ID is
# debian.  Sets RELEASE (12, 13, ...) and CODENAME (bookworm, trixie),
# or, where there is no Debian release to build for (another system,
# Debian testing or unstable, which have no VERSION_ID), PROBLEM: the
# sentence cpack fails with.  A malformed OVERRIDE is a configure error.
#
# Also a script, to test the reading on os-release files:
#   cmake -DOS_RELEASE=FILE [-DOVERRIDE=N] -P release.cmake
# prints "RELEASE CODENAME" or "problem: PROBLEM".
function(rdrand_debian_release os_release override out_release
         out_codename out_problem)
  # The codenames of the releases this project knows, for an OVERRIDE
  # that is not this machine's release.
  set(codenames 11=bullseye 12=bookworm 13=trixie 14=forky)
  set(ID "")
  set(VERSION_ID "")
  set(VERSION_CODENAME "")
  if(EXISTS "${os_release}")
    file(STRINGS "${os_release}" lines
         REGEX "^(ID|VERSION_ID|VERSION_CODENAME)=")
    foreach(line IN LISTS lines)
      if(line MATCHES "^([A-Z_]+)=[\"']?([^\"']*)[\"']?$")
        set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
      endif()
    endforeach()
  endif()
  set(problem "")
  set(codename "")
  if(NOT override STREQUAL "")
    if(NOT override MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "RDRAND_DEBIAN_RELEASE=${override}: a Debian "
        "major release number is expected (12 for bookworm, 13 for trixie)")
    endif()
    set(release "${override}")
  elseif(ID STREQUAL "debian" AND VERSION_ID MATCHES "^[1-9][0-9]*$")
    set(release "${VERSION_ID}")
  else()
    set(release "")
    string(CONCAT problem "${os_release}: ID=${ID} VERSION_ID=${VERSION_ID}, "
      "not a Debian release: a .deb is built for one release (its "
      "version and its Depends are that release's), so build it on "
      "Debian 12 or 13, or name the release with -DRDRAND_DEBIAN_RELEASE=N")
  endif()
  if(release)
    foreach(pair IN LISTS codenames)
      if(pair MATCHES "^${release}=(.*)$")
        set(codename "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    if(NOT codename AND ID STREQUAL "debian" AND VERSION_ID STREQUAL release)
      set(codename "${VERSION_CODENAME}")
    endif()
    if(NOT codename)
      string(CONCAT problem "no codename known for Debian ${release} (the "
        "changelog's distribution): add it to cmake/debian/release.cmake")
    endif()
  endif()
  set(${out_release} "${release}" PARENT_SCOPE)
  set(${out_codename} "${codename}" PARENT_SCOPE)
  set(${out_problem} "${problem}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  rdrand_debian_release("${OS_RELEASE}" "${OVERRIDE}" release codename
                        problem)
  if(problem)
    message("problem: ${problem}")
  else()
    message("${release} ${codename}")
  endif()
endif()
