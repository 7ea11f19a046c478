// A oneTBB program for the realworld suite: with at most two threads
// (tbb::global_control), parallel_for counts the letters of each line of a
// text file into per-line slots and parallel_reduce sums the letters and
// the words. The printed totals do not depend on the schedule.
// Usage: tbb_reduce FILE
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tbb_reduce FILE\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  tbb::global_control two(tbb::global_control::max_allowed_parallelism, 2);

  std::vector<uint64_t> letters(lines.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, lines.size(), 16), [&](const tbb::blocked_range<size_t>& r) {
    for (size_t i = r.begin(); i != r.end(); ++i)
      for (char c : lines[i]) letters[i] += c >= 'a' && c <= 'z';
  });
  uint64_t words = tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, lines.size(), 16), uint64_t(0),
      [&](const tbb::blocked_range<size_t>& r, uint64_t sum) {
        for (size_t i = r.begin(); i != r.end(); ++i) {
          bool in_word = false;
          for (char c : lines[i]) {
            bool letter = c != ' ';
            sum += letter && !in_word;
            in_word = letter;
          }
        }
        return sum;
      },
      [](uint64_t a, uint64_t b) { return a + b; });
  uint64_t total = 0;
  for (uint64_t n : letters) total += n;
  std::printf("lines %zu letters %llu words %llu\n", lines.size(), (unsigned long long)total,
              (unsigned long long)words);
  return 0;
}
