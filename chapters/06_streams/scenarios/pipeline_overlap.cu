// Scenario 8: the copy/compute pipeline (the idea and what to look for: pipeline_overlap.hpp).
// Compiled once, not in both builds like the other scenario files: it uses created non-blocking
// streams only, never stream 0, so the --default-stream setting could not change anything here.
//
// How the timeline is measured. Each kernel's blocks read %globaltimer (the chapter's clock) at
// their start and end; the kernel's span is the earliest start and the latest end. A copy has no
// such clock: it is bracketed by two CUDA events in its stream, "ready" (its stream reached it)
// and "done". Event times are only known relative to each other, so they are moved onto the
// %globaltimer axis by an offset that the kernels pin down: the event just before a kernel in its
// stream completes no later than the kernel starts, the one just after it no earlier than it
// ends (pipeline_plan.hpp, bracket_clock_offset). The program prints how tight that bracket was.
#include "pipeline_overlap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_clocks.cuh"
#include "cudatutorial/device_info.hpp"
#include "worker_output.hpp"

namespace streams::pipeline {

namespace ct = cudatutorial;

namespace {

/// Earliest block start and latest block end of one kernel (%globaltimer, ns).
struct KernelSpan {
    unsigned long long start_ns;
    unsigned long long end_ns;
};

using cudatutorial::global_timer_ns;

constexpr unsigned kThreads = 256;

/// `rounds` dependent steps of x -> a x + b per element: the time grows with rounds, the bytes
/// stay 4 in and 4 out, so rounds sets how long the kernel takes against the copies. The loop
/// cannot be shortened by the compiler: a, b and rounds are only known at run time.
__global__ void affine_rounds(const std::uint32_t* in, std::uint32_t* out, std::size_t count,
                              std::uint32_t a, std::uint32_t b, std::uint32_t rounds,
                              KernelSpan* span) {
    unsigned long long start = 0;
    if (span != nullptr && threadIdx.x == 0) {
        start = global_timer_ns();
    }
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += stride) {
        std::uint32_t x = in[i];
        for (std::uint32_t r = 0; r < rounds; ++r) {
            x = a * x + b;
        }
        out[i] = x;
    }
    if (span != nullptr) {
        __syncthreads();  // the recorded end comes after every thread's last store
        if (threadIdx.x == 0) {
            atomicMin(&span->start_ns, start);
            atomicMax(&span->end_ns, global_timer_ns());
        }
    }
}

std::uint32_t input_value(std::size_t i) {
    return expected_output(0x7e57u, 7, static_cast<std::uint32_t>(i));
}

void check_launch(const char* file, int line) {
    // Not CT_CHECK_LAUNCH: in Debug builds it synchronizes the device, which would serialize
    // exactly the streams whose overlap this scenario measures.
    ct::check_cuda(cudaGetLastError(), "kernel launch", file, line);
}

}  // namespace

struct Runner::State {
    std::size_t n = 0;
    int max_chunks = 0;
    std::uint32_t rounds = 1;
    unsigned blocks_cap = 0;
    ct::PinnedBuffer<std::uint32_t> host_in;
    ct::PinnedBuffer<std::uint32_t> host_out;
    ct::DeviceBuffer<std::uint32_t> device_in;
    ct::DeviceBuffer<std::uint32_t> device_out;
    ct::DeviceBuffer<KernelSpan> spans;
    std::vector<ct::CudaStream> streams;
    std::vector<ct::CudaEvent> joins;  // one per chunk stream, ordering only
    ct::CudaEvent fork{cudaEventDisableTiming};
    // Timing events of an instrumented pass: a reference, then four per chunk.
    ct::CudaEvent reference;
    std::vector<ct::CudaEvent> in_ready, in_done, out_ready, out_done;

    void launch_kernel(const Chunk& chunk, cudaStream_t stream, std::uint32_t addend,
                       KernelSpan* span) {
        const auto wanted = (chunk.count + kThreads - 1) / kThreads;
        const auto blocks = static_cast<unsigned>(std::min<std::size_t>(wanted, blocks_cap));
        affine_rounds<<<blocks, kThreads, 0, stream>>>(
            device_in.data() + chunk.offset, device_out.data() + chunk.offset, chunk.count,
            kMultiplier, addend, rounds, span);
        check_launch(__FILE__, __LINE__);
    }
    void copy_in(const Chunk& chunk, cudaStream_t stream) {
        CT_CHECK(cudaMemcpyAsync(device_in.data() + chunk.offset, host_in.data() + chunk.offset,
                                 chunk.count * sizeof(std::uint32_t), cudaMemcpyHostToDevice,
                                 stream));
    }
    void copy_out(const Chunk& chunk, cudaStream_t stream) {
        CT_CHECK(cudaMemcpyAsync(host_out.data() + chunk.offset, device_out.data() + chunk.offset,
                                 chunk.count * sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                 stream));
    }
};

Runner::Runner(std::size_t n, int max_chunks, std::uint32_t rounds) : state_(new State) {
    if (n == 0 || max_chunks < 1) {
        throw std::invalid_argument("pipeline::Runner: n >= 1 and max_chunks >= 1");
    }
    State& s = *state_;
    s.n = n;
    s.max_chunks = max_chunks;
    s.rounds = rounds;
    int device = 0;
    int sms = 0;
    CT_CHECK(cudaGetDevice(&device));
    CT_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    // Enough blocks to fill the GPU several times over; beyond that a grid-stride loop.
    s.blocks_cap = static_cast<unsigned>(std::max(1, sms) * 16);
    s.host_in = ct::PinnedBuffer<std::uint32_t>(n);
    s.host_out = ct::PinnedBuffer<std::uint32_t>(n);
    s.device_in = ct::DeviceBuffer<std::uint32_t>(n);
    s.device_out = ct::DeviceBuffer<std::uint32_t>(n);
    s.spans = ct::DeviceBuffer<KernelSpan>(static_cast<std::size_t>(max_chunks));
    for (std::size_t i = 0; i < n; ++i) {
        s.host_in[i] = input_value(i);
    }
    // Poisoned: an element no copy-out reached cannot match (addends change every pass anyway).
    std::fill(s.host_out.begin(), s.host_out.end(), 0xffffffffu);
    CT_CHECK(cudaMemset(s.device_in.data(), 0xff, s.device_in.bytes()));
    CT_CHECK(cudaMemset(s.device_out.data(), 0xff, s.device_out.bytes()));
    CT_CHECK(cudaDeviceSynchronize());
    for (int c = 0; c < max_chunks; ++c) {
        s.streams.emplace_back(cudaStreamNonBlocking);
        s.joins.emplace_back(cudaEventDisableTiming);
        s.in_ready.emplace_back();
        s.in_done.emplace_back();
        s.out_ready.emplace_back();
        s.out_done.emplace_back();
    }
}

Runner::~Runner() = default;

std::uint32_t Runner::rounds() const {
    return state_->rounds;
}

void Runner::set_rounds(std::uint32_t rounds) {
    state_->rounds = rounds;
}

void Runner::issue(Schedule schedule, int chunks, cudaStream_t stream, std::uint32_t addend,
                   bool instrument) {
    State& s = *state_;
    if (chunks < 1 || chunks > s.max_chunks) {
        throw std::invalid_argument("pipeline::Runner::issue: " + std::to_string(chunks) +
                                    " chunks, at most " + std::to_string(s.max_chunks));
    }
    const std::vector<Chunk> parts = split_chunks(s.n, chunks);
    const int used = schedule == Schedule::kOneStream ? 1 : chunks;
    if (instrument) {
        // Spans start at (max, 0) so that atomicMin/atomicMax keep the blocks' extremes.
        std::vector<KernelSpan> fresh(static_cast<std::size_t>(s.max_chunks),
                                      KernelSpan{~0ull, 0ull});
        CT_CHECK(cudaMemcpy(s.spans.data(), fresh.data(), s.spans.bytes(), cudaMemcpyHostToDevice));
        CT_CHECK(cudaEventRecord(s.reference.get(), stream));
    }
    CT_CHECK(cudaEventRecord(s.fork.get(), stream));
    for (int i = 0; i < used; ++i) {
        CT_CHECK(
            cudaStreamWaitEvent(s.streams[static_cast<std::size_t>(i)].get(), s.fork.get(), 0));
    }
    for (const Operation& op : issue_order(schedule, chunks)) {
        const auto c = static_cast<std::size_t>(op.chunk);
        const cudaStream_t on = s.streams[static_cast<std::size_t>(op.stream)].get();
        switch (op.stage) {
            case Stage::kCopyIn:
                if (instrument) {
                    CT_CHECK(cudaEventRecord(s.in_ready[c].get(), on));
                }
                s.copy_in(parts[c], on);
                if (instrument) {
                    CT_CHECK(cudaEventRecord(s.in_done[c].get(), on));
                }
                break;
            case Stage::kKernel:
                s.launch_kernel(parts[c], on, addend, instrument ? s.spans.data() + c : nullptr);
                if (instrument) {
                    CT_CHECK(cudaEventRecord(s.out_ready[c].get(), on));
                }
                break;
            case Stage::kCopyOut:
                s.copy_out(parts[c], on);
                if (instrument) {
                    CT_CHECK(cudaEventRecord(s.out_done[c].get(), on));
                }
                break;
        }
    }
    for (int i = 0; i < used; ++i) {
        const auto index = static_cast<std::size_t>(i);
        CT_CHECK(cudaEventRecord(s.joins[index].get(), s.streams[index].get()));
        CT_CHECK(cudaStreamWaitEvent(stream, s.joins[index].get(), 0));
    }
}

void Runner::issue_stage(Stage stage, cudaStream_t stream, std::uint32_t addend) {
    State& s = *state_;
    const Chunk whole{0, s.n};
    switch (stage) {
        case Stage::kCopyIn:
            s.copy_in(whole, stream);
            break;
        case Stage::kKernel:
            s.launch_kernel(whole, stream, addend, nullptr);
            break;
        case Stage::kCopyOut:
            s.copy_out(whole, stream);
            break;
    }
}

void Runner::issue_both_copies(cudaStream_t stream) {
    State& s = *state_;
    const Chunk whole{0, s.n};
    const cudaStream_t other = s.streams[0].get();
    CT_CHECK(cudaEventRecord(s.fork.get(), stream));
    CT_CHECK(cudaStreamWaitEvent(other, s.fork.get(), 0));
    s.copy_out(whole, other);
    s.copy_in(whole, stream);
    CT_CHECK(cudaEventRecord(s.joins[0].get(), other));
    CT_CHECK(cudaStreamWaitEvent(stream, s.joins[0].get(), 0));
}

ct::Verification Runner::verify(std::uint32_t addend) const {
    const State& s = *state_;
    const AffineSteps steps = compose_affine(kMultiplier, s.rounds);
    for (std::size_t i = 0; i < s.n; ++i) {
        const std::uint32_t want = steps.apply(input_value(i), addend);
        if (s.host_out[i] != want) {
            return ct::Verification::fail(
                "element " + std::to_string(i) + " of " + std::to_string(s.n) + " is " +
                std::to_string(s.host_out[i]) + ", expected " + std::to_string(want));
        }
    }
    return ct::Verification::pass();
}

ct::Verification Runner::verify_copy_in() const {
    const State& s = *state_;
    std::vector<std::uint32_t> got(s.n);
    CT_CHECK(
        cudaMemcpy(got.data(), s.device_in.data(), s.device_in.bytes(), cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < s.n; ++i) {
        if (got[i] != input_value(i)) {
            return ct::Verification::fail("copy in: element " + std::to_string(i) + " is wrong");
        }
    }
    return ct::Verification::pass();
}

Timeline Runner::timeline(Schedule schedule, int chunks) const {
    const State& s = *state_;
    const auto k = static_cast<std::size_t>(chunks);
    std::vector<KernelSpan> spans(k);
    CT_CHECK(
        cudaMemcpy(spans.data(), s.spans.data(), k * sizeof(KernelSpan), cudaMemcpyDeviceToHost));
    const auto since_reference = [&](const ct::CudaEvent& e) {
        float ms = 0.0f;
        CT_CHECK(cudaEventElapsedTime(&ms, s.reference.get(), e.get()));
        return static_cast<double>(ms);
    };
    std::vector<Interval> kernels(k);
    std::vector<double> before(k);
    std::vector<double> after(k);
    std::uint64_t origin = spans[0].start_ns;
    for (std::size_t c = 0; c < k; ++c) {
        kernels[c] = {spans[c].start_ns, spans[c].end_ns};
        before[c] = since_reference(s.in_done[c]);
        after[c] = since_reference(s.out_ready[c]);
        origin = std::min<std::uint64_t>(origin, spans[c].start_ns);
    }
    Timeline timeline;
    timeline.offset = bracket_clock_offset(kernels, before, after, origin);
    // Everything in ns relative to `origin` (the first kernel start) first, as doubles.
    std::vector<CopyEvents> ins(k);
    std::vector<CopyEvents> outs(k);
    double first = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
        ins[c] = {since_reference(s.in_ready[c]) * 1e6 + timeline.offset.offset_ns,
                  before[c] * 1e6 + timeline.offset.offset_ns};
        outs[c] = {after[c] * 1e6 + timeline.offset.offset_ns,
                   since_reference(s.out_done[c]) * 1e6 + timeline.offset.offset_ns};
        first = std::min({first, ins[c].ready_ns, outs[c].ready_ns});
    }
    for (std::size_t c = 0; c < k; ++c) {  // shift so that the first op starts at 0
        ins[c].ready_ns -= first;
        ins[c].done_ns -= first;
        outs[c].ready_ns -= first;
        outs[c].done_ns -= first;
    }
    const std::vector<Interval> in_busy = copy_busy_intervals(ins);
    const std::vector<Interval> out_busy = copy_busy_intervals(outs);
    const auto shift = static_cast<std::uint64_t>(std::llround(-first));
    for (std::size_t c = 0; c < k; ++c) {
        const int stream = schedule == Schedule::kOneStream ? 0 : static_cast<int>(c);
        const int chunk = static_cast<int>(c);
        const auto waited = [](const CopyEvents& e, const Interval& busy) {
            const double ready = std::max(0.0, e.ready_ns);
            return static_cast<double>(busy.start_ns) > ready
                       ? static_cast<std::uint64_t>(static_cast<double>(busy.start_ns) - ready)
                       : std::uint64_t{0};
        };
        timeline.ops.push_back(
            {chunk, Stage::kCopyIn, stream, in_busy[c], waited(ins[c], in_busy[c])});
        timeline.ops.push_back(
            {chunk, Stage::kKernel, stream,
             Interval{kernels[c].start_ns - origin + shift, kernels[c].end_ns - origin + shift},
             0});
        timeline.ops.push_back(
            {chunk, Stage::kCopyOut, stream, out_busy[c], waited(outs[c], out_busy[c])});
    }
    for (const auto& op : timeline.ops) {
        timeline.span_ns = std::max(timeline.span_ns, op.interval.end_ns);
    }
    return timeline;
}

std::size_t pipeline_device_bytes(std::size_t n, int max_chunks) {
    return 2 * n * sizeof(std::uint32_t) +
           static_cast<std::size_t>(max_chunks) * sizeof(KernelSpan);
}

bool PipelineResult::passed() const {
    if (!stages_passed) {
        return false;
    }
    for (const auto& run : runs) {
        if (!run.passed) {
            return false;
        }
    }
    return true;
}

PipelineResult run_pipeline(const PipelineConfig& config, int device) {
    if (config.chunk_counts.empty()) {
        throw std::invalid_argument("run_pipeline: no chunk counts");
    }
    const int max_chunks =
        std::max(*std::max_element(config.chunk_counts.begin(), config.chunk_counts.end()),
                 config.shown_chunks);
    PipelineResult result;
    result.n = config.n;
    CT_CHECK(cudaDeviceGetAttribute(&result.copy_engines, cudaDevAttrAsyncEngineCount, device));
    Runner runner(config.n, max_chunks, config.rounds == 0 ? 256 : config.rounds);
    ct::CudaStream main_stream(cudaStreamNonBlocking);
    std::uint32_t addend = 1;  // a new addend for every pass: stale outputs cannot pass

    ct::BenchmarkConfig timing;
    timing.warmup = config.warmup;
    timing.repetitions = config.repetitions;
    timing.stream = main_stream.get();
    const auto time_stage = [&](Stage stage) {
        return ct::time_repeated([&](cudaStream_t s) { runner.issue_stage(stage, s, addend); },
                                 timing)
            .median_ms;
    };
    result.stages.copy_in_ms = time_stage(Stage::kCopyIn);
    {
        const ct::Verification in = runner.verify_copy_in();
        result.stages_passed = in.passed;
        result.stages_detail = in.detail;
    }
    result.stages.copy_out_ms = time_stage(Stage::kCopyOut);
    // The copy out moves whatever device_out holds: the check below is on the kernel pass.
    result.stages.both_copies_ms =
        ct::time_repeated([&](cudaStream_t s) { runner.issue_both_copies(s); }, timing).median_ms;
    if (config.rounds == 0) {
        // Linear in rounds: scale the trial so that the kernel matches the longer copy.
        const double trial_ms = time_stage(Stage::kKernel);
        const double target_ms = std::max(result.stages.copy_in_ms, result.stages.copy_out_ms);
        const double scaled = runner.rounds() * target_ms / std::max(trial_ms, 1e-6);
        runner.set_rounds(static_cast<std::uint32_t>(std::clamp(std::round(scaled), 1.0, 1e6)));
        result.calibrated = true;
    }
    result.rounds = runner.rounds();
    result.stages.kernel_ms = time_stage(Stage::kKernel);
    // The stage runs above are checked too: one whole pass of kernel and copy-out.
    ++addend;
    runner.issue_stage(Stage::kKernel, main_stream.get(), addend);
    runner.issue_stage(Stage::kCopyOut, main_stream.get(), addend);
    CT_CHECK(cudaStreamSynchronize(main_stream.get()));
    if (result.stages_passed) {
        const ct::Verification whole = runner.verify(addend);
        result.stages_passed = whole.passed;
        result.stages_detail = whole.detail;
    }

    for (const int chunks : config.chunk_counts) {
        for (const Schedule schedule : all_schedules()) {
            PipelineRun run;
            run.schedule = schedule;
            run.chunks = chunks;
            run.ideal_ms = schedule == Schedule::kOneStream
                               ? result.stages.sum_ms()
                               : ideal_pipeline_ms(result.stages, chunks, result.copy_engines);
            ct::StageHooks hooks;
            hooks.launch = [&](cudaStream_t s) {
                runner.issue(schedule, chunks, s, ++addend, false);
            };
            hooks.verify = [&] { return runner.verify(addend); };
            const ct::ResultRow timed = ct::time_stage(
                {std::to_string(chunks), schedule_key(schedule), ""}, hooks, timing);
            run.total_ms = timed.stats;
            run.passed = timed.passed;
            run.detail = timed.detail;
            if (chunks == config.shown_chunks) {
                runner.issue(schedule, chunks, main_stream.get(), ++addend, true);
                CT_CHECK(cudaStreamSynchronize(main_stream.get()));
                const ct::Verification shown = runner.verify(addend);
                if (!shown.passed && run.passed) {
                    run.passed = false;
                    run.detail = "instrumented pass: " + shown.detail;
                }
                run.timeline = runner.timeline(schedule, chunks);
                run.has_timeline = true;
            }
            result.runs.push_back(std::move(run));
        }
    }
    return result;
}

}  // namespace streams::pipeline
