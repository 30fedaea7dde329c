// Chapter 7's arithmetic, without a GPU: shards, the ring schedule, the bandwidth formulas and
// the all-reduce inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "multi_gpu.hpp"

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
        EXPECT_NE(s.make, nullptr);
        EXPECT_EQ(mg::find_allreduce_stage(s.name), &s);
    }
    EXPECT_EQ(stages[0].id, "1");
    EXPECT_EQ(mg::find_allreduce_stage("nope"), nullptr);
    EXPECT_EQ(mg::find_allreduce_stage("nccl") != nullptr, mg::nccl_available());
}
