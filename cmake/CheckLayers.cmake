# The include rules of ARCHITECTURE.md, checked on the sources (run by the test `mskb_layers_test`):
#   cmake -DROOT=<source dir> -P cmake/CheckLayers.cmake
# Each folder may include the project headers of the layers listed for it and nothing else
# (a lower layer never includes a higher one); host-only code never includes CUDA headers.
# Prints one line per violation (file:line: what) and fails when there is any.
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P CheckLayers.cmake")
endif()

# folders (relative to ROOT, |-separated) = the project header prefixes they may include (,-separated)
set(rules
  "include/mskb/util|src/mskb/util=mskb/util/"
  "include/mskb/core|src/mskb/core|tasks=mskb/util/,mskb/core/"
  "include/mskb/harness|src/mskb/harness=mskb/util/,mskb/core/,mskb/harness/"
  "include/mskb/report|src/mskb/report=mskb/util/,mskb/core/,mskb/harness/,mskb/report/"
  "include/mskb/gpu|src/mskb/gpu=mskb/util/,mskb/core/,mskb/harness/,mskb/gpu/"
  "src/mskb_cli|include/mskb/cli.hpp=mskb/util/,mskb/core/,mskb/harness/,mskb/report/,mskb/cli"
  "include/cudamaster/llm|src/cudamaster/llm=cudamaster/llm/"
  "include/cudamaster/store|src/cudamaster/store=mskb/util/,cudamaster/store/"
  "include/cudamaster/exec|src/cudamaster/exec=mskb/util/,mskb/core/,mskb/harness/,cudamaster/exec/"
  "include/cudamaster/profile|src/cudamaster/profile=mskb/util/,mskb/core/,mskb/harness/,cudamaster/profile/"
  "include/cudamaster/agents|src/cudamaster/agents=mskb/util/,mskb/core/,mskb/harness/,cudamaster/llm/,cudamaster/agents/"
  "include/cudamaster/loop|src/cudamaster/loop=mskb/util/,mskb/core/,mskb/harness/,mskb/report/,cudamaster/llm/,cudamaster/agents/,cudamaster/store/,cudamaster/exec/,cudamaster/profile/,cudamaster/loop/"
  "src/cudamaster/commands|src/cudamaster/cli.cpp|include/cudamaster/cli.hpp=mskb/util/,mskb/core/,mskb/harness/,mskb/report/,cudamaster/")

set(violations 0)
foreach(rule IN LISTS rules)
  string(REPLACE "=" ";" parts "${rule}")
  list(GET parts 0 folders)
  list(GET parts 1 allowed)
  string(REPLACE "|" ";" folders "${folders}")
  string(REPLACE "," ";" allowed "${allowed}")
  foreach(folder IN LISTS folders)
    if(IS_DIRECTORY "${ROOT}/${folder}")
      file(GLOB_RECURSE files "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cuh" "${ROOT}/${folder}/*.cu")
    else()
      set(files "${ROOT}/${folder}")
    endif()
    foreach(f IN LISTS files)
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      # tasks/: the host-only specs, tests and common headers are core's; kernels are contenders'
      # code and reference.cu / common .cuh the GPU references (compiled into mskb::gpu).
      if(folder STREQUAL "tasks" AND NOT rel MATCHES "\\.(cpp|hpp)$")
        continue()
      endif()
      file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
      set(host_only TRUE)
      if(f MATCHES "\\.(cu|cuh)$")
        set(host_only FALSE)
      endif()
      foreach(line IN LISTS lines)
        if(line MATCHES "#[ \t]*include[ \t]*\"((mskb|cudamaster)/[^\"]*)\"")
          set(inc "${CMAKE_MATCH_1}")
          set(ok FALSE)
          foreach(prefix IN LISTS allowed)
            string(LENGTH "${prefix}" n)
            string(SUBSTRING "${inc}" 0 ${n} head)
            if(head STREQUAL prefix)
              set(ok TRUE)
            endif()
          endforeach()
          if(NOT ok)
            message("${rel}: includes ${inc} (${folder} may include: ${allowed})")
            math(EXPR violations "${violations} + 1")
          endif()
        elseif(host_only AND line MATCHES "#[ \t]*include[ \t]*[<\"](cuda[a-z_0-9]*\\.h|cu(blas|sparse|dnn|fft|rand)[a-zA-Z_0-9]*\\.h|cub/[^>\"]*)[>\"]")
          message("${rel}: host-only code includes the CUDA header ${CMAKE_MATCH_1}")
          math(EXPR violations "${violations} + 1")
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include rule violation(s) (ARCHITECTURE.md)")
endif()
message("include rules hold")
