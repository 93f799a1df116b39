// The journal MESSAGE_ID of each kind of alert event. Fixed forever: users filter on them
// (`journalctl MESSAGE_ID=f5cbbf0e5047484b8dfab5a5b6060be0`) and a message catalog may document
// them. Generated once as random 128-bit ids (as systemd's sd-messages.h ids are); never reuse
// one for another kind.

#ifndef EDGEMOND_ALERTS_MESSAGE_IDS_H_
#define EDGEMOND_ALERTS_MESSAGE_IDS_H_

#include <string_view>

namespace edgemond::alerts {

// An alert started firing.
inline constexpr std::string_view kAlertFiringMessageId = "f5cbbf0e5047484b8dfab5a5b6060be0";
// A firing alert resolved.
inline constexpr std::string_view kAlertResolvedMessageId = "e3d26590cb4641c083fa2fd75ce0d4e8";

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_MESSAGE_IDS_H_
