# SPDX-License-Identifier: Apache-2.0
# How every test is declared: one function, one hermetic environment.
# The openssl binary of the libcrypto we build against (its prefix/bin, as
# pkg_check_modules found and cached it) before any other on PATH, and
# that libcrypto at run time: a build against another OpenSSL
# (scripts/test.sh, build-ossl-*) tests that version's binary and
# library, never a mix.
find_program(OPENSSL_BIN openssl HINTS "${LIBCRYPTO_PREFIX}/bin"
             REQUIRED)

# The fixes proposed to OpenSSL (docs/upstream/*.patch) that the
# libcrypto under test was built with: scripts/openssl-build.sh lists
# them in its prefix's rdrand-patches ("sha256  name" a line).  The
# tests that record an OpenSSL bug expect it fixed where its patch is.
set(RDRAND_OPENSSL_PATCHES "")
if(EXISTS "${LIBCRYPTO_PREFIX}/rdrand-patches")
  file(STRINGS "${LIBCRYPTO_PREFIX}/rdrand-patches" rdrand_patch_lines)
  foreach(line ${rdrand_patch_lines})
    string(REGEX REPLACE "^[0-9a-f]+  " "" name "${line}")
    string(APPEND RDRAND_OPENSSL_PATCHES " ${name}")
  endforeach()
  string(STRIP "${RDRAND_OPENSSL_PATCHES}" RDRAND_OPENSSL_PATCHES)
endif()

# Every test runs hermetically: our modules, our conf/ files, no
# inherited RDRAND_SIM or OPENSSL_CONF from the caller's shell.
set(RDRAND_TEST_ENV
  "OPENSSL_MODULES=${PROJECT_BINARY_DIR}"
  "RDRAND_BUILD_DIR=${PROJECT_BINARY_DIR}"
  "RDRAND_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
  "OPENSSL_BIN=${OPENSSL_BIN}"
  "LD_LIBRARY_PATH=${LIBCRYPTO_LIBDIR}"
  "RDRAND_OPENSSL_VERSION=${LIBCRYPTO_VERSION}"
  "RDRAND_OPENSSL_PATCHES=${RDRAND_OPENSSL_PATCHES}"
  "OPENSSL_CONF=/dev/null"
  "RDRAND_SIM=")

# Uninstrumented programs (openssl, bash) that load an ASan-built module
# need the ASan runtime preloaded; their own leaks are not ours to report.
set(RDRAND_EXTERNAL_ENV "")
if(RDRAND_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE RDRAND_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(RDRAND_EXTERNAL_ENV "LD_PRELOAD=${RDRAND_LIBASAN}"
                          "ASAN_OPTIONS=detect_leaks=0")
endif()

# A hang is a failure with the test's name within minutes, not a run
# that CI's time limit kills (ctest's own default is 1500 s).  The
# longest tests take about 25 s uninstrumented on 2 busy cores
# (cli_test_check, lint); 300 s leaves room for ASan, valgrind and a
# loaded machine.  A test that needs more says so with TIMEOUT.
set(RDRAND_TEST_TIMEOUT 300 CACHE STRING
    "Seconds before ctest kills a test (a hang) unless it sets TIMEOUT")

# rdrand_add_test(NAME <name> COMMAND <cmd...> [LABELS <l...>] [ENV <k=v...>]
#                 [TIMEOUT <seconds>])
function(rdrand_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT" "COMMAND;LABELS;ENV" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT ${RDRAND_TEST_TIMEOUT})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND})
  set_tests_properties(${T_NAME} PROPERTIES
    ENVIRONMENT "${RDRAND_TEST_ENV};${T_ENV}"
    SKIP_RETURN_CODE 77
    TIMEOUT ${T_TIMEOUT}
    LABELS "${T_LABELS}")
endfunction()

