// Scenario 6: many tiny kernels, four ways to launch them. Each kernel is one warp doing a few
// integer operations, far less work than it costs to launch; what a run measures is therefore
// the launch path itself:
//   streams          one cudaLaunchKernel per kernel (events for edges between streams): the
//                    host pays every launch, and the GPU waits for the host when it is slower;
//   captured graph   the same launch code recorded once with stream capture and instantiated:
//                    afterwards one cudaGraphLaunch submits every kernel with its edges;
//   explicit graph   the same graph built node by node with cudaGraphAddKernelNode;
//   streams + PDL    one launch per kernel again, but with programmatic dependent launch
//                    (compute capability 9.0+): the next kernel is scheduled while the previous
//                    one still runs and waits for it in cudaGridDependencySynchronize;
//   graph + PDL      those programmatic launches recorded by stream capture: the graph keeps
//                    them as programmatic edges, so the GPU gets both savings at once.
// Look at: CPU µs per kernel (a graph launch costs one call for all kernels), the gap between
// dependent kernels, and that the kernels' own time is the same in every mode.
// This file is compiled once (not into both stream builds, see CMakeLists.txt): it launches
// only into created non-blocking streams and graphs, never into stream 0.
#include "graph_launch.hpp"

#include <chrono>
#include <stdexcept>
#include <utility>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/wall_clock.hpp"

namespace streams::graph {

namespace {

/// What one node's kernel needs; passed by value, so that a graph node keeps its own copy.
struct NodeArgs {
    std::uint32_t* buffer;
    NodeTime* times;
    std::uint32_t node;
    NodeKind kind;
    std::uint32_t region;
    std::uint32_t regions;
};

using cudatutorial::global_timer_ns;
using cudatutorial::sm_id;

/// One warp, one element per thread (kRegionWidth threads). Thread 0 stamps the start, the
/// moment the dependencies were met, and the end (after the barrier, so after every write).
__global__ void graph_node_kernel(NodeArgs args) {
    const std::uint32_t i = threadIdx.x;
    unsigned long long start = 0;
    if (i == 0) {
        start = global_timer_ns();
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    // Launched programmatically, this kernel may start while its predecessor still runs: wait
    // here until the predecessor has finished and its writes are visible. Then allow the NEXT
    // kernel to be scheduled, so that at most two kernels of a chain are resident at a time.
    // Launched the ordinary way (or in a graph), both calls return at once.
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
#endif
    unsigned long long ready = 0;
    if (i == 0) {
        ready = global_timer_ns();
    }
    std::uint32_t* const buffer = args.buffer;
    switch (args.kind) {
        case NodeKind::kFork:
            for (std::uint32_t r = 0; r < args.regions; ++r) {
                std::uint32_t& x = buffer[r * kRegionWidth + i];
                x = graph_step(x, args.node, i);
            }
            break;
        case NodeKind::kStep: {
            std::uint32_t& x = buffer[args.region * kRegionWidth + i];
            x = graph_step(x, args.node, i);
            break;
        }
        case NodeKind::kJoin: {
            std::uint32_t sum = 0;
            for (std::uint32_t r = 0; r < args.regions; ++r) {
                sum += buffer[r * kRegionWidth + i];
            }
            // Thread i reads and writes column i only: no barrier needed before the write.
            buffer[i] = graph_step(sum, args.node, i);
            break;
        }
    }
    __syncthreads();
    if (i == 0) {
        NodeTime& record = args.times[args.node];
        record.start_ns = start;
        record.ready_ns = ready;
        record.end_ns = global_timer_ns();
        record.sm = sm_id();
    }
}

/// CT_CHECK_LAUNCH synchronizes the device in Debug builds, which is illegal while a stream is
/// being captured (and would serialize the very launches timed here).
void check_launch(const char* file, int line) {
    cudatutorial::check_cuda(cudaGetLastError(), "kernel launch", file, line);
}

}  // namespace

const std::vector<LaunchMode>& launch_modes() {
    static const std::vector<LaunchMode> modes = {
        LaunchMode::kStreams, LaunchMode::kCapturedGraph, LaunchMode::kExplicitGraph,
        LaunchMode::kProgrammatic, LaunchMode::kProgrammaticGraph};
    return modes;
}

const char* mode_name(LaunchMode mode) {
    switch (mode) {
        case LaunchMode::kStreams:
            return "streams";
        case LaunchMode::kCapturedGraph:
            return "captured graph";
        case LaunchMode::kExplicitGraph:
            return "explicit graph";
        case LaunchMode::kProgrammatic:
            return "streams + PDL";
        case LaunchMode::kProgrammaticGraph:
            return "graph + PDL";
    }
    return "?";
}

std::string unsupported_reason(LaunchMode mode, int major, int minor) {
    const bool programmatic =
        mode == LaunchMode::kProgrammatic || mode == LaunchMode::kProgrammaticGraph;
    if (programmatic && major < 9) {
        return "programmatic dependent launch needs compute capability 9.0 or newer (this GPU: " +
               std::to_string(major) + "." + std::to_string(minor) + ")";
    }
#if CUDART_VERSION < 12030
    if (mode == LaunchMode::kProgrammaticGraph) {
        return "capturing programmatic launches into a graph needs CUDA 12.3 or newer";
    }
#endif
    return {};
}

GraphRunner::GraphRunner(Dag dag, LaunchMode mode)
    : dag_(std::move(dag)),
      mode_(mode),
      plan_(plan_streams(dag_)),
      event_of_node_(dag_.nodes.size(), -1),
      buffer_(dag_.elements()),
      times_(dag_.nodes.size()) {
    if (dag_.nodes.empty()) {
        throw std::invalid_argument("GraphRunner: a shape without kernels");
    }
    streams_.reserve(static_cast<std::size_t>(dag_.streams));
    for (int s = 0; s < dag_.streams; ++s) {
        streams_.emplace_back(cudaStreamNonBlocking);
    }
    for (std::size_t i = 0; i < plan_.size(); ++i) {
        if (plan_[i].record_event) {
            event_of_node_[i] = static_cast<int>(events_.size());
            events_.emplace_back(cudaEventDisableTiming);
        }
    }
    if (mode_ == LaunchMode::kCapturedGraph || mode_ == LaunchMode::kProgrammaticGraph) {
        const auto start = std::chrono::steady_clock::now();
        // Thread-local mode: a CUDA call from another thread cannot invalidate this capture.
        CT_CHECK(cudaStreamBeginCapture(streams_.front().get(), cudaStreamCaptureModeThreadLocal));
        issue(mode_ == LaunchMode::kProgrammaticGraph);
        CT_CHECK(cudaStreamEndCapture(streams_.front().get(), &graph_));
        build_us_ = 1000.0 * cudatutorial::ms_since(start);
    } else if (mode_ == LaunchMode::kExplicitGraph) {
        const auto start = std::chrono::steady_clock::now();
        CT_CHECK(cudaGraphCreate(&graph_, 0));
        std::vector<cudaGraphNode_t> nodes(dag_.nodes.size());
        std::vector<cudaGraphNode_t> dependencies;
        for (std::size_t i = 0; i < dag_.nodes.size(); ++i) {
            const Node& node = dag_.nodes[i];
            dependencies.clear();
            for (const int p : node.preds) {
                dependencies.push_back(nodes[static_cast<std::size_t>(p)]);
            }
            NodeArgs args{buffer_.data(), times_.data(), static_cast<std::uint32_t>(i),
                          node.kind,      node.region,   dag_.regions};
            void* arguments[] = {&args};
            cudaKernelNodeParams params{};
            params.func = reinterpret_cast<void*>(graph_node_kernel);
            params.gridDim = dim3(1);
            params.blockDim = dim3(kRegionWidth);
            params.sharedMemBytes = 0;
            params.kernelParams = arguments;  // copied into the node by the call below
            params.extra = nullptr;
            CT_CHECK(cudaGraphAddKernelNode(&nodes[i], graph_, dependencies.data(),
                                            dependencies.size(), &params));
        }
        build_us_ = 1000.0 * cudatutorial::ms_since(start);
    }
    if (graph_) {
        const auto start = std::chrono::steady_clock::now();
        CT_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
        instantiate_us_ = 1000.0 * cudatutorial::ms_since(start);
    }
}

GraphRunner::~GraphRunner() {
    if (exec_) {
        cudaGraphExecDestroy(exec_);
    }
    if (graph_) {
        cudaGraphDestroy(graph_);
    }
}

void GraphRunner::issue(bool programmatic) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    for (std::size_t i = 0; i < dag_.nodes.size(); ++i) {
        const Node& node = dag_.nodes[i];
        const IssueStep& step = plan_[i];
        const cudaStream_t stream = streams_[static_cast<std::size_t>(node.stream)].get();
        for (const int p : step.wait_for) {
            const int event = event_of_node_[static_cast<std::size_t>(p)];
            CT_CHECK(
                cudaStreamWaitEvent(stream, events_[static_cast<std::size_t>(event)].get(), 0));
        }
        const NodeArgs args{buffer_.data(), times_.data(), static_cast<std::uint32_t>(i),
                            node.kind,      node.region,   dag_.regions};
        if (programmatic && step.programmatic) {
            cudaLaunchConfig_t config{};
            config.gridDim = dim3(1);
            config.blockDim = dim3(kRegionWidth);
            config.dynamicSmemBytes = 0;
            config.stream = stream;
            config.attrs = &attribute;
            config.numAttrs = 1;
            CT_CHECK(cudaLaunchKernelEx(&config, graph_node_kernel, args));
        } else {
            graph_node_kernel<<<1, kRegionWidth, 0, stream>>>(args);
            check_launch(__FILE__, __LINE__);
        }
        if (step.record_event) {
            const int event = event_of_node_[i];
            CT_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(event)].get(), stream));
        }
    }
}

GraphRun GraphRunner::run(std::uint32_t salt) {
    const cudaStream_t first = streams_.front().get();
    const std::vector<std::uint32_t> initial = initial_buffer(dag_, salt);
    CT_CHECK(cudaMemcpyAsync(buffer_.data(), initial.data(), buffer_.bytes(),
                             cudaMemcpyHostToDevice, first));
    times_.fill_bytes_async(0xff, first);
    // The other streams are non-blocking and would not wait for the reset: finish it first, so
    // that the launches below start on an idle GPU.
    CT_CHECK(cudaStreamSynchronize(first));

    GraphRun run;
    const auto start = std::chrono::steady_clock::now();
    if (exec_) {
        CT_CHECK(cudaGraphLaunch(exec_, first));
    } else {
        issue(mode_ == LaunchMode::kProgrammatic);
    }
    run.enqueue_us = 1000.0 * cudatutorial::ms_since(start);
    for (const auto& stream : streams_) {
        CT_CHECK(cudaStreamSynchronize(stream.get()));
    }
    run.times.resize(dag_.nodes.size());
    CT_CHECK(cudaMemcpy(run.times.data(), times_.data(), times_.bytes(), cudaMemcpyDeviceToHost));
    run.buffer.resize(dag_.elements());
    CT_CHECK(
        cudaMemcpy(run.buffer.data(), buffer_.data(), buffer_.bytes(), cudaMemcpyDeviceToHost));
    return run;
}

}  // namespace streams::graph
