/// @file graph_launch.hpp
/// @brief Scenario 6 (launch overhead): one shape of tiny kernels (graph_dag.hpp) launched in one
/// of four ways, run after run. The kernels are in scenarios/graph_launch.cu, compiled once (not
/// in both stream builds): every launch goes to a created non-blocking stream or into a graph,
/// never to stream 0, so what stream 0 means does not matter here.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "graph_dag.hpp"
#include "streams.hpp"

namespace streams::graph {

/// How the kernels of a shape reach the GPU.
enum class LaunchMode {
    kStreams,        ///< one launch per kernel on streams, events for edges across streams
    kCapturedGraph,  ///< the same launches recorded once by stream capture, replayed as a graph
    kExplicitGraph,  ///< the same graph built node by node (cudaGraphAddKernelNode)
    kProgrammatic,   ///< one launch per kernel, programmatic dependent launch where the plan allows
    kProgrammaticGraph,  ///< those programmatic launches recorded by stream capture, as a graph
};

/// The five modes, in table order.
const std::vector<LaunchMode>& launch_modes();
/// "streams", "captured graph", "explicit graph", "streams + PDL", "graph + PDL".
const char* mode_name(LaunchMode mode);
/// Empty when `mode` runs on a device of compute capability major.minor, otherwise why not.
std::string unsupported_reason(LaunchMode mode, int major, int minor);

/// What one run returns: the device's own record of every node, and the buffer afterwards.
struct GraphRun {
    std::vector<NodeTime> times;        ///< in node order; all ones where a kernel never wrote
    std::vector<std::uint32_t> buffer;  ///< the regions after the last node
    double enqueue_us = 0;              ///< host time of the launch calls (or of cudaGraphLaunch)
};

/// A shape ready to run in one mode on the current device: streams, events, buffers and, for the
/// graph modes, the graph built and instantiated once (both timed on the host).
class GraphRunner {
  public:
    /// Throws std::invalid_argument for a malformed shape, cudatutorial::CudaError on a CUDA
    /// failure (a programmatic launch on a device that cannot do it, too).
    GraphRunner(Dag dag, LaunchMode mode);
    ~GraphRunner();
    GraphRunner(const GraphRunner&) = delete;
    GraphRunner& operator=(const GraphRunner&) = delete;

    /// Resets the buffer to initial_buffer(salt) and the times to all ones, waits for that, then
    /// issues every kernel (or launches the graph once), waits for all of them and copies back.
    GraphRun run(std::uint32_t salt);

    const Dag& dag() const { return dag_; }
    LaunchMode mode() const { return mode_; }
    /// Host time to record the graph (capture) or to add its nodes (explicit); 0 without graph.
    double build_us() const { return build_us_; }
    /// Host time of cudaGraphInstantiate; 0 without graph.
    double instantiate_us() const { return instantiate_us_; }

  private:
    /// Issues every node on the streams in order (programmatic launches if `programmatic`).
    void issue(bool programmatic);

    Dag dag_;
    LaunchMode mode_;
    std::vector<IssueStep> plan_;
    std::vector<cudatutorial::CudaStream> streams_;
    std::vector<cudatutorial::CudaEvent> events_;
    std::vector<int> event_of_node_;  // index into events_, -1 when the node records none
    cudatutorial::DeviceBuffer<std::uint32_t> buffer_;
    cudatutorial::DeviceBuffer<NodeTime> times_;
    cudaGraph_t graph_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    double build_us_ = 0;
    double instantiate_us_ = 0;
};

}  // namespace streams::graph

namespace streams {

// What scenario 6 launches (graph_dag.cpp).

/// Kernels per branch of the printed fork-join.
inline constexpr int kLaunchOverheadDemoDepth = 4;

/// Branches of the fork-join, and kernels per branch: `kernels` / `branches` (at least 1).
int launch_overhead_depth(const ScenarioConfig& config);

/// The two measured shapes for `config`: a chain of config.graph_kernels kernels, and a root,
/// config.graph_branches branches of launch_overhead_depth() kernels and a join.
std::vector<graph::Dag> launch_overhead_shapes(const ScenarioConfig& config);

/// The small fork-join (every branch 4 kernels deep) whose timeline is printed kernel by kernel.
graph::Dag launch_overhead_demo_shape(const ScenarioConfig& config);

/// Kernels of all shapes scenario 6 runs (the two measured shapes and the demo).
int launch_overhead_kernel_count(const ScenarioConfig& config);

}  // namespace streams
