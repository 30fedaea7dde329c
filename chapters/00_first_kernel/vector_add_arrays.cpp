// The vector add's arrays with their canaries, shared by the program and its tests.
#include "cudatutorial/data.hpp"
#include "first_kernel.hpp"

namespace first_kernel {

namespace ct = cudatutorial;

VectorAddArrays::VectorAddArrays(std::size_t count, std::size_t canary, std::uint64_t seed)
    : a(ct::random_floats(count, seed, -1.0f, 1.0f)),
      b(ct::random_floats(count, seed + 1, -1.0f, 1.0f)),
      n(count) {
    a.resize(count + canary, 0.0f);
    b.resize(count + canary, 0.0f);
    d_a = ct::DeviceBuffer<float>(a);
    d_b = ct::DeviceBuffer<float>(b);
    d_c = ct::DeviceBuffer<float>(count + canary);
}

ct::Verification VectorAddArrays::run(const AddStage& stage, int block, int grid) {
    d_c.fill_bytes(0xff);
    stage.launch(d_a.data(), d_b.data(), d_c.data(), n, block, grid, nullptr);
    return verify();
}

ct::Verification VectorAddArrays::verify() const {
    return verify_vector_add(a, b, d_c.to_host(), n);
}

}  // namespace first_kernel
