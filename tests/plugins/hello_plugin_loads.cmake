# ctest script, after kiln_sdk_hello_plugin_out_of_tree (fixture kiln_hello_plugin): the hello plugin built out
# of tree against the installed SDK alone loads into `kiln plugins --plugin`, and its pass runs in `kiln compile`
# (the sample model has one Identity, which HelloIdentityPass removes).
#   cmake -DKILN=... -DPLUGIN=... -DMODEL=... -DWORK_DIR=... -P this
cmake_minimum_required(VERSION 3.25)
foreach(var KILN PLUGIN MODEL WORK_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "hello_plugin_loads.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT EXISTS ${PLUGIN})
  message(FATAL_ERROR "${PLUGIN} does not exist: run kiln_sdk_hello_plugin_out_of_tree first")
endif()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})

execute_process(COMMAND ${KILN} plugins --plugin ${PLUGIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "hello 1\\.0\\.0  \\(ABI 1\\.[0-9]+\\)" OR NOT out MATCHES "HelloIdentityPass")
  message(FATAL_ERROR "kiln plugins --plugin ${PLUGIN}: exit ${rc}\n${out}${err}")
endif()

file(WRITE ${WORK_DIR}/hello.yaml "level: O0\nstages:\n  - name: Prepare\n    passes: [HelloIdentityPass]\n")
execute_process(COMMAND ${KILN} compile ${MODEL} -o ${WORK_DIR}/out.onnx --pipeline ${WORK_DIR}/hello.yaml
                        --plugin ${PLUGIN} --report ${WORK_DIR}/report.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kiln compile with HelloIdentityPass: exit ${rc}\n${out}${err}")
endif()
file(READ ${WORK_DIR}/report.json report)
string(JSON nodes_after GET "${report}" nodes_after)
if(NOT nodes_after EQUAL 14 OR NOT report MATCHES "\"identities_removed\": 1")
  message(FATAL_ERROR "HelloIdentityPass did not remove the sample's Identity (nodes_after ${nodes_after}):\n${report}")
endif()
message(STATUS "the out-of-tree hello plugin loads and its pass runs")
