// Multiplier: runs one stage, or cuBLAS, on device matrices (matmul.hpp).
#include <memory>
#include <stdexcept>
#include <string>

#include "matmul.hpp"
#include "stages/cublas_baseline.hpp"
#include "stages/matmul_launchers.hpp"

namespace matmul {

struct Multiplier::Impl {
    const StageInfo* stage = nullptr;
    Shape shape;
    int candidate = -1;
    std::unique_ptr<detail::CublasGemm> cublas;  // the cuBLAS rows only
};

Multiplier::Multiplier(const std::string& stage_id, const Shape& shape, int candidate)
    : impl_(std::make_unique<Impl>()) {
    impl_->stage = find_stage(stage_id);
    if (impl_->stage == nullptr) {
        throw std::invalid_argument("'" + stage_id + "' is not a stage");
    }
    if (candidate < -1 || candidate >= tuning_candidates() ||
        (candidate >= 0 && !impl_->stage->uses_tuner)) {
        throw std::invalid_argument("stage " + stage_id + " has no candidate " +
                                    std::to_string(candidate));
    }
    validate_shape(shape);
    impl_->shape = shape;
    impl_->candidate = candidate;
    if (impl_->stage->launch == nullptr && impl_->stage->launch_bf16 == nullptr) {
        impl_->cublas = std::make_unique<detail::CublasGemm>(impl_->stage->precision, shape);
    }
}

Multiplier::~Multiplier() = default;

namespace {

/// A launcher's arguments (LaunchArgs or Bf16LaunchArgs): the matrices, the shape, the stream.
template <class Args, class In, class Out>
Args launch_args(const In* a, const In* b, Out* c, const Shape& shape, cudaStream_t stream) {
    Args args;
    args.a = a;
    args.b = b;
    args.c = c;
    args.m = static_cast<int>(shape.m);
    args.n = static_cast<int>(shape.n);
    args.k = static_cast<int>(shape.k);
    args.stream = stream;
    return args;
}

}  // namespace

void Multiplier::run(const float* a, const float* b, float* c, cudaStream_t stream) const {
    auto args = launch_args<detail::LaunchArgs>(a, b, c, impl_->shape, stream);
    args.candidate = impl_->candidate;
    if (impl_->cublas) {
        impl_->cublas->run(args);  // throws for the BF16 row
    } else if (impl_->stage->launch != nullptr) {
        impl_->stage->launch(args);
    } else {
        throw std::logic_error("stage " + impl_->stage->id + " is given FP32 operands");
    }
}

void Multiplier::run(const Bf16* a, const Bf16* b, Bf16* c, cudaStream_t stream) const {
    const auto args = launch_args<detail::Bf16LaunchArgs>(a, b, c, impl_->shape, stream);
    if (impl_->cublas) {
        impl_->cublas->run(args);  // throws for the FP32 rows
    } else if (impl_->stage->launch_bf16 != nullptr) {
        impl_->stage->launch_bf16(args);
    } else {
        throw std::logic_error("stage " + impl_->stage->id + " is given BF16 operands");
    }
}

const StageInfo& Multiplier::stage() const {
    return *impl_->stage;
}

const Shape& Multiplier::shape() const {
    return impl_->shape;
}

int Multiplier::candidate() const {
    return impl_->candidate;
}

int tuning_candidates() {
    return detail::warp_tiling_candidates();
}

std::string tuning_candidate_name(int index) {
    return detail::warp_tiling_candidate_name(index);
}

std::string Multiplier::math_mode() const {
    return impl_->cublas ? impl_->cublas->math_mode() : std::string();
}

}  // namespace matmul
