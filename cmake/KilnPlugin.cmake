# kiln_add_inhost_plugin(<name> <source>...)
#
# An in-tree plugin (plugins/<folder>): a MODULE library built against Kiln::sdk alone (kiln_add_plugin: hidden
# visibility, --no-undefined, nothing of the host), named lib<name>.so, written to ${KILN_BUILD_PLUGIN_DIR} so that
# a kiln run from the build tree finds it, and installed to ${KILN_PLUGIN_INSTALL_DIR} (<prefix>/lib/kiln/plugins).
# A pipeline names it by what follows "kiln_": kiln_add_inhost_plugin(kiln_folding ...) is `plugins: [folding]`.
# The test kiln_plugins_link_only_the_sdk checks that every plugin built here needs no host library.
include_guard(GLOBAL)

function(kiln_add_inhost_plugin name)
  if(NOT COMMAND kiln_add_plugin)
    message(FATAL_ERROR "kiln_add_inhost_plugin(${name}): kiln_add_plugin is not defined (is sdk/ configured?)")
  endif()
  if(NOT ARGN)
    message(FATAL_ERROR "kiln_add_inhost_plugin(${name}): no source files")
  endif()
  kiln_add_plugin(${name} OUTPUT_DIRECTORY ${KILN_BUILD_PLUGIN_DIR} ${ARGN})
  install(TARGETS ${name} LIBRARY DESTINATION ${KILN_PLUGIN_INSTALL_DIR})
endfunction()
