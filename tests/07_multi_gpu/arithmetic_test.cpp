// Chapter 7's arithmetic, without a GPU: shards, the ring schedule, the bandwidth formulas and
// the all-reduce inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "allreduce_table.hpp"
#include "flag_protocol.hpp"
#include "multi_gpu.hpp"
#include "peer_allreduce.hpp"

namespace mg = multi_gpu;

TEST(SplitRange, PartsTileTheRangeInOrderAndDifferByAtMostOneGranule) {
    for (std::size_t granule : {std::size_t{1}, std::size_t{4}, std::size_t{16}}) {
        for (int parts = 1; parts <= 9; ++parts) {
            for (std::size_t n :
                 {0ul, 1ul, 3ul, 7ul, 8ul, 31ul, 32ul, 33ul, 1023ul, 1025ul, (1ul << 20) + 3}) {
                SCOPED_TRACE(testing::Message()
                             << "n " << n << " parts " << parts << " granule " << granule);
                std::size_t expected_begin = 0;
                std::size_t smallest = n + 1;
                std::size_t largest = 0;
                for (int i = 0; i < parts; ++i) {
                    const mg::Range r = mg::split_range(n, parts, i, granule);
                    EXPECT_EQ(r.begin, expected_begin);
                    EXPECT_LE(r.begin, r.end);
                    if (r.begin < n) {
                        EXPECT_EQ(r.begin % granule, 0u) << "part " << i << " starts unaligned";
                    }
                    expected_begin = r.end;
                    if (i + 1 < parts) {  // the last part may hold a partial granule
                        smallest = std::min(smallest, r.size());
                        largest = std::max(largest, r.size());
                    }
                }
                EXPECT_EQ(expected_begin, n);
                if (parts > 1 && n >= parts * granule) {
                    EXPECT_LE(largest - smallest, granule);
                }
            }
        }
    }
}

TEST(SplitRange, RejectsBadArguments) {
    EXPECT_THROW(mg::split_range(10, 0, 0), std::invalid_argument);
    EXPECT_THROW(mg::split_range(10, 2, 2), std::invalid_argument);
    EXPECT_THROW(mg::split_range(10, 2, -1), std::invalid_argument);
    EXPECT_THROW(mg::split_range(10, 2, 0, 0), std::invalid_argument);
}

TEST(RingSchedule, EveryGpuReceivesEveryOtherChunkOnceFromItsPredecessor) {
    EXPECT_EQ(mg::ring_steps(1), 0);
    for (int G = 2; G <= 8; ++G) {
        EXPECT_EQ(mg::ring_steps(G), 2 * (G - 1));
        for (int g = 0; g < G; ++g) {
            std::set<int> reduced;
            std::set<int> gathered;
            for (int s = 0; s < mg::ring_steps(G); ++s) {
                const mg::RingStep step = mg::ring_step(G, g, s);
                EXPECT_EQ(step.sender, (g + G - 1) % G);
                EXPECT_EQ(step.reduce, s < G - 1);
                (step.reduce ? reduced : gathered).insert(step.chunk);
            }
            // Reduce-scatter touches every chunk but the receiver's own; all-gather every chunk
            // but the one it completed itself.
            EXPECT_EQ(reduced.size(), static_cast<std::size_t>(G - 1));
            EXPECT_EQ(reduced.count(g), 0u);
            EXPECT_EQ(gathered.size(), static_cast<std::size_t>(G - 1));
            EXPECT_EQ(gathered.count(mg::reduce_scatter_owner_chunk(G, g)), 0u);
        }
    }
    EXPECT_THROW(mg::ring_step(2, 0, 2), std::invalid_argument);
    EXPECT_THROW(mg::ring_step(2, 2, 0), std::invalid_argument);
    EXPECT_THROW(mg::ring_step(1, 0, 0), std::invalid_argument);
}

// At one step, a GPU never writes the chunk its successor reads from it: so the GPUs of one step
// can run at the same time, ordered only by the waits on their neighbours' previous step.
TEST(RingSchedule, NoGpuWritesTheChunkItsSuccessorReadsInTheSameStep) {
    for (int G = 2; G <= 8; ++G) {
        for (int s = 0; s < mg::ring_steps(G); ++s) {
            for (int g = 0; g < G; ++g) {
                const int written = mg::ring_step(G, g, s).chunk;
                const int read_by_successor = mg::ring_step(G, (g + 1) % G, s).chunk;
                EXPECT_NE(written, read_by_successor) << "G " << G << " step " << s << " gpu " << g;
            }
        }
    }
}

namespace {

// The ring on the CPU: each "GPU" is a vector; a step reads the sender's values as they were
// before the step (all GPUs of a step run at once), in either order of the GPUs.
std::vector<std::vector<long long>> simulate_ring(const std::vector<std::vector<long long>>& send,
                                                  bool reverse_order) {
    const int G = static_cast<int>(send.size());
    const std::size_t n = send[0].size();
    std::vector<std::vector<long long>> recv(G, std::vector<long long>(n, -999999));
    if (G == 1) {
        recv[0] = send[0];
        return recv;
    }
    for (int s = 0; s < mg::ring_steps(G); ++s) {
        for (int k = 0; k < G; ++k) {
            const int g = reverse_order ? G - 1 - k : k;
            const mg::RingStep step = mg::ring_step(G, g, s);
            const mg::Range c = mg::split_range(n, G, step.chunk, 4);
            for (std::size_t i = c.begin; i < c.end; ++i) {
                if (step.reduce) {
                    const long long theirs = s == 0 ? send[step.sender][i] : recv[step.sender][i];
                    recv[g][i] = send[g][i] + theirs;
                } else {
                    recv[g][i] = recv[step.sender][i];
                }
            }
        }
    }
    return recv;
}

}  // namespace

TEST(RingSchedule, SimulatedRingLeavesTheFullSumOnEveryGpu) {
    for (int G = 1; G <= 8; ++G) {
        for (std::size_t n : {1ul, 3ul, 7ul, static_cast<std::size_t>(G - 1 > 0 ? G - 1 : 1), 33ul,
                              1023ul, 4099ul}) {
            std::vector<std::vector<long long>> send(G, std::vector<long long>(n));
            std::vector<long long> expected(n, 0);
            for (int g = 0; g < G; ++g) {
                for (std::size_t i = 0; i < n; ++i) {
                    send[g][i] = static_cast<long long>(mg::allreduce_input_value(7, g, i)) +
                                 1000 * (g + 1);  // each GPU's contribution is distinguishable
                    expected[i] += send[g][i];
                }
            }
            for (bool reverse : {false, true}) {
                SCOPED_TRACE(testing::Message()
                             << "G " << G << " n " << n << " reverse " << reverse);
                const auto recv = simulate_ring(send, reverse);
                for (int g = 0; g < G; ++g) {
                    EXPECT_EQ(recv[g], expected) << "gpu " << g;
                }
            }
        }
    }
}

TEST(Bandwidth, BusBandwidthFollowsNcclTests) {
    EXPECT_DOUBLE_EQ(mg::algorithm_bandwidth_gbs(1e9, 1000.0), 1.0);
    EXPECT_DOUBLE_EQ(mg::algorithm_bandwidth_gbs(2e9, 0.0), 0.0);
    EXPECT_DOUBLE_EQ(mg::allreduce_bus_bandwidth_gbs(100.0, 1), 0.0);
    EXPECT_DOUBLE_EQ(mg::allreduce_bus_bandwidth_gbs(100.0, 2), 100.0);
    EXPECT_DOUBLE_EQ(mg::allreduce_bus_bandwidth_gbs(100.0, 4), 150.0);
    EXPECT_DOUBLE_EQ(mg::allreduce_bus_bandwidth_gbs(100.0, 8), 175.0);
}

TEST(AllReduceInput, SmallIntegersThatVaryAndSumExactly) {
    std::set<float> seen;
    for (std::size_t i = 0; i < 10000; ++i) {
        for (int g = 0; g < 8; ++g) {
            const float v = mg::allreduce_input_value(20261122, g, i);
            EXPECT_GE(v, -8.0f);
            EXPECT_LE(v, 8.0f);
            EXPECT_EQ(v, static_cast<float>(static_cast<int>(v)));
            seen.insert(v);
        }
        float sum = 0;
        for (int g = 0; g < 8; ++g) {
            sum += mg::allreduce_input_value(20261122, g, i);
        }
        EXPECT_EQ(mg::allreduce_expected_value(20261122, 8, i), sum);
    }
    EXPECT_EQ(seen.size(), 17u);  // every value -8..8 occurs: never all zero
    EXPECT_NE(mg::allreduce_input(5, 0, 64), mg::allreduce_input(5, 1, 64));
    EXPECT_EQ(mg::allreduce_expected(5, 3, 100)[42], mg::allreduce_expected_value(5, 3, 42));
}

TEST(StageList, ProgressionThenBaselineWithUniqueIds) {
    const auto& stages = mg::allreduce_stages();
    ASSERT_GE(stages.size(), 3u);
    std::set<std::string> ids;
    for (const mg::AllReduceStage& s : stages) {
        EXPECT_TRUE(ids.insert(s.id).second) << s.id;
        EXPECT_FALSE(s.name.empty());
        EXPECT_FALSE(s.idea.empty());
        // Some way to make it: in one process (events), on a team (both modes), or both; or
        // resident (stage 10, the round-trip section only), and then nothing else.
        EXPECT_TRUE(s.launch != nullptr || s.make_team != nullptr || s.make_resident != nullptr)
            << s.id;
        if (s.make_resident != nullptr) {
            EXPECT_TRUE(s.launch == nullptr && s.make_team == nullptr) << s.id;
            EXPECT_FALSE(mg::round_trip_only_note(s).empty()) << s.id;
        } else {
            EXPECT_TRUE(mg::round_trip_only_note(s).empty()) << s.id;
        }
        EXPECT_EQ(mg::find_allreduce_stage(s.name), &s);
    }
    EXPECT_EQ(stages[0].id, "1");
    EXPECT_EQ(mg::find_allreduce_stage("nope"), nullptr);
    EXPECT_EQ(mg::find_allreduce_stage("nccl") != nullptr, mg::nccl_available());
}

// ---- The peer-memory stages' arithmetic ------------------------------------------------------

TEST(FlagProtocol, ACallIsReachedByItsOwnNumberAndLaterOnesOnly) {
    EXPECT_FALSE(mg::flag_reached(0, 1));  // a zeroed flag: call 1 has not arrived
    EXPECT_TRUE(mg::flag_reached(1, 1));
    EXPECT_TRUE(mg::flag_reached(2, 1));  // a peer one call ahead has passed this call too
    EXPECT_FALSE(mg::flag_reached(1, 2));
}

TEST(FlagProtocol, StaysRightWhenTheCallNumberWrapsAround) {
    const std::uint32_t last = 0xffffffffu;
    EXPECT_TRUE(mg::flag_reached(last, last));
    EXPECT_FALSE(mg::flag_reached(last - 1, last));
    EXPECT_TRUE(mg::flag_reached(0u, last));   // call 2^32 (wrapped to 0) is after call 2^32 - 1
    EXPECT_FALSE(mg::flag_reached(last, 0u));  // ... and call 2^32 - 1 is before it
    EXPECT_TRUE(mg::flag_reached(5u, last));
}

TEST(FlagProtocol, ConsecutiveCallsUseAlternateStagingHalves) {
    for (std::uint32_t seq : {1u, 2u, 1000u, 0xfffffffeu, 0xffffffffu}) {
        EXPECT_NE(mg::staging_half(seq), mg::staging_half(seq + 1)) << seq;
        EXPECT_GE(mg::staging_half(seq), 0);
        EXPECT_LE(mg::staging_half(seq), 1);
    }
}

TEST(FlagProtocol, EveryFlagHasItsOwnWord) {
    std::set<std::size_t> seen;
    for (int point = 0; point < mg::kFlagPoints; ++point) {
        for (int block : {0, 1, mg::kMaxPeerBlocks - 1}) {
            for (int from = 0; from < mg::kMaxPeerRanks; ++from) {
                const std::size_t index = mg::flag_index(point, block, from);
                EXPECT_LT(index, mg::kFlagWords);
                EXPECT_TRUE(seen.insert(index).second) << point << " " << block << " " << from;
            }
        }
    }
}

TEST(PeerWorkspace, StagingIsAlignedAndOnlyOneShotHasIt) {
    for (int ranks : {1, 2, 3, 8}) {
        for (std::size_t capacity : {std::size_t{1}, std::size_t{1025}, std::size_t{1} << 20}) {
            const auto one =
                mg::peer_workspace_layout(mg::PeerAlgorithm::kOneShot, ranks, capacity);
            EXPECT_EQ(one.staging_offset % 16, 0u);
            EXPECT_GE(one.capacity, capacity);
            EXPECT_EQ(one.capacity % 4, 0u);  // every slot starts on a float4
            EXPECT_GE(one.counters_offset, mg::kFlagWords * sizeof(std::uint32_t));
            EXPECT_GE(one.staging_offset, one.counters_offset + mg::kMaxPeerBlocks * 4);
            EXPECT_EQ(one.bytes, one.staging_offset + 2 * ranks * one.capacity * sizeof(float));
            const auto sentinel =
                mg::peer_workspace_layout(mg::PeerAlgorithm::kOneShotSentinel, ranks, capacity);
            EXPECT_EQ(sentinel.bytes,
                      sentinel.staging_offset + 3 * ranks * sentinel.capacity * sizeof(float));
            const auto two =
                mg::peer_workspace_layout(mg::PeerAlgorithm::kTwoShot, ranks, capacity);
            EXPECT_EQ(two.capacity, 0u);
            EXPECT_EQ(two.bytes, two.staging_offset);
        }
    }
}

TEST(PeerLaunch, SameShapeOnEveryRankNeverMoreBlocksThanFit) {
    for (auto algorithm : {mg::PeerAlgorithm::kOneShot, mg::PeerAlgorithm::kOneShotSentinel,
                           mg::PeerAlgorithm::kTwoShot}) {
        for (int ranks : {1, 2, 4, 8}) {
            for (std::size_t n :
                 {std::size_t{1}, std::size_t{1025}, std::size_t{262145}, std::size_t{1} << 28}) {
                const auto shape = mg::peer_launch_shape(algorithm, n, ranks, 264, 512);
                EXPECT_GE(shape.blocks, 1u);
                EXPECT_LE(shape.blocks, 264u);
                EXPECT_EQ(shape.threads, 512u);
                // Enough threads for one float4 each, up to the resident limit.
                const std::size_t floats = algorithm == mg::PeerAlgorithm::kTwoShot
                                               ? mg::split_range(n, ranks, 0, 4).size()
                                               : n;
                if (shape.blocks < 264u) {
                    EXPECT_GE(std::size_t{shape.blocks} * 512 * 4, floats);
                }
            }
        }
    }
    EXPECT_EQ(mg::peer_launch_shape(mg::PeerAlgorithm::kOneShot, 256, 2, 264, 512).blocks, 1u);
    EXPECT_EQ(mg::peer_launch_shape(mg::PeerAlgorithm::kTwoShot, 1u << 28, 2, 5000, 512).blocks,
              static_cast<unsigned>(mg::kMaxPeerBlocks));
}

TEST(SizeRule, TwoShotFromWhereItWinsForGood) {
    const std::vector<mg::SizeProbe> probes = {{4096, 0.004, 0.006},
                                               {16384, 0.005, 0.0049},  // a lone win: noise
                                               {65536, 0.007, 0.008},
                                               {262144, 0.015, 0.012},
                                               {1048576, 0.040, 0.020}};
    const mg::SizeRule rule = mg::size_rule_from_probes(probes);
    EXPECT_EQ(rule.two_shot_from, 262144u);
    EXPECT_EQ(rule.choose(65536), mg::PeerAlgorithm::kOneShotSentinel);
    EXPECT_EQ(rule.choose(262143), mg::PeerAlgorithm::kOneShotSentinel);
    EXPECT_EQ(rule.choose(262144), mg::PeerAlgorithm::kTwoShot);
    EXPECT_EQ(rule.choose(std::uint64_t{1} << 30), mg::PeerAlgorithm::kTwoShot);
    EXPECT_NE(rule.reason.find("64.0 KiB"), std::string::npos) << rule.reason;
    EXPECT_NE(rule.reason.find("256.0 KiB"), std::string::npos) << rule.reason;
}

TEST(SizeRule, OneAlgorithmEverywhereAndNeverOneShotBeyondTheProbes) {
    const std::vector<mg::SizeProbe> two_wins = {{4096, 0.01, 0.005}, {16384, 0.02, 0.01}};
    EXPECT_EQ(mg::size_rule_from_probes(two_wins).two_shot_from, 0u);
    EXPECT_EQ(mg::size_rule_from_probes(two_wins).choose(4), mg::PeerAlgorithm::kTwoShot);
    const std::vector<mg::SizeProbe> one_wins = {{4096, 0.004, 0.005}, {16384, 0.005, 0.006}};
    const mg::SizeRule rule = mg::size_rule_from_probes(one_wins);
    EXPECT_EQ(rule.choose(16384), mg::PeerAlgorithm::kOneShotSentinel);
    EXPECT_EQ(rule.choose(32768), mg::PeerAlgorithm::kTwoShot);  // not measured: not one-shot
    EXPECT_EQ(mg::size_rule_from_probes({}).choose(4), mg::PeerAlgorithm::kTwoShot);
}

TEST(SizeRule, ProbesGrowByFourFrom4KiBTo4MiB) {
    const auto bytes = mg::size_rule_probe_bytes();
    ASSERT_EQ(bytes.size(), 6u);
    EXPECT_EQ(bytes.front(), 4096u);
    EXPECT_EQ(bytes.back(), std::uint64_t{4} << 20);
}
