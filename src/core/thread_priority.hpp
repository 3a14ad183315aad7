#pragma once
// CPU priority of the calling thread, for threads whose delay costs nothing as long as they keep
// up (video decoders running ahead of their cameras): lowered, they leave a core to the threads
// whose delay is every frame's latency (compute workers, result writers) when the CPU is full.

namespace gp {

// Raises the calling thread's nice value by `steps` (at most to 19). Linux sets it per thread;
// best effort: returns false where it cannot (the thread keeps its priority).
bool lower_thread_priority(int steps);

// The calling thread's nice value (for tests and the report).
int thread_nice_value();

// CPU time (user + system) the calling thread has used, and the whole process, in seconds: a job
// reports where its CPU went (decoders, GPU workers, writers) beside what the process used.
double thread_cpu_seconds();
double process_cpu_seconds();

}  // namespace gp
