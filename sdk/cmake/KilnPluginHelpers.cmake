# kiln_add_plugin(<name> [OUTPUT_DIRECTORY <dir>] <source>...)
#
# Makes <name> a Kiln plugin: a MODULE library linked to Kiln::sdk (and nothing of the host), built with
# hidden visibility so that only kiln_plugin_entry is exported and the C++ wrapper's per-plugin state stays
# private, and linked with --no-undefined so a plugin that reaches for a host symbol fails to link instead of
# failing to load. C++ sources build as C++20 (the wrapper needs it) and, with GCC, without STB_GNU_UNIQUE
# symbols (-fno-gnu-unique), which would otherwise bind plugins' inline statics together and keep a plugin from
# ever unloading. OUTPUT_DIRECTORY sets where the .so lands.
include_guard(GLOBAL)

function(kiln_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OUTPUT_DIRECTORY" "")
  if(NOT arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kiln_add_plugin(${name}): no source files")
  endif()
  add_library(${name} MODULE ${arg_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE Kiln::sdk)
  get_property(_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(CXX IN_LIST _languages)
    target_compile_features(${name} PRIVATE cxx_std_20)
  endif()
  set_target_properties(${name} PROPERTIES
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${name} PRIVATE $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-fno-gnu-unique>)
  # Not in Kiln's sanitizer build (KILN_FUZZ): clang links the ASan/UBSan runtime into the executable only, so a
  # sanitized plugin's references to it are undefined until it is loaded.
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT KILN_FUZZ)
    target_link_options(${name} PRIVATE LINKER:--no-undefined)
  endif()
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY})
  endif()
endfunction()
