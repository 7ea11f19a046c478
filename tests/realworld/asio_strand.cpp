// A Boost.Asio program for the realworld suite: an io_context run by two
// threads; handlers posted through a strand append to a vector without a
// lock (the strand serialises them), plain posts add to an atomic sum, and
// a handler posts more work from within. The printed result does not
// depend on the schedule.
// Usage: asio_strand
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  boost::asio::io_context io;
  auto strand = boost::asio::make_strand(io);
  std::vector<int> order;
  std::atomic<long> sum{0};
  for (int i = 0; i < 8; ++i) {
    boost::asio::post(strand, [&, i] { order.push_back(i); });
    boost::asio::post(io, [&, i] {
      sum += i;
      boost::asio::post(strand, [&, i] { order.push_back(100 + i); });
    });
  }
  std::thread other([&] { io.run(); });
  io.run();
  other.join();
  long strand_sum = 0;
  for (int v : order) strand_sum += v;
  std::printf("strand handlers %zu sum %ld posts sum %ld\n", order.size(), strand_sum, sum.load());
  return 0;
}
