// Chapter 9, matrix multiply: stages from the naive kernel to register blocking on the CUDA
// cores, cublasSgemm (the baseline) and cuBLAS on the TF32 tensor cores (another precision), each
// computing the same C = A . B on the GPU, checked against an FP64 reference and timed; with
// --precision bf16, the tensor-core stages on BF16 against cuBLAS's BF16 GEMM.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/clocks.hpp"
#include "cudatutorial/data.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "fp32_peak.hpp"
#include "matmul.hpp"
#include "tile_tuning.hpp"
#include "verification.hpp"

namespace ct = cudatutorial;

namespace {

struct Options {
    std::uint64_t size = 4096;
    std::optional<std::uint64_t> m;  // unset: --size
    std::optional<std::uint64_t> n;
    std::optional<std::uint64_t> k;
    std::string stages = "all";
    std::string data = "normal";
    std::string precision = "fp32";
    std::uint64_t seed = ct::kDefaultSeed;
    double power_seconds = 1.0;  // per row; 0: not read
    int rounds = 0;              // interleaved rounds against the baseline; 0: none
    ct::CommonOptions common;
};

/// The options, checked before any GPU work.
struct Checked {
    matmul::Shape shape;
    matmul::Pattern pattern = matmul::Pattern::kNormal;
    matmul::Operands operands = matmul::Operands::kFp32;
    std::vector<const matmul::StageInfo*> stages;
};

Checked check_options(const Options& o) {
    Checked c;
    c.shape = {o.m.value_or(o.size), o.n.value_or(o.size), o.k.value_or(o.size)};
    const std::pair<std::uint64_t, const char*> dimensions[] = {
        {c.shape.m, o.m ? "--m" : "--size"},
        {c.shape.n, o.n ? "--n" : "--size"},
        {c.shape.k, o.k ? "--k" : "--size"}};
    for (const auto& [value, option] : dimensions) {
        if (value < 1 || value > matmul::kMaxDimension) {
            throw ct::UsageError(option,
                                 "must be between 1 and 2^20; got " + std::to_string(value));
        }
    }
    try {
        c.pattern = matmul::parse_pattern(o.data);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--data", e.what());
    }
    try {
        c.operands = matmul::parse_operands(o.precision);
    } catch (const std::invalid_argument& e) {
        throw ct::UsageError("--precision", e.what());
    }
    if (!(o.power_seconds >= 0 && o.power_seconds <= 60)) {
        throw ct::UsageError("--power", "give seconds between 0 and 60; got " +
                                            ct::format_fixed(o.power_seconds, 2));
    }
    if (o.rounds < 0 || o.rounds > 1000) {
        throw ct::UsageError("--rounds", "give 0 to 1000; got " + std::to_string(o.rounds));
    }
    const std::vector<std::string> requested = ct::split_list(o.stages);
    if (requested.empty()) {
        throw ct::UsageError("--stage",
                             "give 'all', 'list' or a comma-separated list of stage ids");
    }
    const matmul::Operands operands = c.operands;
    c.stages = ct::select_stages<matmul::StageInfo>(
        matmul::stages(), requested, "--stage", [operands](const matmul::StageInfo& s) {
            return s.by_default && matmul::operands_of(s.precision) == operands;
        });
    // One table, one kind of operands: a BF16 stage in an FP32 run (or the reverse) is refused.
    for (const matmul::StageInfo* stage : c.stages) {
        const matmul::Operands its = matmul::operands_of(stage->precision);
        if (its != operands) {
            throw ct::UsageError(
                "--stage", "stage " + stage->id + " multiplies " + matmul::operands_name(its) +
                               " matrices: run it with --precision " + matmul::operands_name(its));
        }
    }
    return c;
}

/// Device memory the run needs: A, B and C twice (the timed data and the integers; BF16 runs
/// keep FP32 copies of A and B for the reference), the two FP64 references (value and scale, 16
/// bytes per element of C), the BF16 baseline's trial copy, and room for cuBLAS.
std::size_t bytes_needed(const matmul::Shape& s, matmul::Operands operands) {
    const std::size_t inputs = s.m * s.k + s.k * s.n;
    const std::size_t per_problem = operands == matmul::Operands::kBf16
                                        ? inputs * (sizeof(float) + 2) + s.m * s.n * 2
                                        : (inputs + s.m * s.n) * sizeof(float);
    // The BF16 baseline times its candidates on a copy of its own (and a 32 MiB workspace).
    const std::size_t baseline_trial = operands == matmul::Operands::kBf16
                                           ? (inputs + s.m * s.n) * 2 + (std::size_t{32} << 20)
                                           : 0;
    return 2 * per_problem + 2 * s.m * s.n * 2 * sizeof(double) + baseline_trial +
           (std::size_t{256} << 20);
}

/// The inputs of one data pattern on the device, with their FP64 reference (checked against the
/// CPU on construction) and an output buffer: FP32, or BF16 for the BF16 table (whose inputs
/// are rounded to BF16 first, and the reference computed from the rounded values).
struct Problem {
    matmul::Pattern pattern;
    matmul::Operands operands;
    std::vector<float> a;
    std::vector<float> b;
    ct::DeviceBuffer<float> d_a;
    ct::DeviceBuffer<float> d_b;
    ct::DeviceBuffer<float> d_c;           // FP32 runs
    ct::DeviceBuffer<matmul::Bf16> d_a16;  // BF16 runs
    ct::DeviceBuffer<matmul::Bf16> d_b16;
    ct::DeviceBuffer<matmul::Bf16> d_c16;
    matmul::DeviceReference reference;

    Problem(matmul::Pattern p, matmul::Operands ops, const matmul::Shape& s, std::uint64_t seed)
        : pattern(p),
          operands(ops),
          a(inputs(p, ops, s.m * s.k, seed, 1, s.k)),
          b(inputs(p, ops, s.k * s.n, seed, 2, 0)),
          d_a(a),
          d_b(b),
          d_c(bf16() ? 0 : s.m * s.n),
          d_a16(bf16() ? to_bf16(a) : std::vector<matmul::Bf16>()),
          d_b16(bf16() ? to_bf16(b) : std::vector<matmul::Bf16>()),
          d_c16(bf16() ? s.m * s.n : 0),
          reference(d_a.data(), d_b.data(), s) {
        const std::string why = reference.check_against_cpu(a, b, exact());
        if (!why.empty()) {
            throw std::runtime_error(why);
        }
    }
    bool exact() const { return pattern != matmul::Pattern::kNormal; }
    /// Whether a check on these inputs is enough: integers and sparse data test every product;
    /// normal data only within a tolerance, zeros nothing but that C was written.
    bool checks_every_product() const {
        return pattern == matmul::Pattern::kIntegers || pattern == matmul::Pattern::kSparse;
    }
    bool bf16() const { return operands == matmul::Operands::kBf16; }

    /// Fills the output with NaN (all bits set), so that an element nobody writes is caught.
    void poison() {
        if (bf16()) {
            d_c16.fill_bytes(0xff);
        } else {
            d_c.fill_bytes(0xff);
        }
    }
    /// Launches `multiplier` on these matrices, asynchronously.
    void launch(const matmul::Multiplier& multiplier, cudaStream_t stream) {
        if (bf16()) {
            multiplier.run(d_a16.data(), d_b16.data(), d_c16.data(), stream);
        } else {
            multiplier.run(d_a.data(), d_b.data(), d_c.data(), stream);
        }
    }
    matmul::Comparison compare(double tolerance) const {
        return bf16() ? reference.compare(d_c16.data(), exact(), tolerance)
                      : reference.compare(d_c.data(), exact(), tolerance);
    }

  private:
    static std::vector<float> inputs(matmul::Pattern p, matmul::Operands ops, std::size_t count,
                                     std::uint64_t seed, std::uint64_t stream,
                                     std::uint64_t row_length) {
        std::vector<float> values = matmul::make_matrix(p, count, seed, stream, row_length);
        return ops == matmul::Operands::kBf16 ? matmul::round_to_bf16(values) : values;
    }
    static std::vector<matmul::Bf16> to_bf16(const std::vector<float>& values) {
        std::vector<matmul::Bf16> out(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            out[i] = __float2bfloat16_rn(values[i]);  // exact: the values are BF16 already
        }
        return out;
    }
};

/// Runs `multiplier` on `problem`, its output poisoned first (NaN everywhere), and waits.
void run_on(const matmul::Multiplier& multiplier, Problem& problem) {
    problem.poison();
    problem.launch(multiplier, nullptr);
    CT_CHECK(cudaDeviceSynchronize());
}

/// Whether a TMA tensor map can describe the BF16 matrices of `shape` (rows of multiples of 16
/// bytes); stages 12 to 14 run stage 11's kernel where it cannot.
bool rows_fit_tma(const matmul::Shape& shape) {
    return shape.k % 8 == 0 && shape.n % 8 == 0;
}

/// The comparison of `problem`'s output with its reference, as a verdict whose detail starts
/// with `label`.
ct::Verification compare(const matmul::Multiplier& multiplier, const Problem& problem,
                         const std::string& label) {
    const matmul::StageInfo& stage = multiplier.stage();
    const double tolerance = matmul::tolerance_for(stage.precision, multiplier.shape().k);
    const matmul::Comparison found = problem.compare(tolerance);
    if (found.passed()) {
        return ct::Verification::pass();
    }
    return ct::Verification::fail(label + ": " +
                                  found.describe(multiplier.shape(), problem.exact()));
}

/// The timed data's result (already computed), then, unless the timed data check every product
/// themselves (integers, sparse), a run on the integers, checked bit for bit.
ct::Verification verify_both(const matmul::Multiplier& multiplier, const Problem& timed,
                             Problem* integers) {
    ct::Verification result = compare(multiplier, timed, matmul::pattern_name(timed.pattern));
    if (result.passed && integers != nullptr) {
        run_on(multiplier, *integers);
        result = compare(multiplier, *integers, "integers");
    }
    return result;
}

/// What the rows' power readings share: how long each stretch is (0: none), and the enforced
/// power limit the readings found (0: not read).
struct PowerColumns {
    double seconds = 0;
    double limit_watts = 0;
};

ct::StageHooks hooks_for(const matmul::Multiplier& multiplier, Problem& timed, Problem* integers,
                         const ct::BenchmarkConfig& config, PowerColumns& power_columns) {
    ct::StageHooks hooks;
    hooks.poison = [&timed] { timed.poison(); };
    hooks.launch = [&multiplier, &timed](cudaStream_t s) { timed.launch(multiplier, s); };
    // Every row is checked both ways, before and after timing.
    hooks.verify = [&multiplier, &timed, integers] {
        return verify_both(multiplier, timed, integers);
    };
    if (multiplier.stage().slow) {
        hooks.adjust_timing = [](ct::BenchmarkConfig& c) {
            c.warmup = std::min(c.warmup, 1);
            c.repetitions = std::min(c.repetitions, 5);
        };
    }
    const double flops = multiplier.shape().flops();
    hooks.extras = [&multiplier, &timed, flops, config, &power_columns](ct::ResultRow& row) {
        if (!row.timed) {
            return;
        }
        row.with("TFLOPS", flops / (row.stats.median_ms * 1e-3) / 1e12, 1);
        // The other timing method: calls back to back, the events' cost shared.
        ct::BenchmarkConfig batch = config;
        batch.calls_per_sample = multiplier.stage().slow ? 2 : 10;
        batch.repetitions = multiplier.stage().slow ? 3 : 5;
        batch.warmup = 1;
        batch.flush_l2 = false;
        const ct::Stats back_to_back =
            ct::time_repeated([&](cudaStream_t s) { timed.launch(multiplier, s); }, batch);
        row.with("back-to-back ms", back_to_back.median_ms, 4);
        // What the row drew, the clock it ran at and the rate it kept over the stretch: a
        // tensor-core GEMM is held at the power limit, and its clock falls with the bits its
        // data toggle.
        if (power_columns.seconds > 0) {
            constexpr int kCallsPerBatch = 4;
            const ct::PowerReading power = ct::measure_power(
                [&] {
                    for (int call = 0; call < kCallsPerBatch; ++call) {
                        timed.launch(multiplier, nullptr);
                    }
                },
                power_columns.seconds);
            if (power.observed) {
                row.with("W", power.watts, 0);
                row.with("SM MHz", power.sm_mhz, 0);
                row.with("sustained TFLOPS",
                         flops * kCallsPerBatch * power.batches / power.seconds / 1e12, 1);
                power_columns.limit_watts = power.limit_watts;
            }
        }
    };
    return hooks;
}

/// With --rounds R: R rounds, each timing every stage of the table and then the baseline the
/// same way (median of single calls); each stage's row gets the median of its R ratios
/// (baseline ms / stage ms) and their range. A GPU held at its power limit drifts as it warms,
/// by more than the margins between the fastest rows: ratios taken seconds apart cancel that.
void add_round_ratios(int rounds, const std::vector<std::unique_ptr<matmul::Multiplier>>& stages,
                      std::vector<ct::ResultRow>& rows, Problem& timed, ct::TableRun& table) {
    // time_repeated runs each stage as it was timed; the rows were verified already.
    const auto baseline = std::find_if(stages.begin(), stages.end(), [](const auto& multiplier) {
        const std::string& id = multiplier->stage().id;
        return id == matmul::kCublasStageId || id == matmul::kCublasBf16StageId;
    });
    if (rounds == 0 || baseline == stages.end()) {
        return;
    }
    const ct::BenchmarkConfig config = table.options().benchmark_config();
    const auto median_ms = [&](const matmul::Multiplier& multiplier) {
        return ct::time_repeated([&](cudaStream_t s) { timed.launch(multiplier, s); }, config)
            .median_ms;
    };
    std::vector<std::vector<double>> ratios(stages.size());
    for (int round = 0; round < rounds; ++round) {
        for (std::size_t i = 0; i < stages.size(); ++i) {
            if (stages[i]->stage().role == ct::StageRole::kProgression) {
                const double stage_ms = median_ms(*stages[i]);
                ratios[i].push_back(median_ms(**baseline) / stage_ms);
            }
        }
    }
    for (std::size_t i = 0; i < stages.size(); ++i) {
        std::vector<double>& r = ratios[i];
        auto row = std::find_if(rows.begin(), rows.end(), [&](const ct::ResultRow& candidate) {
            return candidate.id == stages[i]->stage().id;
        });
        if (r.empty() || row == rows.end()) {
            continue;
        }
        std::sort(r.begin(), r.end());
        const double median =
            r.size() % 2 == 1 ? r[r.size() / 2] : (r[r.size() / 2 - 1] + r[r.size() / 2]) / 2;
        row->with("x cuBLAS, rounds", median, 3);
        row->with("rounds range",
                  ct::format_fixed(r.front(), 3) + "-" + ct::format_fixed(r.back(), 3));
    }
    table.info().set("rounds", std::to_string(rounds) + " (each: every stage, then cuBLAS, the " +
                                   "median of " + std::to_string(config.repetitions) +
                                   " single calls each; x cuBLAS, rounds: the median of the " +
                                   "per-round ratios)");
}

/// The header's word on the power columns.
void describe_power(const PowerColumns& power, ct::RunInfo& info) {
    if (power.seconds > 0) {
        info.set("power (W, SM MHz, sustained TFLOPS)",
                 "per row, over " + ct::format_fixed(power.seconds, 1) +
                     " s of calls back to back: NVML's energy counter's difference, the median "
                     "SM clock read meanwhile, and the rate kept over the stretch");
    }
    if (power.limit_watts > 0) {
        info.set("power limit",
                 ct::format_fixed(power.limit_watts, 0) + " W (enforced; clocks not locked)");
    }
}

/// Stage 8's tuning pass (measuring/tile_tuning.hpp), when stage 8 is in the table: every
/// candidate checked on both inputs and timed on the timed data; the choice goes into the header
/// and is returned (-1: stage 7's shape).
int tune_stage8(const Checked& c, Problem& timed, Problem* integers, ct::RunInfo& info) {
    const bool wanted = std::any_of(c.stages.begin(), c.stages.end(),
                                    [](const matmul::StageInfo* s) { return s->uses_tuner; });
    if (!wanted) {
        return -1;
    }
    const auto check = [&timed, integers](const matmul::Multiplier& multiplier) {
        run_on(multiplier, timed);
        return verify_both(multiplier, timed, integers).detail;
    };
    const auto launch = [&timed](const matmul::Multiplier& multiplier, cudaStream_t s) {
        timed.launch(multiplier, s);
    };
    const matmul::tuning::TuningResult result = matmul::tuning::tune_tiles(c.shape, check, launch);
    matmul::tuning::describe_choice(result, info);
    return result.chosen;
}

ct::RunInfo make_info(const Options& o, const Checked& c, const ct::DeviceInfo& device,
                      const Problem& timed) {
    const bool bf16 = c.operands == matmul::Operands::kBf16;
    ct::RunInfo info = ct::make_run_info(
        "matmul",
        bf16 ? "C = A . B in BF16 (FP32 sums), row-major, on the tensor cores; every row checked "
               "against an FP64 reference"
             : "C = A . B in FP32, row-major, on the GPU; every row checked against an FP64 "
               "reference",
        device);
    info.set("precision", bf16 ? "bf16: A, B and C in BF16, sums in FP32 (the inputs rounded to "
                                 "BF16 before the reference is computed)"
                               : "fp32 (--precision bf16: the tensor-core stages)");
    info.set("shape (m x n x k)", c.shape.text());
    info.set("FLOP per product", ct::format_fixed(c.shape.flops() / 1e9, 2) + " G (2 m n k)");
    info.set("data",
             std::string(matmul::pattern_name(c.pattern)) + ", seed " + std::to_string(o.seed) +
                 " (timed)" +
                 (timed.checks_every_product() ? ", checked bit for bit"
                                               : "; then integers -4..4, checked bit for bit"));
    info.set("reference",
             "FP64 on the GPU, checked against the CPU on " + timed.reference.cpu_check_words());
    const std::string fp32_words = ct::format_fixed(matmul::fp32_tolerance(c.shape.k) * 1e6, 1) +
                                   "e-6 x sqrt(sum (a b)^2) per element";
    if (!timed.exact()) {
        info.set("tolerance (normal data)",
                 bf16 ? "|c - ref| <= " + fp32_words + " + 2^-8 |ref| (BF16's rounding of C)"
                      : "|c - ref| <= " + fp32_words + " (FP32); " +
                            ct::format_fixed(matmul::tf32_tolerance(c.shape.k) * 1e3, 2) +
                            "e-3 for TF32");
    }
    if (bf16) {
        info.set("integers", "C must equal the exact sum rounded to the nearest BF16");
    }
    info.set("timing", o.common.timing_description() +
                           " single calls (every row); back-to-back: 10 calls per sample");
    info.set("reps", std::to_string(o.common.repetitions));
    return info;
}

int run(const Options& o) {
    if (o.stages == "list") {  // registry information: no GPU needed
        return ct::list_stages(o.common, "matmul", {{"", ct::descriptors(matmul::stages())}});
    }
    // 1. Everything that can be checked without a GPU.
    const Checked checked = check_options(o);

    // 2. The device, and whether the matrices fit.
    const ct::DeviceInfo device = ct::select_device(o.common.device);
    ct::require_device_memory(bytes_needed(checked.shape, checked.operands),
                              "the matrices and the references");

    // 3. The inputs and their references: the timed data, and the integers unless the timed
    //    data are exact already.
    Problem timed(checked.pattern, checked.operands, checked.shape, o.seed);
    std::unique_ptr<Problem> integers;
    if (!timed.checks_every_product()) {
        integers = std::make_unique<Problem>(matmul::Pattern::kIntegers, checked.operands,
                                             checked.shape, o.seed);
    }

    ct::RunInfo info = make_info(o, checked, device, timed);
    const int candidate = tune_stage8(checked, timed, integers.get(), info);
    ct::TableRun table(info, o.common);
    const bool bf16 = checked.operands == matmul::Operands::kBf16;
    table.set_baseline(bf16 ? matmul::kCublasBf16StageId : matmul::kCublasStageId, "cuBLAS");

    // 4. The stages, in table order; the % of peak once the clocks of every timed run are seen.
    //    A stage this GPU cannot run (the tensor-core stages before compute capability 8.0) is
    //    listed as skipped, with the reason.
    std::vector<ct::ResultRow> rows;
    std::vector<std::unique_ptr<matmul::Multiplier>> multipliers;  // rows' stages, for the rounds
    PowerColumns power_columns;
    power_columns.seconds = o.power_seconds;
    const int compute_capability = device.cc_major * 10 + device.cc_minor;
    for (const matmul::StageInfo* stage : checked.stages) {
        if (stage->sm90a_only && compute_capability != 90) {
            table.skip(*stage,
                       "built for sm_90a (wgmma), which runs on compute capability 9.0 "
                       "only; this GPU has " +
                           std::to_string(device.cc_major) + "." + std::to_string(device.cc_minor));
            continue;
        }
        if (stage->min_compute_capability > compute_capability) {
            table.skip(*stage, "needs compute capability " +
                                   std::to_string(stage->min_compute_capability / 10) + "." +
                                   std::to_string(stage->min_compute_capability % 10) +
                                   "; this GPU has " + std::to_string(device.cc_major) + "." +
                                   std::to_string(device.cc_minor));
            continue;
        }
        multipliers.push_back(std::make_unique<matmul::Multiplier>(
            stage->id, checked.shape, stage->uses_tuner ? candidate : -1));
        const matmul::Multiplier& multiplier = *multipliers.back();
        if (!multiplier.math_mode().empty()) {
            table.info().set(
                stage->precision == matmul::Precision::kTf32 ? "TF32 call" : "cuBLAS call",
                multiplier.math_mode());
        }
        rows.push_back(
            table.time_stage(*stage, hooks_for(multiplier, timed, integers.get(),
                                               table.options().benchmark_config(), power_columns)));
        if (stage->schedule != nullptr && rows_fit_tma(checked.shape)) {
            table.add_note("stage " + stage->id + ": " +
                           stage->schedule(static_cast<int>(checked.shape.m),
                                           static_cast<int>(checked.shape.n)));
        }
    }
    // A tensor map needs 16-byte rows: stages 12 to 14 run stage 11's kernel where they are not.
    if (bf16 && !rows_fit_tma(checked.shape) &&
        std::any_of(checked.stages.begin(), checked.stages.end(),
                    [](const matmul::StageInfo* s) { return s->sm90a_only; })) {
        table.add_note(
            "k or n is not a multiple of 8: a TMA tensor map cannot describe rows that "
            "are not multiples of 16 bytes, so the rows of stages 12 to 14 ran stage "
            "11's kernel (cp.async, any shape)");
    }
    const matmul::Fp32Peak fp32_peak = matmul::fp32_peak(device, ct::observed_clocks());
    const matmul::Bf16Peak bf16_peak = matmul::bf16_peak(device, ct::observed_clocks());
    table.info().set(bf16 ? "BF16 peak" : "FP32 peak",
                     bf16 ? bf16_peak.describe() : fp32_peak.describe());
    add_round_ratios(o.rounds, multipliers, rows, timed, table);
    describe_power(power_columns, table.info());
    for (ct::ResultRow& row : rows) {
        // The TF32 row runs neither on the FP32 lanes nor in BF16: no share of either peak.
        const matmul::Precision precision = matmul::find_stage(row.id)->precision;
        if (const auto tflops = row.extra_number("TFLOPS"); tflops) {
            if (precision == matmul::Precision::kFp32) {
                row.with("% of FP32 peak", 100.0 * *tflops / fp32_peak.tflops, 1);
            } else if (precision == matmul::Precision::kBf16 && bf16_peak.tflops > 0) {
                row.with("% of BF16 peak", 100.0 * *tflops / bf16_peak.tflops, 1);
            }
        }
        table.add(std::move(row));
    }
    return table.finish();
}

void add_options(CLI::App& app, Options& o) {
    ct::add_size_option(app, "--size", o.size,
                        "m = n = k unless --m, --n or --k say otherwise (4096, 2^12, 4Ki, ...)");
    const auto add_dimension = [&app](const char* name, std::optional<std::uint64_t>& target,
                                      const char* what) {
        app.add_option_function<std::string>(
               name, [&target](const std::string& text) { target = ct::parse_size(text); },
               std::string(what) + " (default: --size)")
            ->check(ct::size_validator());
    };
    add_dimension("--m", o.m, "rows of A and C");
    add_dimension("--n", o.n, "columns of B and C");
    add_dimension("--k", o.k, "columns of A, rows of B");
    ct::add_stage_option(app, o.stages, ct::stage_ids(matmul::stages()));
    app.add_option("--data", o.data,
                   "the timed inputs: normal (mean 0, deviation 1; checked within a tolerance), "
                   "integers (-4..4; checked bit for bit) or sparse (-1, 0, +1, at most 256 "
                   "nonzeros in a row of A: every element of C exact in BF16 too) or zeros (the "
                   "fewest bits toggled: what the data do to power and clock). Every row is also "
                   "checked on integers")
        ->capture_default_str();
    app.add_option("--precision", o.precision,
                   "fp32 (the CUDA-core stages 1-9, cublasSgemm, cuBLAS TF32) or bf16 (BF16 in "
                   "and out, FP32 sums: the tensor-core stages from 10 and cuBLAS's BF16 GEMM)")
        ->capture_default_str();
    ct::add_seed_option(app, o.seed);
    app.add_option("--power", o.power_seconds,
                   "seconds of back-to-back calls per row over which its power (NVML's energy "
                   "counter) and SM clock are read; 0: not read")
        ->capture_default_str();
    app.add_option("--rounds", o.rounds,
                   "after the table, this many rounds each timing every stage and then the "
                   "baseline: the median of the per-round ratios and their range (0: none)")
        ->capture_default_str();
    ct::add_common_options(app, o.common);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Chapter 9 - matrix multiply: from the naive kernel to register blocking on the CUDA "
        "cores, against cublasSgemm (and cuBLAS on the TF32 tensor cores, another precision); "
        "with --precision bf16, the tensor cores in BF16 against cuBLAS; every row checked "
        "against an FP64 reference"};
    Options o;
    add_options(app, o);
    return ct::run_program(app, argc, argv, [&] { return run(o); });
}
