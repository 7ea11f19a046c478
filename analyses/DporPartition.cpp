#include "DporPartition.h"

namespace ctrl {

DporPartition::DporPartition(Factory make, std::vector<uint32_t> fixed, size_t workers)
    : make_(std::move(make)), current_(workers, nullptr) {
  auto root = std::make_unique<Item>();
  root->id = next_id_++;
  root->strategy = make_();
  root->owns_from = fixed.size();
  root->strategy->set_fixed_prefix(std::move(fixed));
  items_.emplace(root->id, std::move(root));
}

bool DporPartition::done() const {
  std::lock_guard lock(mutex_);
  return items_.empty();
}

void DporPartition::release(size_t worker) {
  std::lock_guard lock(mutex_);
  if (Item* it = current_[worker]) {
    it->holder = -1;
    poke(*it);
  }
  current_[worker] = nullptr;
}

void DporPartition::adopt(size_t worker, uint64_t item) {
  std::lock_guard lock(mutex_);
  Item* it = items_.at(item).get();  // bound to its stopped worker: alive
  if (Item* mine = current_[worker]; mine && mine != it) {
    mine->holder = -1;
    poke(*mine);
  }
  if (it->holder >= 0) current_[size_t(it->holder)] = nullptr;
  it->holder = int(worker);
  current_[worker] = it;
}

bool DporPartition::explored() const {
  std::lock_guard lock(mutex_);
  for (const auto& [id, it] : items_) {
    std::lock_guard ilock(it->mutex);
    if (!it->strategy->explored()) return false;
  }
  return true;
}

uint64_t DporPartition::fairness_cuts() const {
  std::lock_guard lock(mutex_);
  uint64_t n = fairness_cuts_;
  for (const auto& [id, it] : items_) {
    std::lock_guard ilock(it->mutex);
    n += it->strategy->fairness_cuts();
  }
  return n;
}

DporPartition::Stats DporPartition::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

bool DporPartition::try_item(size_t worker, Item& it, Task& task) {
  DporStrategy::Turn turn;
  {
    std::lock_guard lock(it.mutex);
    turn = it.strategy->next_partitioned(task.plan, keep(it));
  }
  if (turn == DporStrategy::Turn::Plan) {
    task.item = it.id;
    task.first = !it.started;
    it.started = true;
    it.holder = int(worker);
    current_[worker] = &it;
    return true;
  }
  if (it.holder >= 0) current_[size_t(it.holder)] = nullptr;
  it.holder = -1;
  if (turn == DporStrategy::Turn::Done && it.stolen_roots.empty())
    finish(it);
  else
    it.stale = true;
  return false;
}

void DporPartition::finish(Item& it) {
  Item* parent = it.parent;
  uint64_t root = it.root;
  {
    std::lock_guard lock(it.mutex);
    fairness_cuts_ += it.strategy->fairness_cuts();
  }
  items_.erase(it.id);
  if (!parent) return;
  parent->stolen_roots.erase(parent->stolen_roots.find(root));
  poke(*parent);
}

DporPartition::Status DporPartition::next(size_t worker, Task& task) {
  std::lock_guard lock(mutex_);
  if (Item* it = current_[worker]; it && try_item(worker, *it, task)) return Status::Run;
  // A free item with work: the oldest first. (finish() may erase items
  // and wake older ones: start over after each.)
  for (bool again = true; again;) {
    again = false;
    for (auto& [id, it] : items_) {
      if (it->holder >= 0 || it->stale) continue;
      size_t before = items_.size();
      if (try_item(worker, *it, task)) return Status::Run;
      if (items_.size() != before) {
        again = true;
        break;
      }
    }
  }
  if (items_.empty()) return Status::Done;
  // Steal the oldest open branch of the oldest item that has one; an item
  // busy with its analysis is passed over.
  for (auto& [id, victim] : items_) {
    std::unique_lock vlock(victim->mutex, std::try_to_lock);
    if (!vlock.owns_lock()) continue;
    std::optional<DporStrategy::WorkItem> work = victim->strategy->steal();
    if (!work) continue;
    vlock.unlock();
    auto item = std::make_unique<Item>();
    item->id = next_id_++;
    item->strategy = make_();
    item->strategy->start_item(*work);
    item->parent = victim.get();
    item->root = work->prefix.size();
    item->owns_from = item->root + 1;
    victim->stolen_roots.insert(item->root);
    ++stats_.items;
    ++stats_.steals;
    Item& ref = *item;
    items_.emplace(ref.id, std::move(item));
    if (try_item(worker, ref, task)) return Status::Run;
  }
  return Status::Wait;
}

void DporPartition::completed(size_t /*worker*/, const Task& task, const ExecutionSummary& summary) {
  Item* it;
  {
    std::lock_guard lock(mutex_);
    it = items_.at(task.item).get();  // bound to this worker: alive
  }
  std::vector<DporStrategy::Request> requests;
  {
    std::lock_guard lock(it->mutex);
    it->strategy->completed(summary);
    requests = it->strategy->take_requests();
  }
  std::lock_guard lock(mutex_);
  poke(*it);
  if (task.first && it->parent && it->root < summary.steps) {
    std::lock_guard plock(it->parent->mutex);
    it->parent->strategy->record_stolen(it->root, summary.events[it->root]);
    poke(*it->parent);
  }
  for (const auto& r : requests) {
    Item* owner = it->parent;
    while (owner && r.state < owner->owns_from) owner = owner->parent;
    if (!owner) continue;  // above the exploration's fixed prefix
    ++stats_.requests;
    std::lock_guard olock(owner->mutex);
    if (owner->strategy->apply_request(r)) {
      ++stats_.opened;
      poke(*owner);
    }
  }
}

}  // namespace ctrl
