// A rank other than 0 of `ctrl attach --mpi`: the coordinator of `jobs`
// sessions of its own (HelperSession.h), which run the plans rank 0 hands
// it (RemoteRanks.h) and send back their results. It prints nothing: rank
// 0 writes the one report and the traces.
//
// Per exploration (Begin .. End): the sessions are made from rank 0's
// settings and must each repeat rank 0's first execution, or the rank says
// it takes no part (Returned with `failed`); the rank asks for work while
// it holds fewer plans than it has usable sessions, runs the oldest plan it
// holds on the next free session, and, asked to yield, gives back the newer
// half of the plans it has not started. At End its sessions are stopped
// (Tracer::kStopSignal) and joined, and it sends its account (Ended).
#pragma once

#include <string>

#include "parallel/RankChannel.h"

namespace ctrl {

// Serves rank 0 until it says Finish; `agent`: this machine's
// libctrl-agent.so. Returns ctrl's exit status (0).
int run_rank_worker(RankChannel& channel, unsigned jobs, const std::string& agent);

}  // namespace ctrl
