// A C11 litmus test: threads of straight-line atomic and non-atomic
// accesses and fences on shared locations, with constants only, as read
// from a description file (README.md gives the notation), and the results
// its header claims under each model.
//
// Invariants after parse_litmus(): threads are numbered 0..n-1 with n >= 1;
// each register is written by exactly one operation; every location an
// operation or INIT names is in `locations` (sorted by name); an operation's
// orders are ones C11 allows for its kind (no release load, no acquire
// store, a CAS failure order no stronger than its success order and not
// release); EXISTS names only registers an operation writes and locations.
#ifndef CTRL_C11LITMUS_C11LITMUS_H
#define CTRL_C11LITMUS_C11LITMUS_H

#include <climits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace c11litmus {

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Memory orders, weakest first; NA is a plain (non-atomic) access.
enum class Order { NA, Rlx, Acq, Rel, AcqRel, SC };

enum class OpKind { Load, Store, Cas, Xchg, FetchAdd, Fence };

// The value of a load from a location nobody initialised.
inline constexpr long kUndefined = LONG_MIN;

struct Op {
  OpKind kind = OpKind::Load;
  Order order = Order::Rlx;       // a CAS's success order
  Order fail_order = Order::Rlx;  // Cas only
  std::string reg;                // Load, Cas, Xchg, FetchAdd: gets the value read
  std::string loc;                // every kind but Fence
  long value = 0;                 // Store, Xchg: the value written; FetchAdd: the addend; Cas: the desired value
  long expected = 0;              // Cas only

  bool operator==(const Op&) const = default;
};

enum class Model { SC, RC11, C11 };
inline constexpr Model kModels[] = {Model::SC, Model::RC11, Model::C11};
const char* model_name(Model m);

// What the header claims for one model (absent fields: not claimed).
struct Claims {
  std::optional<long> executions;
  std::optional<std::set<std::string>> allowed;
  std::optional<bool> exists;  // EXPECT: the EXISTS condition is reachable
  std::optional<bool> race;
  std::optional<bool> uninit;
};

struct Test {
  std::string file;
  std::string name;
  std::vector<std::vector<Op>> threads;
  std::map<std::string, std::optional<long>> locations;  // initial value, nullopt: uninitialised
  std::vector<std::pair<std::string, long>> exists;      // register or location = value
  std::set<std::string> languages;                       // programs to generate: "c", "cpp"
  std::map<Model, Claims> claims;

  // The registers in the order their operations appear (thread 0 first).
  std::vector<std::string> registers() const;
  // What an outcome names: every register, then each location written by
  // two or more operations (the final value of any other location is the
  // same in every execution: its one store's, or its initial value).
  std::vector<std::string> outcome_names() const;
};

Test parse_litmus(const std::string& path, const std::string& text);
Test read_litmus(const std::string& path);

const char* order_name(Order o);
std::string to_string(const Op& op);
// "r0=1 r1=0 x=2": names and values in outcome_names() order; an
// undefined value is "?".
std::string format_outcome(const std::vector<std::string>& names, const std::vector<long>& values);

}  // namespace c11litmus

#endif
