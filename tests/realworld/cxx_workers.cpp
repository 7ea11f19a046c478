// A C++ program for the realworld suite: a producer (the main thread) hands
// lines of a text file to two std::thread workers through a bounded queue
// guarded by a std::mutex and two std::condition_variable; the workers sum
// per-letter counts into std::atomic counters. The printed totals do not
// depend on the schedule.
// Usage: cxx_workers FILE
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  void push(std::string item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return items_.size() < capacity_; });
    items_.push_back(std::move(item));
    not_empty_.notify_one();
  }

  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }

  // False once the queue is closed and empty.
  bool pop(std::string& item) {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return false;
    item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_full_, not_empty_;
  std::deque<std::string> items_;
  size_t capacity_;
  bool closed_ = false;
};

std::array<std::atomic<uint64_t>, 26> letters{};
std::atomic<uint64_t> line_count{0};
std::atomic<uint64_t> checksum{0};

void work(BoundedQueue& queue) {
  std::string chunk;
  while (queue.pop(chunk)) {
    std::array<uint64_t, 26> local{};
    uint64_t h = 1469598103934665603ull, lines = 0;
    for (unsigned char c : chunk) {
      if (c >= 'a' && c <= 'z') local[c - 'a']++;
      if (c == '\n') ++lines;
      h = (h ^ c) * 1099511628211ull;
    }
    for (int i = 0; i < 26; ++i) letters[i].fetch_add(local[i], std::memory_order_relaxed);
    line_count.fetch_add(lines, std::memory_order_relaxed);
    // Order-independent combination of the chunks' hashes.
    checksum.fetch_add(h, std::memory_order_relaxed);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cxx_workers FILE\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::perror(argv[1]);
    return 2;
  }
  // Chunks of 64 lines, read before the threads start: this program tests
  // the threads' synchronisation, the compressors test reading a file while
  // threads run.
  std::vector<std::string> chunks;
  std::string line, chunk;
  int in_chunk = 0;
  while (std::getline(in, line)) {
    chunk += line;
    chunk += '\n';
    if (++in_chunk == 64) {
      chunks.push_back(std::move(chunk));
      chunk.clear();
      in_chunk = 0;
    }
  }
  if (!chunk.empty()) chunks.push_back(std::move(chunk));

  BoundedQueue queue(4);
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) workers.emplace_back(work, std::ref(queue));
  for (auto& c : chunks) queue.push(std::move(c));
  queue.close();
  for (auto& t : workers) t.join();

  std::printf("lines: %llu, checksum: %016llx\n", (unsigned long long)line_count.load(),
              (unsigned long long)checksum.load());
  for (int i = 0; i < 26; ++i) std::printf("%c: %llu\n", 'a' + i, (unsigned long long)letters[i].load());
  return 0;
}
