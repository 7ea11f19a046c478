// Which process becomes the fork server when the program forks before its
// first thread: the first of them (parent or child) to create a thread.
// The others run on without ctrl (their agent lets go of the channel), as
// the children of executions do.
//
// The claim is one word of shared memory mapped before the first such fork,
// so every process forked from the template sees it.
#pragma once

namespace ctrl::agent {

// Before a fork ahead of the checkpoint: maps the claim word (once). False
// when it cannot, and then the child must not keep the agent.
bool prepare_checkpoint_claim();
// At the first thread creation: true when this process is the fork server
// (no fork happened, or it claimed first).
bool claim_checkpoint();

// In the child of such a fork: this process is not the one ctrl launched.
void note_forked_child();
bool forked_child();

}  // namespace ctrl::agent
