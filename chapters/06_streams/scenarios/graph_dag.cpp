#include "graph_dag.hpp"
#include "graph_launch.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "worker_output.hpp"

namespace streams::graph {

std::size_t Dag::edge_count() const {
    std::size_t edges = 0;
    for (const auto& node : nodes) {
        edges += node.preds.size();
    }
    return edges;
}

Dag make_chain(int length) {
    if (length < 1) {
        throw std::invalid_argument("a chain needs at least one kernel");
    }
    Dag dag;
    dag.shape = "chain";
    dag.regions = 1;
    dag.streams = 1;
    dag.nodes.reserve(static_cast<std::size_t>(length));
    for (int k = 0; k < length; ++k) {
        Node node;
        node.name = "c" + std::to_string(k + 1);
        node.kind = NodeKind::kStep;
        if (k > 0) {
            node.preds.push_back(k - 1);
        }
        dag.nodes.push_back(std::move(node));
    }
    return dag;
}

Dag make_fork_join(int branches, int depth) {
    if (branches < 1 || depth < 1) {
        throw std::invalid_argument("a fork-join needs at least one branch of at least one kernel");
    }
    Dag dag;
    dag.shape = "fork-join";
    dag.regions = static_cast<std::uint32_t>(branches);
    dag.streams = branches;
    Node root;
    root.name = "root";
    root.kind = NodeKind::kFork;
    dag.nodes.push_back(root);
    Node join;
    join.name = "join";
    join.kind = NodeKind::kJoin;
    // Branch by branch, so that each branch's kernels are contiguous: that is also the order in
    // which one host thread issues them, and stream capture records the same graph either way.
    for (int b = 0; b < branches; ++b) {
        int previous = 0;  // the root
        for (int d = 0; d < depth; ++d) {
            Node node;
            node.name = "b" + std::to_string(b + 1) + "." + std::to_string(d + 1);
            node.kind = NodeKind::kStep;
            node.region = static_cast<std::uint32_t>(b);
            node.stream = b;
            node.preds.push_back(previous);
            previous = static_cast<int>(dag.nodes.size());
            dag.nodes.push_back(std::move(node));
        }
        join.preds.push_back(previous);
    }
    dag.nodes.push_back(std::move(join));
    return dag;
}

std::string validate(const Dag& dag) {
    if (dag.regions < 1 || dag.streams < 1) {
        return "a shape needs at least one region and one stream";
    }
    for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
        const Node& node = dag.nodes[i];
        if (node.stream < 0 || node.stream >= dag.streams) {
            return node.name + ": stream " + std::to_string(node.stream) + " of " +
                   std::to_string(dag.streams);
        }
        if (node.kind == NodeKind::kStep && node.region >= dag.regions) {
            return node.name + ": region " + std::to_string(node.region) + " of " +
                   std::to_string(dag.regions);
        }
        for (const int p : node.preds) {
            if (p < 0 || static_cast<std::size_t>(p) >= i) {
                return node.name + ": predecessor " + std::to_string(p) + " is not an earlier node";
            }
        }
    }
    return {};
}

std::vector<IssueStep> plan_streams(const Dag& dag) {
    const std::string problem = validate(dag);
    if (!problem.empty()) {
        throw std::invalid_argument("plan_streams: " + problem);
    }
    std::vector<IssueStep> plan(dag.nodes.size());
    std::vector<int> last_on_stream(static_cast<std::size_t>(dag.streams), -1);
    for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
        const Node& node = dag.nodes[i];
        IssueStep& step = plan[i];
        const int previous_here = last_on_stream[static_cast<std::size_t>(node.stream)];
        for (const int p : node.preds) {
            if (dag.nodes[static_cast<std::size_t>(p)].stream != node.stream) {
                step.wait_for.push_back(p);
                plan[static_cast<std::size_t>(p)].record_event = true;
            }
        }
        // Programmatic dependent launch relaxes exactly one edge: the one to the kernel issued
        // just before on the same stream. A node that also waits for an event keeps the full
        // (implicit) dependency, so it is launched the ordinary way.
        step.programmatic =
            step.wait_for.empty() && node.preds.size() == 1 && node.preds.front() == previous_here;
        last_on_stream[static_cast<std::size_t>(node.stream)] = static_cast<int>(i);
    }
    return plan;
}

std::vector<std::uint32_t> initial_buffer(const Dag& dag, std::uint32_t salt) {
    std::vector<std::uint32_t> buffer(dag.elements());
    for (std::uint32_t r = 0; r < dag.regions; ++r) {
        for (std::uint32_t i = 0; i < kRegionWidth; ++i) {
            // The hash the other scenarios' workers write; here it only seeds the buffer.
            buffer[std::size_t{r} * kRegionWidth + i] = expected_output(salt, r, i);
        }
    }
    return buffer;
}

void apply_node(const Dag& dag, int index, std::vector<std::uint32_t>& buffer) {
    const Node& node = dag.nodes.at(static_cast<std::size_t>(index));
    const auto id = static_cast<std::uint32_t>(index);
    for (std::uint32_t i = 0; i < kRegionWidth; ++i) {
        switch (node.kind) {
            case NodeKind::kFork:
                for (std::uint32_t r = 0; r < dag.regions; ++r) {
                    std::uint32_t& x = buffer[std::size_t{r} * kRegionWidth + i];
                    x = graph_step(x, id, i);
                }
                break;
            case NodeKind::kStep: {
                std::uint32_t& x = buffer[std::size_t{node.region} * kRegionWidth + i];
                x = graph_step(x, id, i);
                break;
            }
            case NodeKind::kJoin: {
                std::uint32_t sum = 0;
                for (std::uint32_t r = 0; r < dag.regions; ++r) {
                    sum += buffer[std::size_t{r} * kRegionWidth + i];
                }
                buffer[i] = graph_step(sum, id, i);
                break;
            }
        }
    }
}

std::vector<std::uint32_t> reference_buffer(const Dag& dag, std::uint32_t salt) {
    std::vector<std::uint32_t> buffer = initial_buffer(dag, salt);
    for (std::size_t i = 0; i < dag.nodes.size(); ++i) {
        apply_node(dag, static_cast<int>(i), buffer);
    }
    return buffer;
}

TimeSummary summarize_times(const Dag& dag, const std::vector<NodeTime>& times) {
    if (times.size() != dag.nodes.size()) {
        throw std::invalid_argument("summarize_times: one time per node");
    }
    TimeSummary summary;
    if (times.empty()) {
        return summary;
    }
    std::uint64_t first = times.front().start_ns;
    std::uint64_t last = times.front().end_ns;
    double work_ns = 0;
    double resident_ns = 0;
    double gap_ns = 0;
    std::size_t edges = 0;
    // (time, +1 start / -1 end): at equal times ends sort first, touching is not running together.
    std::vector<std::pair<std::uint64_t, int>> events;
    events.reserve(2 * times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        const NodeTime& t = times[i];
        first = std::min(first, t.start_ns);
        last = std::max(last, t.end_ns);
        // Differences as integers first: %globaltimer values (~1.7e18 ns) are beyond double's
        // exact integers.
        work_ns += t.end_ns >= t.ready_ns ? static_cast<double>(t.end_ns - t.ready_ns) : 0.0;
        resident_ns += t.end_ns >= t.start_ns ? static_cast<double>(t.end_ns - t.start_ns) : 0.0;
        if (t.end_ns > t.start_ns) {
            events.emplace_back(t.start_ns, +1);
            events.emplace_back(t.end_ns, -1);
        }
        for (const int p : dag.nodes[i].preds) {
            const NodeTime& before = times[static_cast<std::size_t>(p)];
            gap_ns += t.ready_ns >= before.end_ns
                          ? static_cast<double>(t.ready_ns - before.end_ns)
                          : -static_cast<double>(before.end_ns - t.ready_ns);
            ++edges;
            if (t.ready_ns < before.end_ns) {
                if (summary.edges_out_of_order == 0) {
                    summary.first_out_of_order = dag.nodes[i].name + " went ahead before " +
                                                 dag.nodes[static_cast<std::size_t>(p)].name +
                                                 " ended";
                }
                ++summary.edges_out_of_order;
            }
        }
    }
    std::sort(events.begin(), events.end());
    int running = 0;
    for (const auto& event : events) {
        running += event.second;
        summary.max_at_once = std::max(summary.max_at_once, running);
    }
    const auto count = static_cast<double>(times.size());
    summary.span_ns = last - first;
    summary.mean_kernel_ns = work_ns / count;
    summary.mean_gap_ns = edges ? gap_ns / static_cast<double>(edges) : 0.0;
    summary.sum_over_span =
        summary.span_ns ? resident_ns / static_cast<double>(summary.span_ns) : 0.0;
    return summary;
}

}  // namespace streams::graph

namespace streams {

int launch_overhead_depth(const ScenarioConfig& config) {
    return std::max(1, config.graph_kernels / std::max(1, config.graph_branches));
}

std::vector<graph::Dag> launch_overhead_shapes(const ScenarioConfig& config) {
    return {graph::make_chain(config.graph_kernels),
            graph::make_fork_join(config.graph_branches, launch_overhead_depth(config))};
}

graph::Dag launch_overhead_demo_shape(const ScenarioConfig& config) {
    return graph::make_fork_join(config.graph_branches, kLaunchOverheadDemoDepth);
}

int launch_overhead_kernel_count(const ScenarioConfig& config) {
    int kernels = static_cast<int>(launch_overhead_demo_shape(config).nodes.size());
    for (const auto& dag : launch_overhead_shapes(config)) {
        kernels += static_cast<int>(dag.nodes.size());
    }
    return kernels;
}

}  // namespace streams
