# The include rules of ARCHITECTURE.md, checked on the sources (run by the test `mskb_layers_test`):
#   cmake -DROOT=<source dir> -P cmake/CheckLayers.cmake
# Each folder may include the project headers of the layers listed for it and nothing else
# (a lower layer never includes a higher one); host-only code never includes CUDA headers;
# a relative include ("../x.hpp") stays inside its own layer (another layer's header is included by
# its project path, mskb/<layer>/x.hpp); and the files of a layer include each other without
# loops: a module (x.hpp with its x.cpp, or one file alone) never reaches itself again through the
# headers it includes.
# Prints one line per violation (file:line: what) and fails when there is any.
cmake_minimum_required(VERSION 3.24)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P CheckLayers.cmake")
endif()

# folders (relative to ROOT, |-separated) = the project header prefixes they may include (,-separated)
set(rules
  "include/mskb/util|src/mskb/util=mskb/util/"
  "include/mskb/core|src/mskb/core|tasks=mskb/util/,mskb/core/"
  "include/mskb/protocol|src/mskb/protocol=mskb/util/,mskb/core/,mskb/protocol/"
  "include/mskb/harness|src/mskb/harness=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/"
  "include/mskb/report|src/mskb/report=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,mskb/report/"
  "include/mskb/gpu|src/mskb/gpu=mskb/util/,mskb/core/,mskb/protocol/,mskb/gpu/"
  "src/mskb_cli|include/mskb/cli.hpp=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,mskb/report/,mskb/cli"
  "include/cudamaster/llm|src/cudamaster/llm=cudamaster/llm/"
  "include/cudamaster/store|src/cudamaster/store=mskb/util/,cudamaster/store/"
  "include/cudamaster/exec|src/cudamaster/exec=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,cudamaster/exec/"
  "include/cudamaster/profile|src/cudamaster/profile=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,cudamaster/profile/"
  "include/cudamaster/agents|src/cudamaster/agents=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,cudamaster/llm/,cudamaster/agents/"
  "include/cudamaster/loop|src/cudamaster/loop=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,mskb/report/,cudamaster/llm/,cudamaster/agents/,cudamaster/store/,cudamaster/exec/,cudamaster/profile/,cudamaster/loop/"
  "src/cudamaster/commands|src/cudamaster/cli.cpp|include/cudamaster/cli.hpp=mskb/util/,mskb/core/,mskb/protocol/,mskb/harness/,mskb/report/,cudamaster/")

# Include loops that are known and owned by other work (issue 41, step 1: the suite split). Each entry
# is a loop's modules, sorted, space-separated. They are printed but not counted; delete an entry
# once its loop is gone (a stale entry is reported too, so the list cannot rot).
set(known_loops)

set(violations 0)

# The module of a file: its path without include/ or src/ and without the extension, so that
# include/mskb/core/x.hpp and src/mskb/core/x.cpp are one module (mskb/core/x).
function(module_of rel out)
  string(REGEX REPLACE "^(include|src)/" "" m "${rel}")
  string(REGEX REPLACE "\\.[a-z]+$" "" m "${m}")
  set(${out} "${m}" PARENT_SCOPE)
endfunction()

# Whether `rel` (a path relative to ROOT) lies in one of `folders`.
function(in_folders rel folders out)
  set(r FALSE)
  foreach(folder IN LISTS folders)
    if(rel STREQUAL folder OR rel MATCHES "^${folder}/")
      set(r TRUE)
    endif()
  endforeach()
  set(${out} ${r} PARENT_SCOPE)
endfunction()

set(group 0)
foreach(rule IN LISTS rules)
  math(EXPR group "${group} + 1")
  string(REPLACE "=" ";" parts "${rule}")
  list(GET parts 0 folders)
  list(GET parts 1 allowed)
  string(REPLACE "|" ";" folders "${folders}")
  string(REPLACE "," ";" allowed "${allowed}")
  set(modules_${group} "")
  foreach(folder IN LISTS folders)
    if(IS_DIRECTORY "${ROOT}/${folder}")
      file(GLOB_RECURSE files "${ROOT}/${folder}/*.hpp" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.cuh" "${ROOT}/${folder}/*.cu")
    elseif(EXISTS "${ROOT}/${folder}")
      set(files "${ROOT}/${folder}")
    else()
      set(files "")  # a tree without it (the test's fixture)
    endif()
    foreach(f IN LISTS files)
      file(RELATIVE_PATH rel "${ROOT}" "${f}")
      # tasks/: the host-only specs, tests and common headers are core's; kernels are contenders'
      # code and reference.cu / common .cuh the GPU references (compiled into mskb::gpu).
      if(folder STREQUAL "tasks" AND NOT rel MATCHES "\\.(cpp|hpp)$")
        continue()
      endif()
      get_filename_component(dir "${f}" DIRECTORY)
      module_of("${rel}" mod)
      list(APPEND modules_${group} "${mod}")
      # A private header (in src/, no source of its own: binary_policy_internal.hpp) is part of the
      # files that include it: its includes count as theirs.
      if(rel MATCHES "^src/.*\\.(hpp|cuh)$")
        get_filename_component(stem "${f}" NAME_WE)
        if(NOT EXISTS "${dir}/${stem}.cpp" AND NOT EXISTS "${dir}/${stem}.cu")
          list(APPEND private_headers "${mod}")
        endif()
      endif()
      file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<]")
      set(host_only TRUE)
      if(f MATCHES "\\.(cu|cuh)$")
        set(host_only FALSE)
      endif()
      foreach(line IN LISTS lines)
        set(target "")  # the included file, relative to ROOT, when it is one of the project's
        if(line MATCHES "#[ \t]*include[ \t]*\"((mskb|cudamaster)/[^\"]*)\"")
          set(inc "${CMAKE_MATCH_1}")
          set(target "include/${inc}")
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
        elseif(line MATCHES "#[ \t]*include[ \t]*\"([^\"]*)\"")
          # A path relative to the including file: it must stay inside the file's own folder.
          set(inc "${CMAKE_MATCH_1}")
          get_filename_component(abs "${dir}/${inc}" ABSOLUTE)
          if(EXISTS "${abs}")
            file(RELATIVE_PATH target "${ROOT}" "${abs}")
            if(inc MATCHES "^\\.\\./")  # upwards: never out of its own folder (src/mskb/core, tasks, ...)
              in_folders("${target}" "${folder}" inside)
            else()
              in_folders("${target}" "${folders}" inside)
            endif()
            if(NOT inside)
              message("${rel}: includes \"${inc}\" by a relative path, out of ${folder} into ${target} "
                      "(include a layer's header by its project path, mskb/<layer>/...)")
              math(EXPR violations "${violations} + 1")
            endif()
          elseif(inc MATCHES "^\\.\\./")
            message("${rel}: includes \"${inc}\", a relative path to no file")
            math(EXPR violations "${violations} + 1")
          endif()
        elseif(host_only AND line MATCHES "#[ \t]*include[ \t]*[<\"](cuda[a-z_0-9]*\\.h|cu(blas|sparse|dnn|fft|rand)[a-zA-Z_0-9]*\\.h|cub/[^>\"]*)[>\"]")
          message("${rel}: host-only code includes the CUDA header ${CMAKE_MATCH_1}")
          math(EXPR violations "${violations} + 1")
        endif()
        # An edge of the module graph, when the included file is in this layer.
        if(target)
          in_folders("${target}" "${folders}" same)
          module_of("${target}" to)
          if(same AND NOT to STREQUAL mod)
            list(APPEND "deps.${mod}" "${to}")
            list(REMOVE_DUPLICATES "deps.${mod}")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES modules_${group})
endforeach()

# A private header named after its module (binary_policy_internal.hpp: declarations the
# binary_policy*.cpp files share) is a part of that module, not a module of its own.
foreach(g RANGE 1 ${group})
  foreach(p IN LISTS private_headers)
    if(NOT p IN_LIST modules_${g})
      continue()
    endif()
    set(owner "")
    foreach(m IN LISTS modules_${g})
      string(LENGTH "${m}" n)
      string(LENGTH "${owner}" o)
      string(SUBSTRING "${p}" 0 ${n} head)
      if(NOT m STREQUAL p AND head STREQUAL m AND n GREATER o)
        set(owner "${m}")
      endif()
    endforeach()
    if(NOT owner)
      continue()
    endif()
    list(APPEND "deps.${owner}" ${deps.${p}})
    list(REMOVE_ITEM modules_${g} "${p}")
    foreach(m IN LISTS modules_${g})
      list(TRANSFORM "deps.${m}" REPLACE "^${p}$" "${owner}")
      list(REMOVE_DUPLICATES "deps.${m}")
      list(REMOVE_ITEM "deps.${m}" "${m}")
    endforeach()
  endforeach()
endforeach()

# Include loops: for every module, a breadth-first search along its includes; reaching the module
# again is a loop, printed once (by its members) with the path that closes it.
set(loops_seen "")
foreach(g RANGE 1 ${group})
  foreach(start IN LISTS modules_${g})
    set(queue "${start}")
    set(visited "")
    set(found FALSE)
    while(queue AND NOT found)
      list(POP_FRONT queue m)
      foreach(next IN LISTS "deps.${m}")
        if(next STREQUAL start)
          set(found TRUE)
          set(last "${m}")
          break()
        endif()
        if(NOT next IN_LIST visited)
          list(APPEND visited "${next}")
          set("parent.${start}.${next}" "${m}")
          list(APPEND queue "${next}")
        endif()
      endforeach()
    endwhile()
    if(NOT found)
      continue()
    endif()
    set(path "${start}")
    set(members "${start}")
    set(m "${last}")
    while(NOT m STREQUAL start)
      list(PREPEND path "${m}")
      list(APPEND members "${m}")
      set(m "${parent.${start}.${m}}")
    endwhile()
    list(PREPEND path "${start}")
    list(SORT members)
    string(REPLACE ";" " " key "${members}")
    if(key IN_LIST loops_seen)
      continue()
    endif()
    list(APPEND loops_seen "${key}")
    string(REPLACE ";" " -> " shown "${path}")
    if(key IN_LIST known_loops)
      message("known include loop (issue 41, not counted): ${shown}")
    else()
      message("include loop: ${shown} (a module's headers and sources may not reach it again)")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
foreach(key IN LISTS known_loops)
  if(NOT key IN_LIST loops_seen)
    message("known_loops lists '${key}', which is no longer a loop: delete the entry (cmake/CheckLayers.cmake)")
    math(EXPR violations "${violations} + 1")
  endif()
endforeach()

if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include rule violation(s) (ARCHITECTURE.md)")
endif()
message("include rules hold")
