// Custom-domain operator schemas from plugins, registered into ONNX's process-wide OpSchemaRegistry so that
// ONNX's checker and shape inference accept the custom ops. The registry outlives any plugin and cannot forget
// a schema, so each schema's inference function goes through a binding: while the plugin that registered it is
// loaded the binding calls the plugin's shape callback (through a KilnShapeContext over ONNX's
// InferenceContext); once it is unloaded the binding is inactive (outputs are left unknown) until the same schema
// is registered again by a later load.
#pragma once

#include <kiln/kiln_plugin.h>

#include <memory>
#include <mutex>
#include <string>

#include "plugin/host_api.h"

namespace kiln::plugin {

struct OpSchemaSpec {
  std::string domain, op_type, doc;
  int since_version = 1;
  int min_inputs = 0, max_inputs = -1;    // -1: unbounded
  int min_outputs = 1, max_outputs = -1;  // -1: unbounded
};

struct SchemaBinding {
  std::recursive_mutex mu;
  bool active = false;
  std::string plugin;  // who registered it, for messages and "shadowed by"
  KilnInferShapesFn infer = nullptr;
  void* user_data = nullptr;
  const HostServices* services = nullptr;
};

// The domain's version range in ONNX's registry covers 1..max_since (added, or widened when it is narrower).
// Throws PluginError when ONNX already knows the domain with a range that cannot be widened.
void EnsureDomainVersions(const std::string& domain, int max_since, const std::string& plugin);

// Registers the schema (or re-activates it when an unloaded plugin had registered it). Returns the binding to
// deactivate when the plugin unloads; null when an active registration of the same (domain, op, version)
// exists, whose plugin is then written to *kept_from. Throws PluginError when ONNX refuses the schema.
std::shared_ptr<SchemaBinding> BindOpSchema(const OpSchemaSpec& spec, const std::string& plugin,
                                            KilnInferShapesFn infer, void* user_data, const HostServices* services,
                                            std::string* kept_from);

// Stops calling into the plugin (before it is unloaded).
void Deactivate(SchemaBinding& binding);

}  // namespace kiln::plugin
