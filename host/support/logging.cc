#include "support/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

namespace kiln {
namespace {

std::mutex g_mu;
spdlog::level::level_enum g_level = spdlog::level::warn;

}  // namespace

std::shared_ptr<spdlog::logger> Logger(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (auto l = spdlog::get(name)) return l;
  auto l = spdlog::stderr_color_mt(name);
  l->set_level(g_level);
  l->set_pattern("[%n] %^%l%$: %v");
  return l;
}

bool SetLogLevel(const std::string& level) {
  auto lv = spdlog::level::from_str(level);
  if (lv == spdlog::level::off && level != "off") return false;
  std::lock_guard<std::mutex> lock(g_mu);
  g_level = lv;
  spdlog::set_level(lv);
  spdlog::apply_all([lv](const std::shared_ptr<spdlog::logger>& l) { l->set_level(lv); });
  return true;
}

}  // namespace kiln
