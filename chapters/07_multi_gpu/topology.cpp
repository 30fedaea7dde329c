// Topology: which GPUs can reach each other's memory, and how fast bytes move between them along
// each path. The copy engine's one-way rate is the yardstick the rest of the chapter is judged
// against ("% of link"), not a ceiling: an SM that loads a peer's memory itself is not bound by
// the copy engine's rate, and the link's theoretical figure is higher.
#include "topology.hpp"

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

CopyMeasurement measure_copy(int from, int to, CopyPath path, std::size_t bytes,
                             const ct::BenchmarkConfig& base_config) {
    const bool peer = path == CopyPath::kPeerAccess || path == CopyPath::kPeerBidirectional;
    const GpuSet pair({from, to}, peer);
    if (peer && !(pair.peer_enabled(0, 1) && pair.peer_enabled(1, 0))) {
        throw ct::UsageError("GPUs " + std::to_string(from) + " and " + std::to_string(to) +
                             " have no peer access");
    }
    ct::DeviceBuffer<unsigned char> src_a;
    ct::DeviceBuffer<unsigned char> dst_a;
    ct::DeviceBuffer<unsigned char> src_b;
    ct::DeviceBuffer<unsigned char> dst_b;
    {
        const DeviceGuard guard(from);
        src_a = ct::DeviceBuffer<unsigned char>(bytes);
        dst_a = ct::DeviceBuffer<unsigned char>(bytes);
        src_a.fill_bytes(0x5a);
        dst_a.fill_bytes(0);
    }
    {
        const DeviceGuard guard(to);
        src_b = ct::DeviceBuffer<unsigned char>(bytes);
        dst_b = ct::DeviceBuffer<unsigned char>(bytes);
        src_b.fill_bytes(0xa5);
        dst_b.fill_bytes(0);
    }
    pair.synchronize_devices();  // the fills must be complete before a copy reads them
    ct::PinnedBuffer<unsigned char> host(path == CopyPath::kHostStaged ? bytes : 0);
    const ForkJoin order(pair);

    const auto copy = [&](cudaStream_t) {
        switch (path) {
            case CopyPath::kHostStaged: {
                const DeviceGuard guard(from);
                CT_CHECK(cudaMemcpyAsync(host.data(), src_a.data(), bytes, cudaMemcpyDeviceToHost,
                                         pair.stream(0)));
                order.fork();  // GPU `to` starts its half when the bytes are in host memory
                const DeviceGuard guard_to(to);
                CT_CHECK(cudaMemcpyAsync(dst_b.data(), host.data(), bytes, cudaMemcpyHostToDevice,
                                         pair.stream(1)));
                order.join();
                break;
            }
            case CopyPath::kPeerNoAccess:
            case CopyPath::kPeerAccess: {
                const DeviceGuard guard(from);
                CT_CHECK(cudaMemcpyPeerAsync(dst_b.data(), to, src_a.data(), from, bytes,
                                             pair.stream(0)));
                break;
            }
            case CopyPath::kPeerBidirectional: {
                order.fork();
                {
                    const DeviceGuard guard(from);
                    CT_CHECK(cudaMemcpyPeerAsync(dst_b.data(), to, src_a.data(), from, bytes,
                                                 pair.stream(0)));
                }
                {
                    const DeviceGuard guard(to);
                    CT_CHECK(cudaMemcpyPeerAsync(dst_a.data(), from, src_b.data(), to, bytes,
                                                 pair.stream(1)));
                }
                order.join();
                break;
            }
        }
    };
    // Verified: nine bytes spread over the destination (first, last and between) hold the
    // pattern that was sent (the destinations were cleared first).
    const auto arrived = [bytes](const ct::DeviceBuffer<unsigned char>& dst, unsigned char want) {
        for (std::size_t k = 0; k <= 8; ++k) {
            const std::size_t at = (bytes - 1) / 8 * k + (k == 8 ? (bytes - 1) % 8 : 0);
            unsigned char got = 0;
            CT_CHECK(cudaMemcpy(&got, dst.data() + at, 1, cudaMemcpyDeviceToHost));
            if (got != want) {
                return false;
            }
        }
        return true;
    };
    const auto verify = [&] {
        if (!arrived(dst_b, 0x5a)) {
            return ct::Verification::fail("copied bytes differ from the source");
        }
        if (path == CopyPath::kPeerBidirectional && !arrived(dst_a, 0xa5)) {
            return ct::Verification::fail("the reverse copy's bytes differ from the source");
        }
        return ct::Verification::pass();
    };
    ct::BenchmarkConfig config = base_config;
    config.stream = pair.stream(0);
    const DeviceGuard guard(from);  // the harness's events live on GPU `from`, like its stream
    CopyMeasurement result;
    result.path = path;
    result.from = from;
    result.to = to;
    result.bytes = static_cast<double>(bytes) * (path == CopyPath::kPeerBidirectional ? 2 : 1);
    ct::StageHooks hooks;
    hooks.launch = copy;
    hooks.verify = verify;
    hooks.bytes = result.bytes;
    const char* arrow = path == CopyPath::kPeerBidirectional ? " <-> " : " -> ";
    result.row = ct::time_stage(
        {std::to_string(from) + arrow + std::to_string(to), copy_path_name(path), ""}, hooks,
        config);
    result.row.in_progression = false;  // a path of the machine, not a step of a progression
    return result;
}

}  // namespace multi_gpu
