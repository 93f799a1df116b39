#include "daemon/collector_health.h"

#include <string_view>

#include "collectors/builtin_collectors.h"

namespace edgemond::daemon {
namespace {

using collectors::CollectorHealth;
using collectors::CollectorState;

const CollectorState* StateOf(const std::vector<CollectorState>& states, std::string_view name) {
  for (const CollectorState& state : states) {
    if (state.collector == name) return &state;
  }
  return nullptr;
}

void AddTo(std::string& list, std::string_view name) {
  if (!list.empty()) list += ", ";
  list += name;
}

}  // namespace

std::string CollectorSummary(const std::vector<CollectorState>& states) {
  std::string ok, none, failing, pending, disabled;
  for (const std::string_view name : collectors::BuiltinCollectorNames()) {
    const CollectorState* state = StateOf(states, name);
    if (state == nullptr) {
      AddTo(disabled, name);
      continue;
    }
    switch (state->health) {
      case CollectorHealth::kOk:
        AddTo(ok, name);
        break;
      case CollectorHealth::kNoHardware:
        AddTo(none, name);
        break;
      case CollectorHealth::kFailing:
        AddTo(failing, name);
        break;
      case CollectorHealth::kPending:
        AddTo(pending, name);
        break;
    }
  }
  std::string text;
  const auto part = [&](const std::string& names, std::string_view what) {
    if (names.empty()) return;
    text += text.empty() ? "collectors: " : "; ";
    text += names;
    text += what;
  };
  part(ok, " read their hardware");
  part(none, " found none of theirs here");
  part(failing, " failing (see the warnings)");
  part(pending, " not run yet");
  if (!disabled.empty()) {
    text += text.empty() ? "collectors: " : "; ";
    text += "disabled: " + disabled;
  }
  return text;
}

std::string DescribeCollectorEvent(const collectors::CollectorEvent& event) {
  const std::string name = "collector " + event.collector;
  switch (event.to) {
    case CollectorHealth::kFailing:
      return name + " failed: " + event.error.ToString();
    case CollectorHealth::kOk:
      return name +
             (event.from == CollectorHealth::kFailing ? " recovered" : " found hardware to read");
    case CollectorHealth::kNoHardware:
      return name +
             (event.from == CollectorHealth::kFailing ? " recovered, but finds no hardware: "
                                                      : " lost its hardware: ") +
             std::string(event.error.message());
    case CollectorHealth::kPending:
      break;
  }
  return name;
}

nlohmann::json CollectorsToJson(const std::vector<CollectorState>& states) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string_view name : collectors::BuiltinCollectorNames()) {
    const CollectorState* state = StateOf(states, name);
    nlohmann::json entry = {{"collector", name}};
    if (state == nullptr) {
      entry["state"] = "disabled";
      entry["reason"] = nullptr;
    } else {
      entry["state"] = collectors::CollectorHealthName(state->health);
      entry["reason"] = state->last_error.ok() ? nlohmann::json(nullptr)
                                               : nlohmann::json(state->last_error.ToString());
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace edgemond::daemon
