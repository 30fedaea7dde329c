#include "cudatutorial/cuda_handles.hpp"

#include "cudatutorial/check.hpp"

namespace cudatutorial {

CudaStream::CudaStream(unsigned int flags) {
    CT_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
}

CudaStream::~CudaStream() {
    if (stream_) {
        cudaStreamDestroy(stream_);  // a destructor must not throw
    }
}

void CudaStream::synchronize() const {
    CT_CHECK(cudaStreamSynchronize(stream_));
}

CudaEvent::CudaEvent(unsigned int flags) {
    CT_CHECK(cudaEventCreateWithFlags(&event_, flags));
}

CudaEvent::~CudaEvent() {
    if (event_) {
        cudaEventDestroy(event_);
    }
}

void CudaEvent::record(cudaStream_t stream) {
    CT_CHECK(cudaEventRecord(event_, stream));
}

void CudaEvent::synchronize() const {
    CT_CHECK(cudaEventSynchronize(event_));
}

float CudaEvent::elapsed_ms_since(const CudaEvent& start) const {
    float ms = 0.0f;
    CT_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
}

}  // namespace cudatutorial
