// The tuning pass of stages 10-12 (b below): it times the candidates on the program's own input
// and hands its result to the Reducers; what they choose from it, or derive without it, is
// stages/vectorized_choice.hpp, whose opening comment tells the whole story.
#pragma once

#include <cstddef>

#include "cudatutorial/report.hpp"
#include "stages/vectorized_choice.hpp"

namespace reduction::adaptive {

/// (b) Times every candidate (stage 12's kernel: one launch, one atomic per block) on
/// d_in[0, tuning_size(n)) on the current device, `repetitions` runs each (median): the
/// persistent candidates at two occupancies, the one-shot ones with their one grid. Checks that
/// every candidate computes the same sum (throws std::runtime_error if not). Takes a few
/// milliseconds at 2^25-2^27. Keeps nothing: the caller passes the result on.
TuningResult tune_vectorized(const int* d_in, std::size_t n, int block, int repetitions = 7);

/// Writes what the tuning pass chose into the run's header, in this order: what stages 10-12
/// run (one line, or one for stages 10-11 and one for stage 12 when a one-shot candidate won),
/// why, and every candidate's time.
void describe_choice(const TuningResult& tuning, cudatutorial::RunInfo& header);

}  // namespace reduction::adaptive
