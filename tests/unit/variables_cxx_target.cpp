// C++ variables for VariablePrinter_test: scoped names, base classes,
// std::atomic, references. Prints "0 0 0 0 0 0" (the C helper's line
// format, nothing to report) and stops itself with SIGSTOP.
#include <atomic>
#include <csignal>
#include <cstdio>

namespace geometry {
int inside = 3;
struct Point {
  int x, y;
  static int made;
};
int Point::made = 8;
}  // namespace geometry

struct Base {
  int b = 1;
};
struct Derived : Base {
  int d = 2;
};

std::atomic<int> atomic_int{5};
Derived derived;
int referenced = 9;
int& reference = referenced;
geometry::Point points[2] = {{1, 2}, {3, 4}};

void callback(int) {}
void (*callback_ptr)(int) = callback;

int main() {
  std::printf("0 0 0 0 0 0\n");
  std::fflush(stdout);
  std::raise(SIGSTOP);
  return geometry::inside + derived.d + reference - 14;
}
