// LatestCache: the body of an unfiltered GET /api/v1/latest, rendered once per collection rather
// than once per request (a collection of the Orin fixture is ~250 samples and ~100 KB of JSON; a
// dashboard or a poller asks for it many times per tick).
//
// Thread safety: Get() may be called from any thread.

#ifndef EDGEMOND_HTTP_LATEST_CACHE_H_
#define EDGEMOND_HTTP_LATEST_CACHE_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/sample.h"

namespace edgemond::http {

class LatestCache final {
 public:
  using Samples = std::shared_ptr<const std::vector<Sample>>;

  // The body for `samples`: rendered by `render` unless `samples` is the collection rendered
  // last (the same published vector; the backend publishes a new one each tick).
  std::shared_ptr<const std::string> Get(const Samples& samples,
                                         const std::function<std::string()>& render);

 private:
  std::mutex mu_;
  Samples samples_;                          // Guarded by mu_; held, so its address is not reused.
  std::shared_ptr<const std::string> body_;  // Guarded by mu_.
};

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_LATEST_CACHE_H_
