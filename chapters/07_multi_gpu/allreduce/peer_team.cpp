// The two ways a process sees the GPUs of an all-reduce (peer_team.hpp). The interesting one is
// RankTeam::share: how a process reaches memory another process allocated. cudaIpcGetMemHandle
// turns an allocation into 64 bytes that any process on the same machine can open; the ranks
// swap their handles with one ncclAllGather (the communicator is already there), and
// cudaIpcOpenMemHandle maps each peer's allocation into this process's address space, where the
// kernels load and store it like any peer memory. Across machines there is no such mapping:
// that is where these stages stop and NCCL's network transports take over (README).
#include "peer_team.hpp"

#include <cstring>

#include "cudatutorial/check.hpp"
#include "cudatutorial/device_buffer.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

// ---- One process ------------------------------------------------------------------------------

namespace {
class DirectBuffers final : public SharedBuffers {
  public:
    DirectBuffers(const std::vector<void*>& mine, int local_gpus) {
        pointers_.assign(local_gpus, mine);  // the same address means the same memory everywhere
    }
};
}  // namespace

OneProcessTeam::OneProcessTeam(const GpuSet& gpus) : gpus_(gpus), order_(gpus) {}

std::shared_ptr<SharedBuffers> OneProcessTeam::share(const std::vector<void*>& mine) {
    return std::make_shared<DirectBuffers>(mine, gpus_.size());
}

// ---- One process per GPU ----------------------------------------------------------------------

namespace {
class IpcBuffers final : public SharedBuffers {
  public:
    IpcBuffers(const std::vector<cudaIpcMemHandle_t>& handles, int rank, void* mine) {
        std::vector<void*> row(handles.size(), nullptr);
        for (std::size_t p = 0; p < handles.size(); ++p) {
            if (static_cast<int>(p) == rank) {
                row[p] = mine;
                continue;
            }
            // LazyEnablePeerAccess: the driver enables peer access to the owner's GPU for us.
            CT_CHECK(
                cudaIpcOpenMemHandle(&row[p], handles[p], cudaIpcMemLazyEnablePeerAccess));
            opened_.push_back(row[p]);
        }
        pointers_.push_back(row);
    }
    ~IpcBuffers() override {
        for (void* pointer : opened_) {
            cudaIpcCloseMemHandle(pointer);  // a destructor must not throw
        }
    }

  private:
    std::vector<void*> opened_;
};
}  // namespace

RankTeam::RankTeam(int rank, int ranks, int device, cudaStream_t stream,
                   std::shared_ptr<detail::NcclComms> comm)
    : rank_(rank), ranks_(ranks), device_(device), stream_(stream), comm_(std::move(comm)) {}

std::shared_ptr<SharedBuffers> RankTeam::share(const std::vector<void*>& mine) {
    cudaIpcMemHandle_t handle;
    CT_CHECK(cudaIpcGetMemHandle(&handle, mine.at(0)));
    const std::size_t size = sizeof(cudaIpcMemHandle_t);
    ct::DeviceBuffer<unsigned char> send(size);
    ct::DeviceBuffer<unsigned char> gathered(size * ranks_);
    send.copy_from_host(reinterpret_cast<const unsigned char*>(&handle), size);
    CT_CHECK(cudaDeviceSynchronize());
    detail::nccl_allgather_bytes(*comm_, send.data(), gathered.data(), size, stream_);
    CT_CHECK(cudaStreamSynchronize(stream_));
    const std::vector<unsigned char> bytes = gathered.to_host();
    std::vector<cudaIpcMemHandle_t> handles(ranks_);
    for (int p = 0; p < ranks_; ++p) {
        std::memcpy(&handles[p], bytes.data() + p * size, size);
    }
    return std::make_shared<IpcBuffers>(handles, rank_, mine.at(0));
}

void RankTeam::agree_on_max(std::vector<double>& values) {
    if (values.empty()) {
        return;
    }
    ct::DeviceBuffer<double> buffer(values.size());
    buffer.copy_from_host(values.data(), values.size());
    CT_CHECK(cudaDeviceSynchronize());
    detail::nccl_allreduce(*comm_, {stream_}, {buffer.data()}, {buffer.data()}, values.size(),
                           detail::NcclType::kDouble, detail::NcclOp::kMax);
    CT_CHECK(cudaStreamSynchronize(stream_));
    buffer.copy_to_host(values.data(), values.size());
}

void RankTeam::barrier() {
    std::vector<double> token{1.0};
    agree_on_max(token);
}

}  // namespace multi_gpu
