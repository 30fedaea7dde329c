// The single-process sections of chapter 7: one host thread drives every GPU through one stream
// per GPU. Each section checks every result against the CPU, after timing too, and prints a
// table (and writes it with --csv/--json).
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>

#include "allreduce_table.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/clocks.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "cudatutorial/table_run.hpp"
#include "options.hpp"
#include "peer_team.hpp"
#include "roundtrip.hpp"
#include "sharded.hpp"
#include "topology.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {

// ---- Sections ---------------------------------------------------------------------------------

namespace {

std::vector<int> visible_gpus(const Options& o) {
    const int count = ct::cuda_device_count();
    if (count == 0) {
        ct::select_device(o.common.device);  // throws the chapters' no-device error (exit 3)
    }
    const int first = o.common.device;
    if (first >= count) {
        throw ct::UsageError("--device", std::to_string(first) + ": only " + std::to_string(count) +
                                             " CUDA devices");
    }
    const int available = count - first;
    if (o.gpus > available) {
        throw ct::UsageError("--gpus", std::to_string(o.gpus) + ": only " +
                                           std::to_string(available) + " GPUs from --device " +
                                           std::to_string(first) + " on");
    }
    // 16: the most sources the sum kernels take (and more than one host's NVLink domain holds).
    const int wanted = o.gpus == 0 ? std::min(available, 16) : o.gpus;
    std::vector<int> devices;
    for (int i = 0; i < wanted; ++i) {
        devices.push_back(first + i);
    }
    return devices;
}

std::vector<int> first_gpus(const std::vector<int>& devices, int count) {
    return std::vector<int>(devices.begin(), devices.begin() + count);
}

ct::RunInfo run_info(const std::string& title, const std::vector<int>& devices, const Options& o) {
    ct::RunInfo info = ct::make_run_info("multi_gpu", title, ct::query_device(devices[0]));
    info.peak_bandwidth_gbs = 0;  // bandwidth here is of links and of several GPUs: see columns
    info.set("GPUs", std::to_string(devices.size()));
    info.set("NCCL", nccl_version());
    info.set("reps",
             std::to_string(o.common.repetitions) + ", warm-up " + std::to_string(o.common.warmup));
    return info;
}

// Adds the section's notes, prints and writes the table; returns whether every row passed (the
// program's verdict is made from all sections).
bool finish(ct::TableRun& table, const std::vector<std::string>& notes) {
    for (const std::string& note : notes) {
        table.add_note(note);
    }
    const bool passed = table.finish() == ct::to_int(ct::ExitCode::kSuccess);
    std::cout << "\n";
    return passed;
}

// Topology: which pairs can reach each other, then measured copies between GPU 0 and the others.
bool run_topology(const std::vector<int>& devices, const Options& o, double& link_gbs) {
    std::cout << "== topology: " << devices.size() << " GPU(s)\n";
    for (int d : devices) {
        const ct::DeviceInfo info = ct::query_device(d);
        std::cout << "  GPU " << d << ": " << info.name << ", " << info.sm_count << " SMs, "
                  << ct::format_bytes(static_cast<double>(info.global_memory)) << "\n";
    }
    if (devices.size() < 2) {
        std::cout << "  one GPU: no pair to measure (every section still runs and verifies its "
                     "single-GPU path)\n\n";
        return true;
    }
    std::vector<std::vector<std::string>> matrix = {
        {"from -> to", "peer access", "performance rank", "native atomics"}};
    for (const PeerInfo& p : query_peers(devices)) {
        matrix.push_back({std::to_string(p.from) + " -> " + std::to_string(p.to),
                          p.can_access ? "yes" : "no", std::to_string(p.performance_rank),
                          p.native_atomics ? "yes" : "no"});
    }
    ct::print_aligned(std::cout, matrix, {0});
    std::cout << "\n";

    ct::RunInfo info =
        run_info("copies between GPUs (GB/s = bytes moved / median time)", devices, o);
    info.set("bytes per copy", ct::format_bytes(static_cast<double>(o.copy_bytes)));
    ct::TableRun table(info, o.files_for("topology"));
    std::vector<std::string> notes;
    ct::BenchmarkConfig config = o.common.benchmark_config();
    for (std::size_t j = 1; j < devices.size(); ++j) {
        const int a = devices[0];
        const int b = devices[j];
        int can = 0;
        CT_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
        struct Case {
            int from;
            int to;
            CopyPath path;
        };
        // Without peer access first: enabling it is remembered by the driver until disabled.
        std::vector<Case> cases = {{a, b, CopyPath::kHostStaged}, {a, b, CopyPath::kPeerNoAccess}};
        if (can) {
            cases.push_back({a, b, CopyPath::kPeerAccess});
            cases.push_back({b, a, CopyPath::kPeerAccess});
            cases.push_back({a, b, CopyPath::kPeerBidirectional});
        } else {
            notes.push_back("GPUs " + std::to_string(a) + " and " + std::to_string(b) +
                            " have no peer access: peer rows skipped");
        }
        for (const Case& c : cases) {
            const CopyMeasurement m = measure_copy(c.from, c.to, c.path, o.copy_bytes, config);
            table.add(m.row);
            if (c.path == CopyPath::kPeerAccess && c.from == devices[0] && j == 1) {
                link_gbs = ct::bandwidth_gbs(m.bytes, m.row.stats.median_ms);
            }
        }
    }
    return finish(table, notes);
}

// The reduction or histogram, sharded over 1..G GPUs with every combine method.
template <typename MakeJob, typename Verify>
bool run_scaling(const std::string& section, const std::string& title, const std::string& stage,
                 double bytes, const std::vector<int>& devices, const Options& o,
                 const ct::RunInfo& info, MakeJob& make_job, const Verify& verify_total) {
    ct::TableRun table(info, o.files_for(section));
    table.set_baseline("1gpu", "1 GPU");
    std::vector<std::string> notes;
    double one_gpu_ms = 0;  // the baseline row's median (the first row)
    double single_peak = ct::query_device(devices[0]).theoretical_bandwidth_gbs();
    for (std::size_t g = 1; g <= devices.size(); ++g) {
        const GpuSet gpus(first_gpus(devices, static_cast<int>(g)));
        std::vector<Combine> combines = {Combine::kHost};
        if (g > 1) {
            if (gpus.all_peers_enabled()) {
                combines.push_back(Combine::kPeer);
            } else {
                notes.push_back("peer combine skipped for " + std::to_string(g) +
                                " GPUs: not every pair has peer access");
            }
            if (nccl_available()) {
                combines.push_back(Combine::kNccl);
            }
        }
        auto data = make_job.upload(gpus);
        for (Combine combine : combines) {
            const auto job = make_job.job(gpus, data, combine);
            const DeviceGuard guard(gpus.device(0));
            auto& total = make_job.total();
            ct::StageHooks hooks;
            hooks.poison = [&] {
                total.fill_bytes(0xff);  // a total that is never written cannot pass
                gpus.synchronize_devices();
            };
            hooks.launch = [&](cudaStream_t) { job->run(total.data()); };
            hooks.verify = [&] { return verify_total(total); };
            hooks.bytes = bytes;
            hooks.adjust_timing = [&](ct::BenchmarkConfig& config) {
                config.stream = gpus.stream(0);
                // The host combine waits for the GPUs inside each run: no held stream for it.
                config.hold_stream = combine != Combine::kHost || g == 1;
            };
            hooks.extras = [&](ct::ResultRow& row) {
                row.in_progression = false;
                row.with("GPUs", std::to_string(g));
                const double median = row.stats.median_ms;
                if (row.stats.samples > 0 && single_peak > 0) {
                    row.with("% of G x peak",
                             ct::format_fixed(ct::percent_of(ct::bandwidth_gbs(bytes, median),
                                                             single_peak * static_cast<double>(g)),
                                              1));
                }
                // Efficiency = speed-up over one GPU / G: 100% is perfect scaling.
                if (g == 1) {
                    one_gpu_ms = median;
                }
                const bool timed = row.stats.samples > 0 && median > 0 && one_gpu_ms > 0;
                row.with("efficiency %",
                         timed ? ct::format_fixed(
                                     100.0 * one_gpu_ms / median / static_cast<double>(g), 1)
                               : "-");
            };
            const std::string id =
                g == 1 ? "1gpu" : std::to_string(g) + "gpu_" + combine_name(combine);
            const std::string name = g == 1 ? "stage " + stage + ", 1 GPU"
                                            : "stage " + stage + " x " + std::to_string(g) +
                                                  " GPUs, " + combine_name(combine) + " combine";
            table.run({id, name, ""}, hooks);
        }
    }
    std::cout << "== " << section << ": " << title << "\n";
    return finish(table, notes);
}

struct ReductionJobs {
    const std::vector<int>& host;
    const Options& o;
    ct::DeviceBuffer<int> d_total;
    std::vector<ct::DeviceBuffer<int>> upload(const GpuSet& gpus) {
        if (d_total.empty()) {
            const DeviceGuard guard(gpus.device(0));
            d_total = ct::DeviceBuffer<int>(1);
        }
        return upload_shards(gpus, host);
    }
    std::unique_ptr<ShardedReduction> job(const GpuSet& gpus,
                                          const std::vector<ct::DeviceBuffer<int>>& shards,
                                          Combine combine) {
        return std::make_unique<ShardedReduction>(gpus, shards, o.reduction_stage, o.block,
                                                  combine);
    }
    ct::DeviceBuffer<int>& total() { return d_total; }
};

struct HistogramJobs {
    const std::vector<unsigned char>& host;
    const Options& o;
    histogram::Binning binning;
    ct::DeviceBuffer<unsigned int> d_total;
    std::vector<ct::DeviceBuffer<unsigned char>> upload(const GpuSet& gpus) {
        if (d_total.empty()) {
            const DeviceGuard guard(gpus.device(0));
            d_total = ct::DeviceBuffer<unsigned int>(static_cast<std::size_t>(binning.bins()));
        }
        return upload_shards(gpus, host);
    }
    std::unique_ptr<ShardedHistogram> job(
        const GpuSet& gpus, const std::vector<ct::DeviceBuffer<unsigned char>>& shards,
        Combine combine) {
        return std::make_unique<ShardedHistogram>(gpus, shards, o.histogram_stage, binning, o.block,
                                                  combine);
    }
    ct::DeviceBuffer<unsigned int>& total() { return d_total; }
};

bool run_sharded_reduction(const std::vector<int>& devices, const Options& o) {
    const std::size_t n = static_cast<std::size_t>(o.n);
    for (int d : devices) {  // the largest shard is the whole input, on GPU 0
        const DeviceGuard guard(d);
        ct::require_device_memory(n * sizeof(int) + (64u << 20), "the reduction's input");
    }
    const std::vector<int> host = reduction::make_input(reduction::Pattern::kRandom, n, o.seed);
    const int expected = reduction::reference_sum(host);
    ct::RunInfo info =
        run_info("sharded sum of N ints (chapter 3's stage on every GPU)", devices, o);
    info.set("N", ct::describe_size(n));
    info.set("stage", o.reduction_stage + " (chapter 3), block " + std::to_string(o.block));
    info.set("expected sum (mod 2^32)", std::to_string(expected));
    ReductionJobs jobs{host, o, {}};
    return run_scaling("reduction", "sharded reduction, " + ct::describe_size(n) + " ints",
                       o.reduction_stage, static_cast<double>(n * sizeof(int)), devices, o, info,
                       jobs, [&](const ct::DeviceBuffer<int>& total) {
                           int got = 0;
                           total.copy_to_host(&got, 1);
                           return got == expected ? ct::Verification::pass()
                                                  : ct::Verification::fail(
                                                        "sum " + std::to_string(got) +
                                                        ", expected " + std::to_string(expected));
                       });
}

bool run_sharded_histogram(const std::vector<int>& devices, const Options& o) {
    const std::size_t n = static_cast<std::size_t>(o.histogram_bytes);
    for (int d : devices) {
        const DeviceGuard guard(d);
        ct::require_device_memory(n + (64u << 20), "the histogram's input");
    }
    const histogram::Binning binning =
        o.bins == "bytes" ? histogram::Binning::bytes() : histogram::Binning::letters(4);
    const histogram::Distribution distribution = o.bins == "bytes"
                                                     ? histogram::Distribution::kRandomBytes
                                                     : histogram::Distribution::kUniform;
    const std::vector<unsigned char> host = histogram::generate_input(distribution, n, o.seed);
    const histogram::Histogram expected = histogram::reference_histogram(host, binning);
    ct::RunInfo info =
        run_info("sharded histogram of N bytes (chapter 5's stage on every GPU)", devices, o);
    info.set("N", ct::describe_size(n));
    info.set("bins", binning.describe());
    info.set("data",
             histogram::distribution_name(distribution) + ", seed " + std::to_string(o.seed));
    info.set("stage", o.histogram_stage + " (chapter 5), block " + std::to_string(o.block));
    HistogramJobs jobs{host, o, binning, {}};
    return run_scaling("histogram", "sharded histogram, " + ct::describe_size(n) + " bytes",
                       o.histogram_stage, static_cast<double>(n), devices, o, info, jobs,
                       [&](const ct::DeviceBuffer<unsigned int>& total) {
                           const histogram::Comparison c =
                               histogram::compare_histograms(expected, total.to_host(), binning);
                           return c.equal ? ct::Verification::pass()
                                          : ct::Verification::fail(c.detail);
                       });
}

// Every GPU's result against the CPU's, bit for bit (the sums are exact integers in float).
ct::Verification verify_allreduce(const std::vector<ct::DeviceBuffer<float>>& recv,
                                  const std::vector<float>& expected) {
    std::vector<float> got(expected.size());
    for (std::size_t g = 0; g < recv.size(); ++g) {
        recv[g].copy_to_host(got.data(), got.size());
        if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) != 0) {
            std::size_t i = 0;
            while (i < got.size() && std::memcmp(&got[i], &expected[i], sizeof(float)) == 0) {
                ++i;
            }
            return ct::Verification::fail("GPU " + std::to_string(g) + ": element " +
                                          std::to_string(i) + " is " + std::to_string(got[i]) +
                                          ", expected " + std::to_string(expected[i]));
        }
    }
    return ct::Verification::pass();
}

bool run_allreduce(const std::vector<int>& devices, const Options& o, double link_gbs) {
    const GpuSet gpus(devices);
    const int G = gpus.size();
    ct::RunInfo info = run_info(
        "all-reduce, float sum, out of place: algbw = bytes / time, busbw = algbw x 2(G-1)/G",
        devices, o);
    info.set("peer access between all pairs", gpus.all_peers_enabled() ? "yes" : "no");
    if (link_gbs <= 0 && G > 1 && gpus.peer_enabled(0, 1)) {
        // The copy rate is the yardstick every row's "% of link" divides by: measured here too
        // when the topology section did not run in this process.
        link_gbs = measure_link_gbs(devices[0], devices[1], o);
    }
    if (link_gbs > 0) {
        info.set("link (GPU 0 -> 1, measured)", ct::format_fixed(link_gbs, 1) + " GB/s");
    }
    ct::TableRun table(info, o.files_for("allreduce"));
    {
        ct::BenchmarkConfig floor = o.common.benchmark_config();
        floor.stream = gpus.stream(0);
        const DeviceGuard guard(gpus.device(0));
        prepare_allreduce_table(table, floor);
    }
    std::vector<std::string> notes;
    if (G == 1) {
        notes.push_back("one GPU: every stage is a copy of the input; verified all the same");
    }
    for (std::uint64_t bytes : o.message_bytes()) {
        const std::size_t n = static_cast<std::size_t>(bytes / sizeof(float));
        bool fits = true;
        for (int g = 0; g < G; ++g) {
            const DeviceGuard guard(gpus.device(g));
            // send + recv + stage 1's staging on GPU 0 (G - 1 vectors) + the one-shot stages'
            // staging (2G and 3G vectors, where they run), with a reserve
            const std::size_t one_shot = bytes <= kOneShotMaxBytes ? 5 * G * bytes : 0;
            const std::size_t need = bytes * (g == 0 ? G + 1 : 2) + one_shot + (64u << 20);
            fits = fits && need < ct::free_device_memory();
        }
        if (!fits) {
            notes.push_back("skipped " + ct::format_bytes(static_cast<double>(bytes)) +
                            ": does not fit in device memory");
            continue;
        }
        std::vector<ct::DeviceBuffer<float>> send;
        std::vector<ct::DeviceBuffer<float>> recv;
        std::vector<const float*> send_ptr;
        std::vector<float*> recv_ptr;
        for (int g = 0; g < G; ++g) {
            const DeviceGuard guard(gpus.device(g));
            send.emplace_back(allreduce_input(o.seed, g, n));
            recv.emplace_back(n);
            send_ptr.push_back(send.back().data());
            recv_ptr.push_back(recv.back().data());
        }
        const std::vector<float> expected = allreduce_expected(o.seed, G, n);
        for (const AllReduceStage& stage : allreduce_stages()) {
            if (stage.needs_peer_access && !gpus.all_peers_enabled()) {
                add_note_once(notes,
                              "stage " + stage.id + " skipped: needs peer access between all GPUs");
                continue;
            }
            if (const std::string only = round_trip_only_note(stage); !only.empty()) {
                add_note_once(notes, only);
                continue;
            }
            // In one process only the stages without events run in their team form.
            const std::string skip =
                allreduce_skip_reason(stage, bytes, G, stage.launch == nullptr);
            if (!skip.empty()) {
                add_note_once(notes, skip);
                continue;
            }
            const auto reducer = make_all_reducer(stage, gpus, n);
            ct::StageHooks hooks = allreduce_hooks(bytes, G, link_gbs);
            hooks.poison = [&] {
                for (int g = 0; g < G; ++g) {
                    const DeviceGuard guard(gpus.device(g));
                    recv[g].fill_bytes(0xff);  // NaN: an element never written cannot pass
                }
                gpus.synchronize_devices();
            };
            hooks.launch = [&](cudaStream_t) { reducer->run(send_ptr, recv_ptr); };
            hooks.verify = [&] { return verify_allreduce(recv, expected); };
            hooks.adjust_timing = [&](ct::BenchmarkConfig& config) {
                config.stream = gpus.stream(0);
                config.label = "allreduce stage " + stage.id + " " + size_group(bytes);  // NVTX
            };
            const DeviceGuard guard(gpus.device(0));
            table.run(stage, hooks);
            if (!reducer->remark().empty()) {
                add_note_once(notes, reducer->remark());
            }
        }
    }
    std::cout << "== allreduce: " << G << " GPU(s), message sizes " << o.sizes.front() << " ... "
              << o.sizes.back() << "\n";
    notes.push_back("NCCL_NVLS_ENABLE=" + std::string(std::getenv("NCCL_NVLS_ENABLE")
                                                          ? std::getenv("NCCL_NVLS_ENABLE")
                                                          : "(unset: NCCL may use NVLink "
                                                            "multicast where the system has it)"));
    return finish(table, notes);
}

// The round-trip section in one process: every GPU driven from this thread, one call at a time.
bool run_round_trip(const std::vector<int>& devices, const Options& o, double link_gbs) {
    const GpuSet gpus(devices);
    ct::RunInfo info = run_info(
        "all-reduce as a caller who waits sees it: one call at a time, from the request to the "
        "result, timed on the host",
        devices, o);
    info.set("peer access between all pairs", gpus.all_peers_enabled() ? "yes" : "no");
    if (link_gbs <= 0 && gpus.size() > 1 && gpus.peer_enabled(0, 1)) {
        link_gbs = measure_link_gbs(devices[0], devices[1], o);
    }
    if (link_gbs > 0) {
        info.set("link (GPU 0 -> 1, measured)", ct::format_fixed(link_gbs, 1) + " GB/s");
    }
    ct::TableRun table(info, o.files_for("roundtrip"));
    const ct::BenchmarkConfig config = round_trip_config(o.common.benchmark_config());
    std::vector<std::string> notes;
    {
        ct::BenchmarkConfig floor = config;
        floor.stream = gpus.stream(0);
        const DeviceGuard guard(gpus.device(0));
        prepare_round_trip_table(table, floor);
    }
    if (gpus.all_peers_enabled()) {
        OneProcessTeam team(gpus);
        add_round_trip_rows(table, team, o.round_trip_bytes(), o.seed, config, link_gbs, notes);
    } else {
        notes.push_back("no peer access between all GPUs: the round-trip rows need it");
    }
    std::cout << "== roundtrip: " << devices.size() << " GPU(s), one call at a time\n";
    return finish(table, notes);
}

}  // namespace

double measure_link_gbs(int from, int to, const Options& o) {
    ct::BenchmarkConfig quick = o.common.benchmark_config();
    quick.repetitions = std::min(quick.repetitions, 10);
    quick.calls_per_sample = 1;
    const CopyMeasurement link =
        measure_copy(from, to, CopyPath::kPeerAccess,
                     std::min<std::size_t>(o.copy_bytes, std::size_t{1} << 28), quick);
    return link.row.passed ? ct::bandwidth_gbs(link.bytes, link.row.stats.median_ms) : 0.0;
}

namespace {

int verdict(bool passed) {
    return ct::to_int(passed ? ct::ExitCode::kSuccess : ct::ExitCode::kVerificationFailed);
}

}  // namespace

int topology_section(SectionContext& c) {
    return verdict(run_topology(c.gpus(), c.options, c.link_gbs));
}

int reduction_section(SectionContext& c) {
    return verdict(run_sharded_reduction(c.gpus(), c.options));
}

int histogram_section(SectionContext& c) {
    return verdict(run_sharded_histogram(c.gpus(), c.options));
}

int allreduce_section(SectionContext& c) {
    return verdict(run_allreduce(c.gpus(), c.options, c.link_gbs));
}

int roundtrip_section(SectionContext& c) {
    if (c.options.common.batch > 1) {  // named alone with --batch, validate() refused it
        std::cout << "== roundtrip: not run with --batch (it times one call at a time)\n\n";
        return ct::to_int(ct::ExitCode::kSuccess);
    }
    return verdict(run_round_trip(c.gpus(), c.options, c.link_gbs));
}

int network_section(SectionContext& c) {
    return run_network(c.options, c.argv);
}

SectionContext::SectionContext(const Options& o, char** program_argv)
    : options(o), argv(program_argv) {}

const std::vector<int>& SectionContext::gpus() {
    if (devices_.empty()) {
        devices_ = visible_gpus(options);
        std::cout << "multi_gpu: " << devices_.size() << " GPU(s) from device " << devices_.front()
                  << "; NCCL: " << nccl_version() << "\n\n";
    }
    return devices_;
}

}  // namespace multi_gpu
