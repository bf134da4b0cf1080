# ctest script: `cmake --install` of the build tree into a fresh prefix lays out bin/kiln,
# <libdir>/kiln/plugins/*.so (every in-tree plugin built), include/kiln/, share/kiln/configs/ and the KilnSDK package;
# the installed kiln finds its plugins and its pipelines there.
#   cmake -DBUILD_DIR=... -DPLUGIN_INSTALL_DIR=lib/kiln/plugins -DBUILD_PLUGIN_DIR=... -DMODEL=... -P this
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR PLUGIN_INSTALL_DIR BUILD_PLUGIN_DIR MODEL)
  if(NOT ${var})
    message(FATAL_ERROR "install_layout.cmake: ${var} is not set")
  endif()
endforeach()
# Outside the build tree, so that the installed kiln sees only what was installed.
string(RANDOM LENGTH 8 suffix)
set(prefix /tmp/kiln_install_layout_${suffix})
file(REMOVE_RECURSE ${prefix})

execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE_RECURSE ${prefix})
  message(FATAL_ERROR "cmake --install failed (is everything built?):\n${out}${err}")
endif()

set(problems "")
foreach(f bin/kiln include/kiln/kiln_plugin.h include/kiln/kiln_plugin_host_api.h include/kiln/kiln_plugin.hpp share/kiln/configs/pipelines/O0.yaml
          share/kiln/configs/pipelines/O2.yaml)
  if(NOT EXISTS ${prefix}/${f})
    string(APPEND problems "missing ${f}\n")
  endif()
endforeach()
file(GLOB_RECURSE package ${prefix}/*/KilnSDKConfig.cmake)
if(NOT package)
  string(APPEND problems "missing the KilnSDK package (KilnSDKConfig.cmake)\n")
endif()
file(GLOB built RELATIVE ${BUILD_PLUGIN_DIR} ${BUILD_PLUGIN_DIR}/lib*.so)
foreach(so ${built})
  if(NOT EXISTS ${prefix}/${PLUGIN_INSTALL_DIR}/${so})
    string(APPEND problems "in-tree plugin ${so} is not installed to ${PLUGIN_INSTALL_DIR}\n")
  endif()
endforeach()

# The installed kiln lists the installed plugins, from the install directory.
execute_process(COMMAND ${prefix}/bin/kiln plugins --json RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND problems "installed kiln plugins: exit ${rc}\n${out}${err}\n")
else()
  foreach(so ${built})
    if(NOT out MATCHES "${prefix}/${PLUGIN_INSTALL_DIR}/${so}")
      string(APPEND problems "the installed kiln does not list ${so} from its install directory:\n${out}\n")
    endif()
  endforeach()
endif()
# ... and compiles with its installed pipelines.
execute_process(COMMAND ${prefix}/bin/kiln compile ${MODEL} -o ${prefix}/out.onnx --oo.level=O0
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND problems "installed kiln compile --oo.level=O0: exit ${rc}\n${out}${err}\n")
endif()

file(REMOVE_RECURSE ${prefix})
if(problems)
  message(FATAL_ERROR "install layout:\n${problems}")
endif()
message(STATUS "install layout ok (${built})")
