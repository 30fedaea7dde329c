// Stage 7: the size rule. Stage 5 wins where latency decides, stage 6 where bandwidth does; where
// the boundary lies depends on the GPUs and the link, so it is measured, not assumed: both
// algorithms are timed at 4 KiB to 4 MiB on these GPUs (once per set of GPUs, a few hundred
// milliseconds), and the rule sends a message to one-shot below the size from which two-shot is
// faster. The table's notes print the rule and the probes that decided it. In one process per
// GPU every rank must take the same decision, or the ranks would wait on flags no peer raises:
// the probe times are agreed on (their maximum over the ranks) before the rule is derived.
#include <map>
#include <mutex>

#include "stage_peer.hpp"

namespace multi_gpu {

SizeRule size_rule_for(PeerTeam& team) {
    static std::mutex mutex;
    static std::map<std::vector<int>, SizeRule> rules;
    std::vector<int> key{team.ranks()};
    for (int g = 0; g < team.local_gpus(); ++g) {
        key.push_back(team.device_of(g));
    }
    const std::lock_guard<std::mutex> lock(mutex);
    const auto found = rules.find(key);
    if (found != rules.end()) {
        return found->second;
    }
    cudatutorial::BenchmarkConfig config;
    config.warmup = 3;
    config.repetitions = 10;
    return rules[key] = measure_size_rule(team, config);
}

std::unique_ptr<TeamAllReducer> make_size_rule(PeerTeam& team,
                                               const std::vector<const float*>& send,
                                               const std::vector<float*>& recv, std::size_t n) {
    const SizeRule rule = size_rule_for(team);
    auto reducer = make_peer_all_reducer(team, size_rule_kernel(rule, n * sizeof(float)), send, recv, n);
    reducer->set_remark("stage 7's size rule, measured on these GPUs: " + rule.reason);
    return reducer;
}

}  // namespace multi_gpu
