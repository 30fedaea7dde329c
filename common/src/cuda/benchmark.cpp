#include "cudatutorial/benchmark.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <numeric>
#include <stdexcept>

#include <nvtx3/nvToolsExt.h>  // header-only NVTX 3, from the CUDA toolkit

#include "cudatutorial/check.hpp"
#include "cudatutorial/clocks.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"

namespace cudatutorial {

ResultRow make_row(const std::string& id, const std::string& name, const Measurement& measurement,
                   double bytes) {
    ResultRow row;
    row.id = id;
    row.name = name;
    row.timed = true;
    row.stats = measurement.stats;
    row.bytes = bytes;
    row.passed = measurement.passed();
    row.detail = measurement.failure_detail();
    return row;
}

void apply_hooks(const StageHooks& hooks, ResultRow& row) {
    if (hooks.extras) {
        hooks.extras(row);
    }
    if (!hooks.group.empty()) {
        row.group = hooks.group;
    }
}

ResultRow time_stage(const StageDescriptor& stage, const StageHooks& hooks,
                     const BenchmarkConfig& base_config) {
    if (static_cast<bool>(hooks.launch) == static_cast<bool>(hooks.round_trip) ||
        (hooks.setup_each_sample && !hooks.launch)) {
        throw std::logic_error("stage " + stage.id + " " + stage.name +
                               ": its hooks must set one of launch and round_trip (and "
                               "setup_each_sample only with launch)");
    }
    BenchmarkConfig config = base_config;
    if (hooks.adjust_timing) {
        hooks.adjust_timing(config);
    }
    if (config.label.empty()) {
        config.label = "stage " + stage.id + " " + stage.name;
    }
    if (hooks.poison) {
        hooks.poison();
    }
    const Measurement measurement =
        hooks.round_trip ? measure_round_trip(hooks.round_trip, hooks.verify, config)
        : hooks.setup_each_sample
            ? measure_after_setup(hooks.setup_each_sample, hooks.launch, hooks.verify, config)
            : measure(hooks.launch, hooks.verify, config);
    return reported_row(stage, hooks, measurement);
}

ResultRow reported_row(const StageDescriptor& stage, const StageHooks& hooks,
                       const Measurement& measurement) {
    ResultRow row = make_row(stage.id, stage.name, measurement, hooks.bytes);
    apply_stage(stage, row);
    apply_hooks(hooks, row);
    return row;
}

std::string Measurement::failure_detail() const {
    if (!before.passed) {
        return before.detail;
    }
    if (!after.passed) {
        return "after repeated runs: " + after.detail;
    }
    return {};
}

namespace detail {
void launch_stream_hold(const int* release, unsigned long long timeout_ns, int* timed_out,
                        cudaStream_t stream);
}  // namespace detail

namespace {

// An NVTX range open for the lifetime of the object (none for an empty name), so that a timeline
// names what ran; push and pop cost almost nothing unless a tool such as Nsight Systems listens.
class NvtxRange {
  public:
    explicit NvtxRange(const std::string& name) : open_(!name.empty()) {
        if (open_) {
            nvtxRangePushA(name.c_str());
        }
    }
    ~NvtxRange() {
        if (open_) {
            nvtxRangePop();
        }
    }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;

  private:
    bool open_;
};

// Two ints of mapped, page-locked host memory that the hold kernel reads (release) and writes
// (timed_out), through the device pointer the runtime gives for them.
class StreamHold {
  public:
    explicit StreamHold(cudaStream_t stream) : stream_of_hold_(stream) {
        CT_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&flags_), 2 * sizeof(int),
                               cudaHostAllocMapped | cudaHostAllocPortable));
        flags_[0] = 0;
        flags_[1] = 0;
        int* device_flags = nullptr;
        CT_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags_, 0));
        constexpr unsigned long long kTimeoutNs = 2'000'000'000ull;  // queuing takes milliseconds
        detail::launch_stream_hold(device_flags, kTimeoutNs, device_flags + 1, stream);
    }
    ~StreamHold() {
        release();  // also on an exception while queuing: never leave the kernel spinning
        cudaStreamSynchronize(stream_of_hold_);
        cudaFreeHost(flags_);
    }
    StreamHold(const StreamHold&) = delete;
    StreamHold& operator=(const StreamHold&) = delete;
    void release() {
        std::atomic_thread_fence(std::memory_order_seq_cst);
        reinterpret_cast<volatile int*>(flags_)[0] = 1;
    }
    bool timed_out() const { return reinterpret_cast<volatile int*>(flags_)[1] != 0; }

  private:
    int* flags_ = nullptr;
    cudaStream_t stream_of_hold_ = nullptr;
};

}  // namespace

Stats time_repeated(const LaunchFunction& launch, const BenchmarkConfig& config) {
    if (config.repetitions < 1 || config.warmup < 0 || config.calls_per_sample < 1) {
        throw std::invalid_argument(
            "time_repeated: repetitions and calls_per_sample must be >= 1, warmup >= 0");
    }
    if (config.flush_l2 && config.calls_per_sample > 1) {
        throw std::invalid_argument("time_repeated: flush_l2 times one call per sample only");
    }
    std::unique_ptr<L2Flusher> flusher;
    if (config.flush_l2) {
        flusher = std::make_unique<L2Flusher>();
    }
    for (int i = 0; i < config.warmup; ++i) {
        launch(config.stream);
    }
    CT_CHECK(cudaStreamSynchronize(config.stream));

    // All repetitions are enqueued back to back, each between its own pair of events, and the
    // host waits once at the end. Each start event then fires when the previous repetition ends,
    // with the next launch already queued, so a sample is the GPU's time for the work alone.
    // (Waiting for every stop event before recording the next start would leave the GPU idle at
    // each start: the sample would then include the host's launch latency, a few microseconds,
    // which is 5-10% of a 50 us kernel.) The first start event has no previous repetition to
    // wait for: the hold keeps the stream busy until everything is queued, so it does not fire
    // early either.
    std::vector<CudaEvent> starts(config.repetitions);
    std::vector<CudaEvent> stops(config.repetitions);
    const NvtxRange range(config.label);  // the timed runs, queued and waited for
    std::unique_ptr<StreamHold> hold;
    if (config.hold_stream) {
        hold = std::make_unique<StreamHold>(config.stream);
    }
    for (int i = 0; i < config.repetitions; ++i) {
        if (flusher) {
            flusher->flush(config.stream);
        }
        starts[i].record(config.stream);
        for (int call = 0; call < config.calls_per_sample; ++call) {
            launch(config.stream);
        }
        stops[i].record(config.stream);
    }
    if (hold) {
        hold->release();
    }
    observe_clocks();  // the GPU is running the batch now: its clocks are the ones that count
    stops.back().synchronize();
    if (hold && hold->timed_out()) {
        std::cerr << "warning: the timing harness's stream hold timed out (the launch function "
                     "waits on the host?): the first samples may include host time\n";
    }
    std::vector<double> samples;
    samples.reserve(config.repetitions);
    for (int i = 0; i < config.repetitions; ++i) {
        samples.push_back(stops[i].elapsed_ms_since(starts[i]) / config.calls_per_sample);
    }
    return summarize(std::move(samples));
}

namespace detail {
void launch_empty_kernel(cudaStream_t stream);
}  // namespace detail

Stats launch_floor(const BenchmarkConfig& config) {
    BenchmarkConfig floor = config;
    floor.flush_l2 = false;  // an empty kernel reads nothing
    floor.label = "launch floor";
    return time_repeated([](cudaStream_t stream) { detail::launch_empty_kernel(stream); }, floor);
}

namespace {

// The host's clock around one call, in milliseconds.
double time_one_call(const RoundTripFunction& call) {
    const auto start = std::chrono::steady_clock::now();
    call();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

Stats time_round_trips(const RoundTripFunction& call, const BenchmarkConfig& config) {
    if (config.repetitions < 1 || config.warmup < 0) {
        throw std::invalid_argument("measure_round_trip: repetitions must be >= 1, warmup >= 0");
    }
    for (int i = 0; i < config.warmup; ++i) {
        call();
    }
    const NvtxRange range(config.label);
    std::vector<double> samples;
    samples.reserve(config.repetitions);
    for (int i = 0; i < config.repetitions; ++i) {
        samples.push_back(time_one_call(call));
        if (i % 64 == 0) {
            observe_clocks();  // between samples: NVML's call is never timed
        }
    }
    return summarize(std::move(samples));
}

}  // namespace

Measurement measure_round_trip(const RoundTripFunction& call, const VerifyFunction& verify,
                               const BenchmarkConfig& config) {
    Measurement result;
    call();
    result.before = verify();
    result.stats = time_round_trips(call, config);
    result.after = verify();
    return result;
}

Stats round_trip_floor(const BenchmarkConfig& config) {
    BenchmarkConfig floor = config;
    floor.label = "round-trip floor";
    const cudaStream_t stream = config.stream;
    return time_round_trips(
        [stream] {
            detail::launch_empty_kernel(stream);
            CT_CHECK(cudaStreamSynchronize(stream));
        },
        floor);
}

Measurement measure(const LaunchFunction& launch, const VerifyFunction& verify,
                    const BenchmarkConfig& config) {
    Measurement result;
    launch(config.stream);
    CT_CHECK(cudaStreamSynchronize(config.stream));
    result.before = verify();
    result.stats = time_repeated(launch, config);
    CT_CHECK(cudaDeviceSynchronize());
    result.after = verify();
    return result;
}

Measurement measure_after_setup(const SetupFunction& setup, const LaunchFunction& launch,
                                const VerifyFunction& verify, const BenchmarkConfig& config) {
    if (config.repetitions < 1 || config.warmup < 0) {
        throw std::invalid_argument("measure_after_setup: repetitions must be >= 1, warmup >= 0");
    }
    std::unique_ptr<L2Flusher> flusher;
    if (config.flush_l2) {
        flusher = std::make_unique<L2Flusher>();
    }
    CudaEvent start;
    CudaEvent stop;
    const auto sample = [&] {
        setup(config.stream);
        CT_CHECK(cudaStreamSynchronize(config.stream));
        if (flusher) {
            flusher->flush(config.stream);
        }
        // The stream is idle, so the start event fires at once and the few microseconds the host
        // takes to issue `launch` count too: small against the copies or faults this is for.
        start.record(config.stream);
        launch(config.stream);
        stop.record(config.stream);
        stop.synchronize();
        return static_cast<double>(stop.elapsed_ms_since(start));
    };
    Measurement result;
    sample();
    result.before = verify();
    for (int i = 0; i < config.warmup; ++i) {
        sample();
    }
    const NvtxRange range(config.label);
    std::vector<double> samples;
    samples.reserve(static_cast<std::size_t>(config.repetitions));
    for (int i = 0; i < config.repetitions; ++i) {
        samples.push_back(sample());
        if (i % 64 == 0) {
            observe_clocks();  // between samples: NVML's call is never timed
        }
    }
    result.after = verify();
    result.stats = summarize(std::move(samples));
    return result;
}

namespace detail {
void launch_l2_read_sweep(const void* buffer, std::size_t bytes, int* sink, cudaStream_t stream);
}  // namespace detail

L2Flusher::L2Flusher() {
    int device = 0;
    int l2_bytes = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    bytes_ = 2 * static_cast<std::size_t>(std::max(l2_bytes, 1 << 20));
    buffer_ = detail::allocate_device_bytes(bytes_ + sizeof(int4));
    // Written once here, read (not written) by every flush: see l2_flush.cu.
    CT_CHECK(cudaMemset(buffer_, 0x5a, bytes_ + sizeof(int4)));
}

L2Flusher::~L2Flusher() {
    detail::free_device_bytes(buffer_);
}

void L2Flusher::flush(cudaStream_t stream) {
    int* sink = reinterpret_cast<int*>(static_cast<char*>(buffer_) + bytes_);
    detail::launch_l2_read_sweep(buffer_, bytes_, sink, stream);
}

}  // namespace cudatutorial
