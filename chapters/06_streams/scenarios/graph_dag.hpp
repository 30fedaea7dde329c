/// @file graph_dag.hpp
/// @brief Scenario 6 (launch overhead): the shapes of tiny-kernel work it launches (a chain, a
/// fork-join), how they map onto streams, what every node computes, and the CPU reference.
/// Pure host code (the node arithmetic is host-device), tested on the CPU.
///
/// Every node is one tiny kernel: one warp that applies `graph_step` to a small region of a
/// buffer. The step is an affine map with a constant that depends on the node, so the final
/// buffer depends on the ORDER in which the nodes ran, not just on which ran: a missing edge, a
/// kernel that read its input before its predecessor had finished, or one that ran twice, all
/// change the result, and the CPU reference catches it exactly (unsigned arithmetic, mod 2^32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__CUDACC__)
#define GRAPH_HOST_DEVICE __host__ __device__
#else
#define GRAPH_HOST_DEVICE
#endif

namespace streams::graph {

/// Elements per region, and threads per node kernel (one warp: each thread owns one element).
inline constexpr std::uint32_t kRegionWidth = 32;

/// One node's update of one element: x * 3 + c(node, i). Multiplying by an odd number is a
/// bijection mod 2^32 and the constants differ per node, so two nodes applied in the other
/// order give a different value.
GRAPH_HOST_DEVICE constexpr std::uint32_t graph_step(std::uint32_t x, std::uint32_t node,
                                                     std::uint32_t i) {
    return x * 3u + (node * 0x9E3779B9u + i * 0x85EBCA6Bu + 1u);
}

/// What a node's kernel does.
enum class NodeKind : std::uint32_t {
    kFork,  ///< steps every region (the root of a fork-join: every branch depends on it)
    kStep,  ///< steps its own region
    kJoin,  ///< region 0 becomes the step of the sum of all regions (reads every branch)
};

/// One kernel of a shape, with the nodes that must finish before it starts.
struct Node {
    std::string name;  ///< "c17", "root", "b2.5", "join"
    NodeKind kind = NodeKind::kStep;
    std::uint32_t region = 0;  ///< the region a kStep node updates (0 for kFork and kJoin)
    int stream = 0;            ///< the stream it is issued to when launched one by one
    std::vector<int> preds;    ///< indices of the nodes it depends on (all smaller)
};

/// A shape: nodes in issue order (every predecessor comes earlier: a topological order).
struct Dag {
    std::string shape;          ///< "chain" or "fork-join"
    std::uint32_t regions = 1;  ///< regions of kRegionWidth elements in the buffer
    int streams = 1;            ///< streams used when launched one by one
    std::vector<Node> nodes;

    /// Elements of the buffer the nodes update.
    std::size_t elements() const { return std::size_t{regions} * kRegionWidth; }
    /// Number of dependency edges.
    std::size_t edge_count() const;
};

/// `length` kernels in one stream, each stepping region 0 after the previous one.
/// Throws std::invalid_argument when length < 1.
Dag make_chain(int length);

/// A root kernel, then `branches` chains of `depth` kernels (branch b on stream b, its own
/// region), then a join kernel that waits for the last kernel of every branch. Root and join
/// are on stream 0 with branch 0. Throws std::invalid_argument when branches < 1 or depth < 1.
Dag make_fork_join(int branches, int depth);

/// Checks that every predecessor index is valid and smaller than the node's own (issue order is
/// a topological order) and that regions and streams are in range; empty when fine, otherwise
/// the first problem.
std::string validate(const Dag& dag);

/// How one node is issued when launched one by one on streams.
struct IssueStep {
    std::vector<int> wait_for;  ///< nodes on OTHER streams to wait for (cudaStreamWaitEvent)
    bool record_event = false;  ///< a node on another stream waits for this one: record after it
    /// Its only dependency is the kernel issued just before it on the same stream, so programmatic
    /// dependent launch may start it early (the kernel then waits in
    /// cudaGridDependencySynchronize).
    bool programmatic = false;
};

/// The stream plan of `dag`, one step per node: a predecessor on the node's own stream is implied
/// by stream order (every earlier node there finishes first), every other predecessor needs an
/// event. Stream order may add edges the shape does not ask for, never drop one.
std::vector<IssueStep> plan_streams(const Dag& dag);

/// The buffer before any node ran: element i of region r for run `salt` (never all zero).
std::vector<std::uint32_t> initial_buffer(const Dag& dag, std::uint32_t salt);

/// Applies node `index` of `dag` to `buffer` on the CPU, as the kernel does on the GPU.
void apply_node(const Dag& dag, int index, std::vector<std::uint32_t>& buffer);

/// The buffer after all nodes ran in issue order (the CPU reference).
std::vector<std::uint32_t> reference_buffer(const Dag& dag, std::uint32_t salt);

/// When one node's kernel ran, from %globaltimer (ns).
struct NodeTime {
    std::uint64_t start_ns = 0;  ///< the block started
    std::uint64_t ready_ns =
        0;                     ///< its dependencies were met (after cudaGridDependencySynchronize)
    std::uint64_t end_ns = 0;  ///< its writes were done
    std::uint32_t sm = 0;      ///< %smid
};

/// What one run's node times show.
struct TimeSummary {
    std::uint64_t span_ns = 0;  ///< earliest start to latest end
    /// Mean of end - ready: the kernels' own work, without the wait for their dependencies.
    double mean_kernel_ns = 0;
    /// Mean over edges of successor ready - predecessor end: what the launch path adds between
    /// two dependent kernels.
    double mean_gap_ns = 0;
    int edges_out_of_order = 0;  ///< edges whose successor was ready before its predecessor ended
    std::string first_out_of_order;  ///< "c3 before c2 ended", or empty
    int max_at_once = 0;             ///< most kernels running at one instant
    double sum_over_span = 0;        ///< sum of (end - start) over all kernels / span
};

/// Span, own time, gaps, order violations and concurrency of one run (times in node order).
/// Throws std::invalid_argument when `times` has a different size than `dag.nodes`.
TimeSummary summarize_times(const Dag& dag, const std::vector<NodeTime>& times);

}  // namespace streams::graph
