#include "exploration/DporWork.h"

namespace ctrl {

proto::DporWorkItem encode_work_item(const DporStrategy::WorkItem& item, uint64_t id, uint64_t parent_id) {
  proto::DporWorkItem m;
  m.set_id(id);
  m.set_parent_id(parent_id);
  for (uint32_t t : item.prefix) m.add_prefix(t);
  m.set_thread(item.thread);
  m.set_sleep_mask(item.sleep_mask);
  for (const auto& [t, a] : item.sleepers) {
    auto* s = m.add_sleepers();
    s->set_thread(t);
    s->set_write_addr(a.write_addr);
    s->set_write_size(a.write_size);
    s->set_read_addr(a.read_addr);
    s->set_read_size(a.read_size);
    s->set_read2_addr(a.read2_addr);
    s->set_read2_size(a.read2_size);
    s->set_object(a.object);
    s->set_object2(a.object2);
    s->set_everything(a.everything != 0);
  }
  return m;
}

DporStrategy::WorkItem decode_work_item(const proto::DporWorkItem& m) {
  DporStrategy::WorkItem item;
  item.prefix.assign(m.prefix().begin(), m.prefix().end());
  item.thread = m.thread();
  item.sleep_mask = m.sleep_mask();
  for (const auto& s : m.sleepers())
    item.sleepers.emplace_back(
        s.thread(), shm::SleeperAccess{s.write_addr(), s.write_size(), s.read_addr(), s.read_size(), s.read2_addr(),
                                       s.read2_size(), s.object(), s.object2(), s.everything() ? 1u : 0u});
  return item;
}

proto::DporRequest encode_request(const DporStrategy::Request& r, uint64_t owner_id) {
  proto::DporRequest m;
  m.set_owner_id(owner_id);
  m.set_state(r.state);
  m.set_initials(r.initials);
  m.set_thread(r.thread);
  return m;
}

DporStrategy::Request decode_request(const proto::DporRequest& m) {
  return DporStrategy::Request{m.state(), m.initials(), m.thread()};
}

}  // namespace ctrl
