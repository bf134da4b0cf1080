# ctest script: installs the SDK (component kiln_sdk only) into a fresh prefix, then configures and builds
# sdk/examples/cpu_target out of tree against that prefix alone, and checks that the plugin exports its entry and
# that the installed SDK carries kiln_plugin_target.hpp. Modelled on tests/sdk/hello_plugin_out_of_tree.cmake.
#   cmake -DBUILD_DIR=... -DEXAMPLE_DIR=... -DWORK_DIR=... -DGENERATOR=... [-DCXX_COMPILER=...] -P this
foreach(var BUILD_DIR EXAMPLE_DIR WORK_DIR GENERATOR)
  if(NOT ${var})
    message(FATAL_ERROR "cpu_target_out_of_tree.cmake: ${var} is not set")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

execute_process(
  COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component kiln_sdk
  COMMAND_ERROR_IS_FATAL ANY)
foreach(f include/kiln/kiln_plugin.h include/kiln/kiln_plugin.hpp include/kiln/kiln_plugin_target.hpp)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "the SDK install lacks ${f}")
  endif()
endforeach()

set(configure_args -S ${EXAMPLE_DIR} -B ${WORK_DIR}/build -G ${GENERATOR}
  -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_PREFIX_PATH=${prefix}
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF)
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()
execute_process(COMMAND ${CMAKE_COMMAND} ${configure_args} COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/build COMMAND_ERROR_IS_FATAL ANY)

set(plugin ${WORK_DIR}/build/libcpu_target.so)
if(NOT EXISTS ${plugin})
  message(FATAL_ERROR "the out-of-tree build made no ${plugin}")
endif()
find_program(NM nm)
if(NM)
  execute_process(COMMAND ${NM} -D --defined-only ${plugin} OUTPUT_VARIABLE symbols COMMAND_ERROR_IS_FATAL ANY)
  if(NOT symbols MATCHES "T kiln_plugin_entry")
    message(FATAL_ERROR "${plugin} does not export kiln_plugin_entry:\n${symbols}")
  endif()
endif()
message(STATUS "cpu_target built out of tree: ${plugin}")
