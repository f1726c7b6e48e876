# The test `mskb_layers_test`: cmake/CheckLayers.cmake finds a relative include out of its folder and
# an include loop on a fixture tree (tests/fixtures/layers), then holds on the sources.
#   cmake -DROOT=<source dir> -P cmake/CheckLayersTest.cmake
cmake_minimum_required(VERSION 3.24)
set(fixture "${ROOT}/tests/fixtures/layers")
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${fixture} -P ${CMAKE_CURRENT_LIST_DIR}/CheckLayers.cmake
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(out "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "CheckLayers.cmake passed the fixture, which breaks two rules:\n${out}")
endif()
foreach(expected
    "src/mskb/core/c.cpp: includes \"../../../kernels/include/abi.h\" by a relative path, out of src/mskb/core"
    "include loop: mskb/core/a -> mskb/core/b -> mskb/core/a")
  string(FIND "${out}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "CheckLayers.cmake did not report '${expected}' on the fixture:\n${out}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${ROOT} -P ${CMAKE_CURRENT_LIST_DIR}/CheckLayers.cmake RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the include rules do not hold (above)")
endif()
