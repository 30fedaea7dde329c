// A set of GPUs driven from one host thread: a stream per GPU, peer access between the pairs
// that support it, and the cross-device event ordering (fork/join) that lets one stream's
// events time work spread over all of them.
#include <algorithm>
#include <string>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_info.hpp"
#include "multi_gpu.hpp"
#include "nccl_support.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

DeviceGuard::DeviceGuard(int device) {
    CT_CHECK(cudaGetDevice(&previous_));
    CT_CHECK(cudaSetDevice(device));
}

DeviceGuard::~DeviceGuard() {
    cudaSetDevice(previous_);  // a destructor must not throw; the next checked call reports
}

GpuSet::GpuSet(std::vector<int> devices, bool enable_peer_access) : devices_(std::move(devices)) {
    const int available = ct::cuda_device_count();
    if (devices_.empty()) {
        throw ct::UsageError("a GPU set needs at least one GPU");
    }
    for (std::size_t i = 0; i < devices_.size(); ++i) {
        if (devices_[i] < 0 || devices_[i] >= available) {
            throw ct::UsageError("GPU " + std::to_string(devices_[i]) + " does not exist (" +
                                 std::to_string(available) + " CUDA devices)");
        }
        if (std::count(devices_.begin(), devices_.end(), devices_[i]) > 1) {
            throw ct::UsageError("GPU " + std::to_string(devices_[i]) + " is listed twice");
        }
    }
    const int n = size();
    peer_.assign(static_cast<std::size_t>(n) * n, 0);
    enabled_by_us_.assign(peer_.size(), 0);
    for (int i = 0; i < n; ++i) {
        const DeviceGuard guard(devices_[i]);
        cudaStream_t stream = nullptr;
        // Blocking (chapter 6): work here waits for what the legacy default stream of the same
        // GPU holds, which is where cudaMemset and cudaMemcpy go. A non-blocking stream would let
        // a kernel start before the poison cudaMemset or the DMA of a cudaMemcpy from pageable
        // memory had finished: our first run on two H200s read half-poisoned buffers that way.
        CT_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamDefault));
        streams_.push_back(stream);
        for (int j = 0; j < n; ++j) {
            if (i == j) {
                peer_[i * n + j] = 1;  // a GPU always reaches its own memory
                continue;
            }
            int can = 0;
            CT_CHECK(cudaDeviceCanAccessPeer(&can, devices_[i], devices_[j]));
            if (!can || !enable_peer_access) {
                continue;
            }
            const cudaError_t status = cudaDeviceEnablePeerAccess(devices_[j], 0);
            if (status == cudaErrorPeerAccessAlreadyEnabled) {
                // Enabled earlier in this process (by another set, or NCCL): usable, and not ours
                // to undo. Sets in this chapter are nested, never interleaved, so the set that
                // enabled it outlives this one.
                cudaGetLastError();
            } else if (status != cudaSuccess) {
                // e.g. cudaErrorTooManyPeers (a GPU reaches at most 8 peers): treat the pair as
                // having no peer access; the stages that need it are skipped with a note.
                cudaGetLastError();
                continue;
            } else {
                enabled_by_us_[i * n + j] = 1;
            }
            peer_[i * n + j] = 1;
        }
    }
}

GpuSet::~GpuSet() {
    nccl_.reset();  // communicators use the streams' devices: release them first
    const int n = size();
    for (int i = 0; i < n; ++i) {
        if (cudaSetDevice(devices_[i]) != cudaSuccess) {
            continue;
        }
        cudaStreamSynchronize(streams_[i]);
        cudaStreamDestroy(streams_[i]);
        for (int j = 0; j < n; ++j) {
            if (enabled_by_us_[i * n + j]) {
                cudaDeviceDisablePeerAccess(devices_[j]);
            }
        }
    }
    cudaSetDevice(devices_[0]);
}

bool GpuSet::peer_enabled(int reader, int owner) const {
    return peer_[static_cast<std::size_t>(reader) * size() + owner] != 0;
}

bool GpuSet::all_peers_enabled() const {
    return std::all_of(peer_.begin(), peer_.end(), [](char c) { return c != 0; });
}

void GpuSet::synchronize() const {
    for (int i = 0; i < size(); ++i) {
        const DeviceGuard guard(devices_[i]);
        CT_CHECK(cudaStreamSynchronize(streams_[i]));
    }
}

void GpuSet::synchronize_devices() const {
    for (int i = 0; i < size(); ++i) {
        const DeviceGuard guard(devices_[i]);
        CT_CHECK(cudaDeviceSynchronize());
    }
}

const detail::NcclComms& GpuSet::nccl() const {
    if (!nccl_) {
        nccl_ = detail::make_nccl_comms(devices_);
    }
    return *nccl_;
}

GpuEvents::GpuEvents(const GpuSet& gpus) {
    for (int i = 0; i < gpus.size(); ++i) {
        const DeviceGuard guard(gpus.device(i));
        cudaEvent_t event = nullptr;
        CT_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        events_.push_back(event);
    }
}

GpuEvents::~GpuEvents() {
    for (cudaEvent_t event : events_) {
        cudaEventDestroy(event);
    }
}

ForkJoin::ForkJoin(const GpuSet& gpus) : gpus_(gpus), events_(gpus) {}

void ForkJoin::fork() const {
    if (gpus_.size() == 1) {
        return;
    }
    // An event may be waited on from a stream of any device: that is how GPUs wait for each
    // other without the host in the loop.
    const DeviceGuard guard(gpus_.device(0));
    CT_CHECK(cudaEventRecord(events_[0], gpus_.stream(0)));
    for (int i = 1; i < gpus_.size(); ++i) {
        CT_CHECK(cudaStreamWaitEvent(gpus_.stream(i), events_[0], 0));
    }
}

void ForkJoin::join() const {
    for (int i = 1; i < gpus_.size(); ++i) {
        const DeviceGuard guard(gpus_.device(i));
        CT_CHECK(cudaEventRecord(events_[i], gpus_.stream(i)));
        CT_CHECK(cudaStreamWaitEvent(gpus_.stream(0), events_[i], 0));
    }
}

std::vector<PeerInfo> query_peers(const std::vector<int>& devices) {
    std::vector<PeerInfo> pairs;
    for (int from : devices) {
        for (int to : devices) {
            if (from == to) {
                continue;
            }
            PeerInfo info;
            info.from = from;
            info.to = to;
            int value = 0;
            CT_CHECK(cudaDeviceCanAccessPeer(&value, from, to));
            info.can_access = value != 0;
            CT_CHECK(cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrPerformanceRank, from, to));
            info.performance_rank = value;
            CT_CHECK(
                cudaDeviceGetP2PAttribute(&value, cudaDevP2PAttrNativeAtomicSupported, from, to));
            info.native_atomics = value != 0;
            pairs.push_back(info);
        }
    }
    return pairs;
}

}  // namespace multi_gpu
