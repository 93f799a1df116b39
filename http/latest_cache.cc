#include "http/latest_cache.h"

namespace edgemond::http {

std::shared_ptr<const std::string> LatestCache::Get(const Samples& samples,
                                                    const std::function<std::string()>& render) {
  {
    std::lock_guard lock(mu_);
    if (samples_ == samples && body_ != nullptr) return body_;
  }
  // Rendered outside the lock: requests for an older collection do not wait behind it.
  auto body = std::make_shared<const std::string>(render());
  std::lock_guard lock(mu_);
  samples_ = samples;
  body_ = body;
  return body;
}

}  // namespace edgemond::http
