// Loading, negotiating with and unloading plugins: see plugin_set.h.
#include "plugin/plugin_set.h"

#include "ir/buffer.h"
#include "plugin/plugin_loader.h"
#include "plugin/plugin_registration.h"
#include "plugin/plugin_schema.h"
#include "plugin/plugin_search.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::plugin {
namespace fs = std::filesystem;

LoadedPlugin::LoadedPlugin() = default;

LoadedPlugin::~LoadedPlugin() {
  for (auto& binding : schema_bindings) Deactivate(*binding);
  for (auto it = destroyers.rbegin(); it != destroyers.rend(); ++it) it->first(it->second);
  library.reset();
}

PluginSet::PluginSet(OptionRegistry& options, PassRegistry& passes, KernelRegistry& kernels)
    : options_(options), passes_(passes), kernels_(kernels) {
  RegisterBuiltinKernels(builtin_kernels_);
  services_.kernels = &kernels_;
  services_.builtin_kernels = &builtin_kernels_;
  services_.plugins = this;
}

PluginSet::~PluginSet() {
  // Computed constants call into the plugins that made them: they are made whole while the code is there (a
  // model may outlive its compiler, an API session's does).
  Buffer::SettleComputed(this);
  while (!plugins_.empty()) plugins_.pop_back();
}

const LoadedPlugin* PluginSet::Find(std::string_view name) const {
  for (const auto& p : plugins_)
    if (p->name == name) return p.get();
  return nullptr;
}

std::vector<std::shared_ptr<const PluginTarget>> PluginSet::Targets() const {
  std::vector<std::shared_ptr<const PluginTarget>> out;
  for (const auto& p : plugins_) out.insert(out.end(), p->targets.begin(), p->targets.end());
  return out;
}

std::vector<std::shared_ptr<const PluginTarget>> PluginSet::DescribedTargets() const {
  std::vector<std::shared_ptr<const PluginTarget>> out;
  for (const auto& p : plugins_)
    for (const auto& t : p->targets) {
      try {
        DescribeTarget(*t);
      } catch (const Error&) {  // kept in t->describe_error, which the listing shows
      }
      out.push_back(t);
    }
  return out;
}

std::shared_ptr<const PluginTarget> PluginSet::FindTarget(std::string_view name) const {
  for (const auto& p : plugins_)
    for (const auto& t : p->targets)
      if (t->name == name) {
        DescribeTarget(*t);
        return t;
      }
  return nullptr;
}

std::vector<fs::path> PluginSet::SearchDirectories() const {
  std::vector<fs::path> dirs = plugin_dirs_;
  for (const fs::path& d : PluginPathDirectories()) dirs.push_back(d);
  for (const fs::path& d : InstalledPluginDirectories()) dirs.push_back(d);
  return dirs;
}

void PluginSet::LoadPath(const fs::path& path, const std::string& origin) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    plugin_dirs_.push_back(path);
    for (const fs::path& file : PluginFilesIn(path)) LoadFile(file, origin + " " + path.string());
    return;
  }
  LoadFile(path, origin);
}

void PluginSet::LoadPipelinePlugins(const std::vector<PluginRef>& refs) {
  for (const PluginRef& ref : refs) {
    std::string where = ref.pos.ToString();
    std::string origin = "pipeline " + where;
    if (IsPluginPath(ref.name)) {
      fs::path file = fs::path(ref.name).is_absolute() ? fs::path(ref.name)
                                                      : fs::path(ref.pos.file).parent_path() / ref.name;
      try {
        LoadFile(file.lexically_normal(), origin);
      } catch (const Error& e) {
        throw PluginError(where + ": " + e.what());
      }
      continue;
    }
    if (Find(ref.name)) continue;
    fs::path found;
    std::string looked;
    for (const fs::path& dir : SearchDirectories()) {
      looked += (looked.empty() ? "" : ", ") + dir.string();
      for (const std::string& name : PluginFileNames(ref.name)) {
        std::error_code ec;
        if (found.empty() && fs::is_regular_file(dir / name, ec)) found = dir / name;
      }
      if (!found.empty()) break;
    }
    std::vector<std::string> names = PluginFileNames(ref.name);
    if (found.empty())
      throw PluginError(where + ": plugin '" + ref.name + "' was not found: no " + names[0] + " or " + names[1] +
                        " in " + (looked.empty() ? std::string("any search directory") : looked) +
                        " (pass --plugin PATH or add its directory to KILN_PLUGIN_PATH)");
    try {
      LoadedPlugin* p = LoadFile(found, origin);
      if (p && p->name != ref.name)
        Logger("plugins")->warn("{}: plugin '{}' resolved to {}, which calls itself '{}'", where, ref.name,
                                found.string(), p->name);
    } catch (const Error& e) {
      throw PluginError(where + ": " + e.what());
    }
  }
}

void PluginSet::LoadSearchPath() {
  if (search_path_loaded_) return;
  search_path_loaded_ = true;
  auto scan = [&](const fs::path& dir, const std::string& origin) {
    for (const fs::path& file : PluginFilesIn(dir)) {
      try {
        LoadFile(file, origin);
      } catch (const Error& e) {
        Logger("plugins")->warn("{} (skipped)", e.what());
        skipped_.push_back({file.string(), origin, e.what()});
      }
    }
  };
  for (const fs::path& dir : PluginPathDirectories()) scan(dir, "KILN_PLUGIN_PATH " + dir.string());
  for (const fs::path& dir : InstalledPluginDirectories()) scan(dir, "install directory " + dir.string());
}

void PluginSet::Negotiate(LoadedPlugin& plugin, const KilnPluginDescriptor* d) {
  const std::string& file = plugin.file;
  if (d == nullptr) throw PluginError("plugin file " + file + ": its entry returned no descriptor");
  const size_t frozen = KILN_STRUCT_SIZE_UNTIL(KilnPluginDescriptor, version);
  if (d->struct_size < frozen)
    throw PluginError("plugin file " + file + ": its descriptor is " + std::to_string(d->struct_size) +
                      " bytes, too small to read (ABI 1.0's is " + std::to_string(KILN_PLUGIN_DESCRIPTOR_SIZE_1_0) + ")");
  plugin.name = d->name ? d->name : "";
  plugin.version = d->version ? d->version : "";
  plugin.abi_version = d->abi_version;
  std::string who = "plugin '" + plugin.name + "' (" + file + ")";
  if (plugin.name.empty()) throw PluginError("plugin file " + file + ": its descriptor has no name");
  if (KILN_ABI_VERSION_GET_MAJOR(d->abi_version) != KILN_ABI_VERSION_MAJOR)
    throw PluginError(who + " was built for Kiln ABI " + AbiVersionText(d->abi_version) + "; this host implements " +
                      AbiVersionText(KILN_ABI_VERSION));
  if (d->struct_size < KILN_PLUGIN_DESCRIPTOR_SIZE_1_0)
    throw PluginError(who + ": its descriptor is " + std::to_string(d->struct_size) +
                      " bytes, smaller than ABI 1.0's " + std::to_string(KILN_PLUGIN_DESCRIPTOR_SIZE_1_0) +
                      " bytes");
  uint32_t minor = std::min<uint32_t>(KILN_ABI_VERSION_GET_MINOR(d->abi_version), KILN_ABI_VERSION_MINOR);
  plugin.negotiated_version = KILN_MAKE_ABI_VERSION(KILN_ABI_VERSION_MAJOR, minor);
  if (KILN_STRUCT_HAS_FIELD(d, KilnPluginDescriptor, description) && d->description)
    plugin.description = d->description;
  if (!d->register_plugin) throw PluginError(who + ": its descriptor has no register_plugin");
}

LoadedPlugin* PluginSet::LoadFile(const fs::path& path, const std::string& origin) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw PluginError("plugin file " + path.string() + " does not exist");
  if (fs::is_directory(path, ec)) throw PluginError("plugin file " + path.string() + " is a directory");
  fs::path file = fs::weakly_canonical(fs::absolute(path, ec), ec);
  for (const auto& p : plugins_)
    if (p->file == file.string()) return p.get();  // named twice: loaded once

  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->file = file.string();
  plugin->origin = origin;
  plugin->library = PluginLibrary::Open(file);
  KilnPluginEntryFn entry = plugin->library->Entry();
  const KilnPluginDescriptor* descriptor = nullptr;
  KilnStatus* status;
  {
    CallFrame frame(&services_);
    try {
      status = entry(&HostApi(), KILN_ABI_VERSION, &descriptor);
    } catch (...) {
      status = MakeStatus(KILN_STATUS_INTERNAL, "an exception escaped kiln_plugin_entry");
    }
  }
  if (status) throw PluginError("plugin file " + file.string() + ": its entry refused to load: " + TakeStatusText(status));
  Negotiate(*plugin, descriptor);
  if (const LoadedPlugin* same = Find(plugin->name)) {
    std::string reason = "plugin name '" + plugin->name + "' is already loaded from " + same->file + " (first wins)";
    Logger("plugins")->warn("{}: {}; skipped", file.string(), reason);
    skipped_.push_back({file.string(), origin, reason});
    return nullptr;
  }
  std::string who = "plugin '" + plugin->name + "' (" + file.string() + ")";
  {
    PendingRegistration pending(*plugin, &services_);
    registrars_.push_back(std::make_unique<KilnRegistrar>());
    KilnRegistrar& registrar = *registrars_.back();
    registrar.pending = &pending;
    registrar.open = true;
    {
      CallFrame frame(&services_);
      try {
        status = descriptor->register_plugin(&HostApi(), &registrar);
      } catch (...) {
        status = MakeStatus(KILN_STATUS_INTERNAL, "an exception escaped register_plugin");
      }
    }
    registrar.open = false;
    registrar.pending = nullptr;
    if (status) throw PluginError(who + ": registration failed: " + TakeStatusText(status));
    try {
      pending.Commit({options_, passes_, kernels_, names_});
    } catch (const Error& e) {
      throw PluginError(who + ": " + e.what());
    }
  }
  for (const Registration& r : plugin->registrations)
    if (!r.shadowed_by.empty())
      Logger("plugins")->info("{}: {} {} is shadowed by {}'s (first wins)", who, KindName(r.kind), r.name,
                              r.shadowed_by);
  plugins_.push_back(std::move(plugin));
  return plugins_.back().get();
}

}  // namespace kiln::plugin
