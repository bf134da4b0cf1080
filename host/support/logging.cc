#include "support/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <mutex>

#include "support/display_text.h"

namespace kiln {
namespace {

std::mutex g_mu;

// Forwards to stderr with the message escaped (support/display_text.h): a model's names reach the log through
// passes and plugins, and must not put invalid UTF-8 or control characters on a terminal.
class EscapingSink final : public spdlog::sinks::sink {
 public:
  EscapingSink() : inner_(std::make_shared<spdlog::sinks::stderr_color_sink_mt>()) {}
  void log(const spdlog::details::log_msg& msg) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    if (IsDisplaySafe(payload)) return inner_->log(msg);
    std::string escaped = EscapeForDisplay(payload);
    spdlog::details::log_msg copy = msg;
    copy.payload = spdlog::string_view_t(escaped.data(), escaped.size());
    inner_->log(copy);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};
spdlog::level::level_enum g_level = spdlog::level::warn;

}  // namespace

std::shared_ptr<spdlog::logger> Logger(const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (auto l = spdlog::get(name)) return l;
  auto l = std::make_shared<spdlog::logger>(name, std::make_shared<EscapingSink>());
  spdlog::register_logger(l);
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
