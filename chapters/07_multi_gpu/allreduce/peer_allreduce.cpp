// The host side of the peer-memory stages: the workspace layout, the launch shape, the driver
// that shares every rank's buffers and runs one part per local GPU, and the size rule.
#include "peer_allreduce.hpp"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/device_info.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

const char* peer_algorithm_name(PeerAlgorithm algorithm) {
    switch (algorithm) {
        case PeerAlgorithm::kOneShot: return "one-shot";
        case PeerAlgorithm::kOneShotSentinel: return "one-shot (sentinel)";
        case PeerAlgorithm::kTwoShot: return "two-shot";
    }
    return "?";
}

int staging_buffers(PeerAlgorithm algorithm) {
    switch (algorithm) {
        case PeerAlgorithm::kOneShot: return 2;
        case PeerAlgorithm::kOneShotSentinel: return 3;
        case PeerAlgorithm::kTwoShot: return 0;
    }
    return 0;
}

namespace {
std::size_t round_up(std::size_t value, std::size_t multiple) {
    return (value + multiple - 1) / multiple * multiple;
}
}  // namespace

PeerWorkspaceLayout peer_workspace_layout(PeerAlgorithm algorithm, int ranks,
                                          std::size_t capacity) {
    PeerWorkspaceLayout layout;
    layout.counters_offset = kFlagWords * sizeof(std::uint32_t);
    layout.staging_offset =
        round_up(layout.counters_offset + kMaxPeerBlocks * sizeof(std::uint32_t), 256);
    // Slots hold whole float4s, so that every slot starts 16-byte aligned.
    layout.capacity = staging_buffers(algorithm) > 0 ? round_up(capacity, 4) : 0;
    layout.bytes = layout.staging_offset + static_cast<std::size_t>(staging_buffers(algorithm)) *
                                               static_cast<std::size_t>(ranks) * layout.capacity *
                                               sizeof(float);
    return layout;
}

PeerLaunch peer_launch_shape(PeerAlgorithm algorithm, std::size_t n, int ranks,
                             unsigned resident_blocks, unsigned threads) {
    if (ranks < 1 || threads == 0) {
        throw std::invalid_argument("peer_launch_shape: need ranks >= 1 and threads >= 1");
    }
    // One-shot: every rank handles all n; two-shot: the largest chunk (chunk 0).
    const std::size_t floats =
        algorithm == PeerAlgorithm::kTwoShot ? split_range(n, ranks, 0, 4).size() : n;
    const std::size_t vectors = (floats + 3) / 4;
    const std::size_t wanted = (vectors + threads - 1) / threads;
    const std::size_t cap = std::min<std::size_t>(resident_blocks, kMaxPeerBlocks);
    PeerLaunch shape;
    shape.threads = threads;
    shape.blocks = static_cast<unsigned>(std::clamp<std::size_t>(wanted, 1, std::max<std::size_t>(cap, 1)));
    return shape;
}

// ---- The driver -------------------------------------------------------------------------------

PeerAllReduce::PeerAllReduce(PeerTeam& team, const PeerKernel& kernel,
                             const std::vector<const float*>& send,
                             const std::vector<float*>& recv, std::size_t capacity,
                             PeerLaunchMode mode)
    : team_(team), algorithm_(kernel.algorithm) {
    const PeerAlgorithm algorithm = kernel.algorithm;
    const int local = team.local_gpus();
    if (static_cast<int>(send.size()) != local || static_cast<int>(recv.size()) != local) {
        throw std::invalid_argument("PeerAllReduce: one send and one recv buffer per local GPU");
    }
    if (team.ranks() > kMaxPeerRanks) {
        throw ct::UsageError("the peer-memory stages take at most " +
                             std::to_string(kMaxPeerRanks) + " GPUs");
    }
    const PeerWorkspaceLayout layout = peer_workspace_layout(algorithm, team.ranks(), capacity);
    std::vector<void*> mine_send;
    std::vector<void*> mine_recv;
    std::vector<void*> mine_workspace;
    for (int g = 0; g < local; ++g) {
        const DeviceGuard guard(team.device_of(g));
        workspace_.emplace_back(layout.bytes);
        // Zero flags and counters: call numbers start at 1, so no flag reads as reached.
        workspace_.back().fill_bytes(0);
        prepare_peer_workspace(algorithm, workspace_.back().data(), layout, nullptr);
        mine_send.push_back(const_cast<float*>(send[g]));
        mine_recv.push_back(recv[g]);
        mine_workspace.push_back(workspace_.back().data());
    }
    for (int g = 0; g < local; ++g) {
        const DeviceGuard guard(team.device_of(g));
        CT_CHECK(cudaDeviceSynchronize());  // the zeroing is done before any peer can signal
    }
    const auto send_all = team.share(mine_send);
    const auto recv_all = team.share(mine_recv);
    const auto workspace_all = team.share(mine_workspace);
    shared_ = {send_all, recv_all, workspace_all};
    for (int g = 0; g < local; ++g) {
        const DeviceGuard guard(team.device_of(g));
        PeerView view;
        view.rank = team.rank_of(g);
        view.ranks = team.ranks();
        for (int p = 0; p < team.ranks(); ++p) {
            view.send.push_back(static_cast<const float*>(send_all->pointers()[g][p]));
            view.recv.push_back(static_cast<float*>(recv_all->pointers()[g][p]));
            view.workspace.push_back(workspace_all->pointers()[g][p]);
        }
        view.capacity = capacity;
        parts_.emplace_back(kernel, std::move(view), mode);
    }
}

void PeerAllReduce::run(std::size_t n) const {
    team_.fork();
    for (int g = 0; g < team_.local_gpus(); ++g) {
        const DeviceGuard guard(team_.device_of(g));
        parts_[g].run(n, team_.stream_of(g));
    }
    team_.join();
}

// ---- The size rule ----------------------------------------------------------------------------

std::vector<std::uint64_t> size_rule_probe_bytes() {
    std::vector<std::uint64_t> bytes;
    for (std::uint64_t b = 4096; b <= (std::uint64_t{4} << 20); b *= 4) {
        bytes.push_back(b);
    }
    return bytes;
}

namespace {
std::string microseconds(double ms) {
    return ct::format_fixed(ms * 1000, 1) + " us";
}
std::string probe_text(const SizeProbe& p) {
    return ct::format_bytes(static_cast<double>(p.bytes)) + ": one-shot " +
           microseconds(p.one_shot_ms) + ", two-shot " + microseconds(p.two_shot_ms);
}
}  // namespace

SizeRule size_rule_from_probes(const std::vector<SizeProbe>& probes) {
    SizeRule rule;
    // The boundary: the first probe from which two-shot wins at this and every larger probe.
    std::size_t from = probes.size();
    for (std::size_t i = probes.size(); i-- > 0;) {
        if (probes[i].two_shot_ms < probes[i].one_shot_ms) {
            from = i;
        } else {
            break;
        }
    }
    if (probes.empty()) {
        rule.two_shot_from = 0;
        rule.reason = "no probes: two-shot everywhere";
    } else if (from == probes.size()) {
        // Never beyond what was probed: one-shot's traffic and staging grow with G x n.
        rule.two_shot_from = 2 * probes.back().bytes;
        rule.reason = "one-shot up to the largest probe, where it was still faster (" +
                      probe_text(probes.back()) + "), two-shot from " +
                      ct::format_bytes(static_cast<double>(rule.two_shot_from));
    } else if (from == 0) {
        rule.two_shot_from = 0;
        rule.reason = "two-shot at every size: it was faster from the smallest probe, " +
                      probe_text(probes.front());
    } else {
        rule.two_shot_from = probes[from].bytes;
        rule.reason = "one-shot below " + ct::format_bytes(static_cast<double>(probes[from].bytes)) +
                      ", two-shot from there (" + probe_text(probes[from - 1]) + "; " +
                      probe_text(probes[from]) + ")";
    }
    return rule;
}

SizeRule measure_size_rule(PeerTeam& team, const ct::BenchmarkConfig& config) {
    const std::vector<std::uint64_t> sizes = size_rule_probe_bytes();
    const std::size_t capacity = static_cast<std::size_t>(sizes.back() / sizeof(float));
    std::vector<ct::DeviceBuffer<float>> send;
    std::vector<ct::DeviceBuffer<float>> recv;
    std::vector<const float*> send_ptr;
    std::vector<float*> recv_ptr;
    for (int g = 0; g < team.local_gpus(); ++g) {
        const DeviceGuard guard(team.device_of(g));
        send.emplace_back(capacity);
        recv.emplace_back(capacity);
        send.back().fill_bytes(0);  // the values do not matter for timing, but are defined
        send_ptr.push_back(send.back().data());
        recv_ptr.push_back(recv.back().data());
    }
    const PeerAllReduce one_shot(team, sentinel_peer_kernel(), send_ptr, recv_ptr, capacity);
    const PeerAllReduce two_shot(team, two_shot_peer_kernel(), send_ptr, recv_ptr, capacity);
    ct::BenchmarkConfig probe = config;
    probe.stream = team.stream_of(0);
    probe.repetitions = std::min(config.repetitions, 10);
    std::vector<double> times;
    const DeviceGuard guard(team.device_of(0));
    for (std::uint64_t bytes : sizes) {
        const std::size_t n = static_cast<std::size_t>(bytes / sizeof(float));
        times.push_back(ct::time_repeated([&](cudaStream_t) { one_shot.run(n); }, probe).median_ms);
        times.push_back(ct::time_repeated([&](cudaStream_t) { two_shot.run(n); }, probe).median_ms);
    }
    team.agree_on_max(times);  // every rank decides from the same numbers
    std::vector<SizeProbe> probes;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        probes.push_back({sizes[i], times[2 * i], times[2 * i + 1]});
    }
    return size_rule_from_probes(probes);
}

}  // namespace multi_gpu
