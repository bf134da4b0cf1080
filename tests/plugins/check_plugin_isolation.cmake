# ctest script: the rule "a plugin includes only sdk/ headers and links nothing of the host", checked three ways.
#   1. No file under plugins/ includes a header of host/ (an include that names a file of host/ and not one of the
#      plugin's own).
#   2. No target under plugins/ links a host library or sees host/ among its include directories (usage
#      requirements included), as CMake computed them (TARGETS_FILE: "target|links|include dirs" lines).
#   3. No built in-tree plugin (PLUGIN_DIR/*.so) has a NEEDED entry naming a library of the host (Kiln's own, and
#      the ONNX, protobuf and spdlog libraries the host links: a plugin reaches them only through the ABI), and
#      none carries host code linked in statically (symbols of the host's IR and registries).
# With no in-tree plugins (none built, no sources), every check passes.
#   cmake -DSOURCE_DIR=... -DPLUGIN_DIR=... -DTARGETS_FILE=... [-DREADELF=...] -P this
cmake_minimum_required(VERSION 3.25)
foreach(var SOURCE_DIR PLUGIN_DIR TARGETS_FILE)
  if(NOT ${var})
    message(FATAL_ERROR "check_plugin_isolation.cmake: ${var} is not set")
  endif()
endforeach()
set(problems "")

# ---- 1. includes
file(GLOB_RECURSE sources ${SOURCE_DIR}/plugins/*.c ${SOURCE_DIR}/plugins/*.cc ${SOURCE_DIR}/plugins/*.cpp
     ${SOURCE_DIR}/plugins/*.h ${SOURCE_DIR}/plugins/*.hpp ${SOURCE_DIR}/plugins/*.inc)
list(LENGTH sources source_count)
foreach(src ${sources})
  file(RELATIVE_PATH rel ${SOURCE_DIR}/plugins ${src})
  string(REGEX MATCH "^[^/]+" plugin_name ${rel})
  get_filename_component(src_dir ${src} DIRECTORY)
  file(STRINGS ${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"][^>\"]+[>\"]")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*[<\"]([^>\"]+)[>\"].*" "\\1" inc "${line}")
    set(host_header FALSE)
    if(inc MATCHES "^host/" OR EXISTS ${SOURCE_DIR}/host/${inc})
      set(host_header TRUE)
    endif()
    # A header of the plugin's own with the same relative name is not the host's.
    if(host_header AND NOT inc MATCHES "^host/" AND
       (EXISTS ${src_dir}/${inc} OR EXISTS ${SOURCE_DIR}/plugins/${plugin_name}/${inc}))
      set(host_header FALSE)
    endif()
    if(host_header)
      string(APPEND problems "plugins/${rel} includes the host header \"${inc}\"\n")
    endif()
  endforeach()
endforeach()

# ---- 2. what CMake links and includes
set(target_count 0)
if(EXISTS ${TARGETS_FILE})
  file(STRINGS ${TARGETS_FILE} target_lines)
  foreach(line ${target_lines})
    string(REPLACE "|" ";" fields "${line}")
    list(GET fields 0 target)
    list(LENGTH fields n)
    set(links "")
    set(includes "")
    if(n GREATER 1)
      list(GET fields 1 links)
    endif()
    if(n GREATER 2)
      list(GET fields 2 includes)
    endif()
    math(EXPR target_count "${target_count} + 1")
    string(REPLACE "," ";" links "${links}")
    foreach(lib ${links})
      if(lib MATCHES "^(kiln_host|kiln_options|kiln_pipeline|onnx|onnx_proto|protobuf::|spdlog::)")
        string(APPEND problems "target ${target} links the host library ${lib}\n")
      endif()
    endforeach()
    string(REPLACE "," ";" includes "${includes}")
    foreach(dir ${includes})
      if(dir STREQUAL "${SOURCE_DIR}/host" OR dir MATCHES "^${SOURCE_DIR}/host/")
        string(APPEND problems "target ${target} has the host include directory ${dir}\n")
      endif()
    endforeach()
  endforeach()
endif()

# ---- 3. the built libraries
file(GLOB libraries ${PLUGIN_DIR}/*.so)
list(LENGTH libraries library_count)
if(libraries AND NOT READELF)
  string(APPEND problems "readelf is needed to check ${library_count} plugin libraries\n")
endif()
foreach(so ${libraries})
  if(NOT READELF)
    break()
  endif()
  execute_process(COMMAND ${READELF} -d --wide ${so} RESULT_VARIABLE rc OUTPUT_VARIABLE dynamic ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(APPEND problems "readelf -d ${so} failed: ${err}\n")
    continue()
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]+\\]" needed "${dynamic}")
  foreach(entry ${needed})
    string(REGEX REPLACE ".*\\[([^]]+)\\]" "\\1" lib "${entry}")
    if(lib MATCHES "^lib(kiln|onnx|protobuf|spdlog)")
      string(APPEND problems "${so} needs the host library ${lib}\n")
    endif()
  endforeach()
  execute_process(COMMAND ${READELF} -s --wide ${so} OUTPUT_VARIABLE symbols ERROR_VARIABLE err)
  string(REGEX MATCHALL "_ZN4kiln(5Graph|4Node|5Model|5Value|12PassRegistry|14KernelRegistry|14OptionRegistry|7Journal)[A-Za-z0-9_]*"
         host_symbols "${symbols}")
  if(host_symbols)
    list(GET host_symbols 0 first)
    string(APPEND problems "${so} contains host code (symbol ${first}): it links the host statically\n")
  endif()
endforeach()

if(problems)
  message(NOTICE "${problems}")  # unwrapped, one problem a line
  message(FATAL_ERROR "in-tree plugins must use the SDK alone (see the problems above)")
endif()
message(STATUS "plugins use only the SDK: ${source_count} source files, ${target_count} targets, "
               "${library_count} libraries checked")
