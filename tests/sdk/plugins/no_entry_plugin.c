/* Loader test plugin: a shared library without kiln_plugin_entry (it exports a near miss instead). */
#include <kiln/kiln_plugin.h>

KILN_PLUGIN_VISIBILITY int kiln_plugin_main(void);

int kiln_plugin_main(void) { return 0; }
