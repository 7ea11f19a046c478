// The descriptors the agent holds inside the target (the control channel
// above all): the program must neither close nor replace them, or ctrl
// loses the execution.
//
// Policy: to the program, an agent descriptor is not open. close() and
// fcntl() on one fail with EBADF, closefrom()/close_range() close
// everything else in their range, and dup2()/dup3() onto one first move
// the agent's descriptor to another number (the slot that holds it is
// updated), then do what the program asked. So a program that closes every
// descriptor before its threads start (daemons, shells' children) keeps
// working, and sees the results it would see if ctrl were not there.
#pragma once

namespace ctrl::agent {

// The agent holds the descriptor in *slot (-1: none) from now on.
void hold_descriptor(int* slot);
// The agent holds the descriptors of an array from now on: *count slots,
// `stride` bytes apart, from `first` (each -1: none). One such array (the
// runner's copies of the program's descriptors, Rollback.cpp).
void hold_descriptors(int* first, unsigned stride, const int* count);
// Whether the agent holds `fd` (whoever asks).
bool holds_descriptor(int fd);
// Whether `fd` is one of the agent's, for a call the program makes.
bool agent_descriptor(int fd);
// Moves the agent's descriptor `fd` out of the program's way (dup2 onto
// it); false when it cannot (no free descriptor).
bool move_agent_descriptor(int fd);
// close_range(first, last, flags) around the agent's descriptors.
int close_range_around_agent(unsigned first, unsigned last, int flags);
// The raw close/close_range/dup2/dup3 system calls through libc's syscall():
// true when handled (result in *result).
bool descriptor_syscall(long number, const long* args, long* result);

}  // namespace ctrl::agent
