/* Loader test plugin: its entry refuses to load with an error status. */
#include <kiln/kiln_plugin.h>

KILN_PLUGIN_EXPORT KilnStatus* kiln_plugin_entry(const KilnHostApi* host, uint32_t host_abi_version,
                                                 const KilnPluginDescriptor** out_descriptor) {
  (void)host_abi_version;
  *out_descriptor = NULL;
  return host->status_create(KILN_STATUS_FAILED, "entry_error_plugin refuses to load (on purpose)");
}
