// Partitioned DPOR's messages as protocol/dpor_work.proto encodes them
// (for a transport between machines), from and to the structures
// DporPartition passes on one machine. Lossless: decode(encode(x)) == x.
#pragma once

#include <cstdint>

#include "DporStrategy.h"
#include "dpor_work.pb.h"

namespace ctrl {

proto::DporWorkItem encode_work_item(const DporStrategy::WorkItem& item, uint64_t id, uint64_t parent_id);
DporStrategy::WorkItem decode_work_item(const proto::DporWorkItem& m);
proto::DporRequest encode_request(const DporStrategy::Request& r, uint64_t owner_id);
DporStrategy::Request decode_request(const proto::DporRequest& m);

}  // namespace ctrl
