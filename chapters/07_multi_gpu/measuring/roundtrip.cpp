// The round-trip section: the all-reduce as a caller that waits for each result sees it, timed on
// the host from the request to the result, one call at a time. Stage 5 launched and waited for,
// stage 10 resident (no launch at all), and NCCL launched and waited for, each verified bit for
// bit on every GPU after its first call and after the timed ones. The same code runs in one
// process (a OneProcessTeam) and in one process per GPU (a RankTeam).
#include "roundtrip.hpp"

#include <algorithm>
#include <cstring>

#include "allreduce_table.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

namespace {

// A launched stage as a waiting caller sees it.
class LaunchedRoundTrip final : public RoundTripAllReducer {
  public:
    LaunchedRoundTrip(PeerTeam& team, std::unique_ptr<TeamAllReducer> stage)
        : team_(team), stage_(std::move(stage)) {}
    void call() override {
        stage_->run();
        for (int g = 0; g < team_.local_gpus(); ++g) {
            const DeviceGuard guard(team_.device_of(g));
            CT_CHECK(cudaStreamSynchronize(team_.stream_of(g)));
        }
    }
    std::string remark() const override { return stage_->remark(); }

  private:
    PeerTeam& team_;
    std::unique_ptr<TeamAllReducer> stage_;
};

// Every local GPU's output against the CPU's, bit for bit (copies on the legacy stream, which
// does not wait for a resident kernel's non-blocking stream).
ct::Verification verify_local(const PeerTeam& team,
                              const std::vector<ct::DeviceBuffer<float>>& recv,
                              const std::vector<float>& expected) {
    std::vector<float> got(expected.size());
    for (int g = 0; g < team.local_gpus(); ++g) {
        const DeviceGuard guard(team.device_of(g));
        recv[g].copy_to_host(got.data(), got.size());
        if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0) {
            continue;
        }
        std::size_t i = 0;
        while (std::memcmp(&got[i], &expected[i], sizeof(float)) == 0) {
            ++i;
        }
        return ct::Verification::fail("rank " + std::to_string(team.rank_of(g)) + ": element " +
                                      std::to_string(i) + " is " + std::to_string(got[i]) +
                                      ", expected " + std::to_string(expected[i]));
    }
    return ct::Verification::pass();
}

std::unique_ptr<RoundTripAllReducer> make_round_trip(const AllReduceStage& stage, PeerTeam& team,
                                                     const std::vector<const float*>& send,
                                                     const std::vector<float*>& recv,
                                                     std::size_t n) {
    if (stage.make_resident != nullptr) {
        return stage.make_resident(team, send, recv, n);
    }
    return std::make_unique<LaunchedRoundTrip>(team, stage.make_team(team, send, recv, n));
}

}  // namespace

const std::vector<std::string>& round_trip_stage_ids() {
    static const std::vector<std::string> ids = {"5", "10", "nccl"};
    return ids;
}

std::vector<std::uint64_t> round_trip_default_bytes() {
    return {4, 1024, 8 << 10, 32 << 10, 64 << 10, 256 << 10};
}

ct::BenchmarkConfig round_trip_config(ct::BenchmarkConfig base) {
    base.repetitions *= 10;
    base.warmup = std::max(base.warmup * 10, 20);
    base.calls_per_sample = 1;
    return base;
}

void prepare_round_trip_table(ct::TableRun& table, const ct::BenchmarkConfig& config) {
    table.set_group_column("size");
    table.set_baseline("nccl", "NCCL");
    table.info().set("timing",
                     "host clock around each call, one call at a time: from the request to the "
                     "result usable by the host (a launch and cudaStreamSynchronize; stage 10: "
                     "a doorbell and a completion flag)");
    table.info().set("calls timed per row", std::to_string(config.repetitions) + ", after " +
                                                std::to_string(config.warmup) + " untimed");
    const ct::Stats floor = ct::round_trip_floor(config);
    table.info().set("round-trip floor", ct::format_fixed(floor.median_ms * 1000.0, 2) +
                                             " µs: an empty kernel launched and waited for, "
                                             "timed as every row is");
}

void add_round_trip_rows(ct::TableRun& table, PeerTeam& team,
                         const std::vector<std::uint64_t>& sizes, std::uint64_t seed,
                         const ct::BenchmarkConfig& config, double link_gbs,
                         std::vector<std::string>& notes) {
    const int local = team.local_gpus();
    for (std::uint64_t bytes : sizes) {
        const std::size_t n = static_cast<std::size_t>(bytes / sizeof(float));
        std::vector<ct::DeviceBuffer<float>> send;
        std::vector<ct::DeviceBuffer<float>> recv;
        std::vector<const float*> send_ptr;
        std::vector<float*> recv_ptr;
        for (int g = 0; g < local; ++g) {
            const DeviceGuard guard(team.device_of(g));
            send.emplace_back(allreduce_input(seed, team.rank_of(g), n));
            recv.emplace_back(n);
            send_ptr.push_back(send.back().data());
            recv_ptr.push_back(recv.back().data());
        }
        const std::vector<float> expected = allreduce_expected(seed, team.ranks(), n);
        for (const std::string& id : round_trip_stage_ids()) {
            const AllReduceStage* stage = find_allreduce_stage(id);
            if (stage == nullptr) {
                continue;  // NCCL, in a build without it
            }
            const std::string skip = allreduce_skip_reason(*stage, bytes, team.ranks(), true);
            if (!skip.empty()) {
                add_note_once(notes, skip);
                continue;
            }
            // Poison first and wait for it here: once a resident kernel runs, nothing may wait
            // for the whole device.
            for (int g = 0; g < local; ++g) {
                const DeviceGuard guard(team.device_of(g));
                recv[g].fill_bytes(0xff);  // NaN: an element never written cannot pass
                CT_CHECK(cudaDeviceSynchronize());
            }
            std::unique_ptr<RoundTripAllReducer> caller =
                make_round_trip(*stage, team, send_ptr, recv_ptr, n);
            ct::BenchmarkConfig labelled = config;
            labelled.label = "roundtrip stage " + stage->id + " " + size_group(bytes);
            ct::StageHooks hooks = allreduce_hooks(bytes, team.ranks(), link_gbs);
            hooks.round_trip = [&] { caller->call(); };
            hooks.verify = [&] { return verify_local(team, recv, expected); };
            const ct::ResultRow row = ct::time_stage(*stage, hooks, labelled);
            // Every rank ends its kernels, then waits for the others before anything is freed:
            // the peers map these buffers, and their kernels may still be storing into them.
            caller->finish();
            team.barrier();
            if (!caller->remark().empty()) {
                add_note_once(notes, caller->remark());
            }
            caller.reset();
            team.barrier();
            table.add(row);
        }
    }
}

}  // namespace multi_gpu
