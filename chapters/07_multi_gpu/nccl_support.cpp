// NCCL calls, checked like CUDA calls. Built with CT_HAVE_NCCL where CMake found NCCL; otherwise
// every entry point says the build has no NCCL (exit code 2, before any GPU work of its own).
#include "nccl_support.hpp"

#include "cudatutorial/check.hpp"
#include "multi_gpu.hpp"

#if CT_HAVE_NCCL
#include <nccl.h>
#endif

namespace ct = cudatutorial;

namespace multi_gpu {

#if CT_HAVE_NCCL

namespace detail {
namespace {

void check_nccl(ncclResult_t result, const char* expression) {
    if (result != ncclSuccess) {
        throw ct::CudaError(cudaErrorUnknown, std::string("NCCL call failed: ") + expression +
                                                  ": " + ncclGetErrorString(result) + " (" +
                                                  ncclGetLastError(nullptr) + ")");
    }
}
#define CT_NCCL(call) check_nccl((call), #call)

ncclDataType_t to_nccl(NcclType type) {
    switch (type) {
        case NcclType::kFloat: return ncclFloat;
        case NcclType::kUint32: return ncclUint32;
        case NcclType::kDouble: return ncclDouble;
        case NcclType::kByte: return ncclUint8;
    }
    return ncclUint8;
}

ncclRedOp_t to_nccl(NcclOp op) {
    switch (op) {
        case NcclOp::kSum: return ncclSum;
        case NcclOp::kMin: return ncclMin;
        case NcclOp::kMax: return ncclMax;
    }
    return ncclSum;
}

}  // namespace

struct NcclComms {
    std::vector<ncclComm_t> comms;
    ~NcclComms() {
        for (ncclComm_t comm : comms) {
            ncclCommDestroy(comm);
        }
    }
};

std::shared_ptr<NcclComms> make_nccl_comms(const std::vector<int>& devices) {
    auto comms = std::make_shared<NcclComms>();
    comms->comms.resize(devices.size());
    CT_NCCL(ncclCommInitAll(comms->comms.data(), static_cast<int>(devices.size()), devices.data()));
    return comms;
}

std::string make_nccl_unique_id() {
    ncclUniqueId id;
    CT_NCCL(ncclGetUniqueId(&id));
    return std::string(id.internal, sizeof(id.internal));
}

std::shared_ptr<NcclComms> make_nccl_rank_comm(const std::string& unique_id, int ranks, int rank) {
    ncclUniqueId id;
    if (unique_id.size() != sizeof(id.internal)) {
        throw ct::UsageError("NCCL unique id has the wrong size");
    }
    std::copy(unique_id.begin(), unique_id.end(), id.internal);
    auto comms = std::make_shared<NcclComms>();
    comms->comms.resize(1);
    CT_NCCL(ncclCommInitRank(&comms->comms[0], ranks, id, rank));
    return comms;
}

void nccl_allreduce(const NcclComms& comms, const std::vector<cudaStream_t>& streams,
                    const std::vector<const void*>& send, const std::vector<void*>& recv,
                    std::size_t count, NcclType type, NcclOp op) {
    // Several communicators driven from one thread must be grouped, or the first call would
    // wait for peers whose calls have not been issued yet.
    CT_NCCL(ncclGroupStart());
    for (std::size_t i = 0; i < comms.comms.size(); ++i) {
        CT_NCCL(ncclAllReduce(send[i], recv[i], count, to_nccl(type), to_nccl(op),
                              comms.comms[i], streams[i]));
    }
    CT_NCCL(ncclGroupEnd());
}

void nccl_allgather_bytes(const NcclComms& comm, const void* send, void* recv, std::size_t bytes,
                          cudaStream_t stream) {
    CT_NCCL(ncclAllGather(send, recv, bytes, ncclUint8, comm.comms.at(0), stream));
}

}  // namespace detail

bool nccl_available() {
    return true;
}

std::string nccl_version() {
    int version = 0;
    if (ncclGetVersion(&version) != ncclSuccess) {
        return "unknown";
    }
    // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
    return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
           std::to_string(version % 100);
}

#else  // no NCCL in this build

namespace detail {
namespace {
[[noreturn]] void no_nccl() {
    throw ct::UsageError(
        "this build has no NCCL (CMake did not find nccl.h and libnccl): install NCCL "
        "(libnccl-dev) and reconfigure");
}
}  // namespace

struct NcclComms {};

std::shared_ptr<NcclComms> make_nccl_comms(const std::vector<int>&) {
    no_nccl();
}
std::string make_nccl_unique_id() {
    no_nccl();
}
std::shared_ptr<NcclComms> make_nccl_rank_comm(const std::string&, int, int) {
    no_nccl();
}
void nccl_allreduce(const NcclComms&, const std::vector<cudaStream_t>&,
                    const std::vector<const void*>&, const std::vector<void*>&, std::size_t,
                    NcclType, NcclOp) {
    no_nccl();
}
void nccl_allgather_bytes(const NcclComms&, const void*, void*, std::size_t, cudaStream_t) {
    no_nccl();
}
}  // namespace detail

bool nccl_available() {
    return false;
}

std::string nccl_version() {
    return "not built with NCCL";
}

#endif

}  // namespace multi_gpu
