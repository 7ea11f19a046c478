#include "Operation.h"

namespace ctrl {

const char* op_name(OpKind k) {
  switch (k) {
#define CTRL_OP(name, value, text, props) \
  case OpKind::name:                      \
    return text;
#include "OpKinds.def"
#undef CTRL_OP
    case OpKind::Count: break;
  }
  return "?";
}

const char* rmw_name(RmwOp op) {
  switch (op) {
    case RmwOp::None: return "";
    case RmwOp::Xchg: return "xchg";
    case RmwOp::Add: return "add";
    case RmwOp::Sub: return "sub";
    case RmwOp::And: return "and";
    case RmwOp::Or: return "or";
    case RmwOp::Xor: return "xor";
    case RmwOp::Nand: return "nand";
  }
  return "?";
}

const char* order_name(MemOrder o) {
  switch (o) {
    case MemOrder::Relaxed: return "relaxed";
    case MemOrder::Consume: return "consume";
    case MemOrder::Acquire: return "acquire";
    case MemOrder::Release: return "release";
    case MemOrder::AcqRel: return "acq_rel";
    case MemOrder::SeqCst: return "seq_cst";
    case MemOrder::NotAtomic: return "plain";
  }
  return "?";
}

}  // namespace ctrl
