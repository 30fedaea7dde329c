#include "copy_bandwidth.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <stdexcept>

#include "cudatutorial/check.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "measurement.hpp"
#include "worker_output.hpp"

namespace streams {

namespace ct = cudatutorial;

const char* host_memory_name(HostMemory memory) {
    switch (memory) {
        case HostMemory::kPageable:
            return "pageable (malloc)";
        case HostMemory::kPinned:
            return "pinned (cudaMallocHost)";
        case HostMemory::kRegistered:
            return "registered (cudaHostRegister)";
    }
    return "?";
}

const char* host_memory_key(HostMemory memory) {
    switch (memory) {
        case HostMemory::kPageable:
            return "pageable";
        case HostMemory::kPinned:
            return "pinned";
        case HostMemory::kRegistered:
            return "registered";
    }
    return "?";
}

const char* copy_direction_name(CopyDirection direction) {
    switch (direction) {
        case CopyDirection::kHostToDevice:
            return "H2D";
        case CopyDirection::kDeviceToHost:
            return "D2H";
        case CopyDirection::kBoth:
            return "H2D+D2H";
    }
    return "?";
}

std::vector<std::size_t> copy_sizes(std::size_t max_bytes) {
    if (max_bytes == 0 || max_bytes % 4 != 0) {
        throw std::invalid_argument(
            "copy_sizes: the largest copy must be a positive multiple of "
            "4 bytes, not " +
            std::to_string(max_bytes));
    }
    std::vector<std::size_t> sizes;
    for (std::size_t bytes = 4096; bytes < max_bytes; bytes *= 16) {
        sizes.push_back(bytes);
    }
    sizes.push_back(max_bytes);
    return sizes;
}

double CopyMeasurement::gbs() const {
    const double moved = static_cast<double>(bytes) * (direction == CopyDirection::kBoth ? 2 : 1);
    return ct::bandwidth_gbs(moved, stats.median_ms);
}

double CopyMeasurement::percent_of_link(const HostLink& link) const {
    return ct::percent_of(gbs(),
                          link.theoretical_gbs * (direction == CopyDirection::kBoth ? 2 : 1));
}

bool CopyBandwidthResult::passed() const {
    for (const auto& m : measurements) {
        if (!m.passed) {
            return false;
        }
    }
    return true;
}

namespace {

// Page-aligned memory from the C allocator, pinned in place with cudaHostRegister: what a program
// does with a buffer that some other code allocated.
class RegisteredBuffer {
  public:
    explicit RegisteredBuffer(std::size_t bytes) {
        const std::size_t rounded = (bytes + 4095) / 4096 * 4096;
        data_ = static_cast<std::uint32_t*>(std::aligned_alloc(4096, rounded));
        if (!data_) {
            throw std::bad_alloc();
        }
        const cudaError_t status = cudaHostRegister(data_, rounded, cudaHostRegisterDefault);
        if (status != cudaSuccess) {
            std::free(data_);
            ct::check_cuda(status, "cudaHostRegister", __FILE__, __LINE__);
        }
    }
    ~RegisteredBuffer() {
        cudaHostUnregister(data_);
        std::free(data_);
    }
    RegisteredBuffer(const RegisteredBuffer&) = delete;
    RegisteredBuffer& operator=(const RegisteredBuffer&) = delete;
    std::uint32_t* data() { return data_; }

  private:
    std::uint32_t* data_ = nullptr;
};

// The host side of one memory kind, as large as the largest copy.
struct HostSide {
    std::unique_ptr<std::uint32_t[]> pageable;
    ct::PinnedBuffer<std::uint32_t> pinned;
    std::unique_ptr<RegisteredBuffer> registered;
    std::uint32_t* data = nullptr;
};

HostSide make_host_side(HostMemory memory, std::size_t words) {
    HostSide side;
    switch (memory) {
        case HostMemory::kPageable:
            side.pageable.reset(new std::uint32_t[words]);
            side.data = side.pageable.get();
            break;
        case HostMemory::kPinned:
            side.pinned = ct::PinnedBuffer<std::uint32_t>(words);
            side.data = side.pinned.data();
            break;
        case HostMemory::kRegistered:
            side.registered = std::make_unique<RegisteredBuffer>(words * 4);
            side.data = side.registered->data();
            break;
    }
    return side;
}

// The first word of `got` that differs from `want`, or an empty string.
std::string first_wrong_word(const std::uint32_t* got, const std::vector<std::uint32_t>& want,
                             std::size_t words) {
    if (std::equal(got, got + words, want.begin())) {
        return {};
    }
    const auto wrong = std::mismatch(got, got + words, want.begin());
    const auto i = static_cast<std::size_t>(wrong.first - got);
    return "word " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
           std::to_string(want[i]);
}

}  // namespace

CopyBandwidthResult measure_copy_bandwidth(int device, std::size_t max_bytes, int warmup,
                                           int repetitions) {
    const std::vector<std::size_t> sizes = copy_sizes(max_bytes);
    const std::size_t words = max_bytes / 4;
    CopyBandwidthResult result;
    CT_CHECK(cudaDeviceGetAttribute(&result.copy_engines, cudaDevAttrAsyncEngineCount, device));

    ct::CudaStream stream(cudaStreamNonBlocking);
    ct::CudaStream other(cudaStreamNonBlocking);  // the second direction of kBoth
    ct::CudaEvent fork(cudaEventDisableTiming);
    ct::CudaEvent join(cudaEventDisableTiming);
    ct::DeviceBuffer<std::uint32_t> device_words(words);
    ct::DeviceBuffer<std::uint32_t> device_source(words);  // what kBoth copies back
    ct::PinnedBuffer<std::uint32_t> check(words);          // what the device holds, read back
    // What every copy must deliver: 32-bit words that differ from their neighbours, so a copy
    // that lands at the wrong offset fails as surely as one that never happened.
    std::vector<std::uint32_t> pattern(words);
    for (std::size_t i = 0; i < words; ++i) {
        pattern[i] = expected_output(0x6c0b1e5u, 7, static_cast<std::uint32_t>(i));
    }
    CT_CHECK(cudaMemcpy(device_source.data(), pattern.data(), max_bytes, cudaMemcpyHostToDevice));
    for (const HostMemory memory :
         {HostMemory::kPageable, HostMemory::kPinned, HostMemory::kRegistered}) {
        HostSide host = make_host_side(memory, words);
        const bool pinned = memory != HostMemory::kPageable;
        HostSide back = pinned ? make_host_side(memory, words) : HostSide{};  // kBoth's D2H
        for (const CopyDirection direction :
             {CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost, CopyDirection::kBoth}) {
            if (direction == CopyDirection::kBoth && !pinned) {
                continue;
            }
            const bool to_device = direction != CopyDirection::kDeviceToHost;
            const bool both = direction == CopyDirection::kBoth;
            // The source holds the pattern, the destination is poisoned: a copy that did not
            // happen, or stopped short, leaves 0xffffffff words behind.
            if (to_device) {
                std::memcpy(host.data, pattern.data(), max_bytes);
                CT_CHECK(cudaMemset(device_words.data(), 0xff, max_bytes));
            } else {
                CT_CHECK(cudaMemcpy(device_words.data(), pattern.data(), max_bytes,
                                    cudaMemcpyHostToDevice));
                std::memset(host.data, 0xff, max_bytes);
            }
            if (both) {
                std::memset(back.data, 0xff, max_bytes);
            }
            for (const std::size_t bytes : sizes) {
                CopyMeasurement m;
                m.memory = memory;
                m.direction = direction;
                m.bytes = bytes;
                const auto launch = [&](cudaStream_t s) {
                    if (both) {
                        // Fork: the copy back runs in `other`, started with the copy in, and
                        // `s` waits for it, so the harness's events on `s` cover both.
                        CT_CHECK(cudaEventRecord(fork.get(), s));
                        CT_CHECK(cudaStreamWaitEvent(other.get(), fork.get(), 0));
                        CT_CHECK(cudaMemcpyAsync(back.data, device_source.data(), bytes,
                                                 cudaMemcpyDeviceToHost, other.get()));
                        CT_CHECK(cudaEventRecord(join.get(), other.get()));
                    }
                    if (to_device) {
                        CT_CHECK(cudaMemcpyAsync(device_words.data(), host.data, bytes,
                                                 cudaMemcpyHostToDevice, s));
                    } else {
                        CT_CHECK(cudaMemcpyAsync(host.data, device_words.data(), bytes,
                                                 cudaMemcpyDeviceToHost, s));
                    }
                    if (both) {
                        CT_CHECK(cudaStreamWaitEvent(s, join.get(), 0));
                    }
                };
                const auto verify = [&]() {
                    const std::uint32_t* got = host.data;
                    if (to_device) {
                        CT_CHECK(cudaMemcpy(check.data(), device_words.data(), bytes,
                                            cudaMemcpyDeviceToHost));
                        got = check.data();
                    }
                    std::string wrong = first_wrong_word(got, pattern, bytes / 4);
                    if (wrong.empty() && both) {
                        wrong = first_wrong_word(back.data, pattern, bytes / 4);
                        wrong = wrong.empty() ? wrong : "the copy back: " + wrong;
                    }
                    return wrong.empty() ? ct::Verification::pass()
                                         : ct::Verification::fail(
                                               std::string(copy_direction_name(direction)) + " " +
                                               host_memory_key(memory) + ": " + wrong);
                };
                ct::BenchmarkConfig config;
                config.warmup = warmup;
                config.repetitions = repetitions;
                config.stream = stream.get();
                config.hold_stream = pinned;
                ct::StageHooks hooks;
                hooks.launch = launch;
                hooks.verify = verify;
                const ct::ResultRow measured = ct::time_stage(
                    {ct::format_bytes(static_cast<double>(bytes)),
                     std::string(copy_direction_name(direction)) + " " + host_memory_key(memory),
                     ""},
                    hooks, config);
                m.stats = measured.stats;
                m.passed = measured.passed;
                m.detail = measured.detail;
                result.measurements.push_back(m);
            }
        }
    }
    result.link = read_host_link(device);
    return result;
}

void print_copy_bandwidth(std::ostream& out, const CopyBandwidthResult& result) {
    const bool percent = result.link.theoretical_gbs > 0;
    out << "host link: " << result.link.describe() << "\n"
        << "copy engines (cudaDevAttrAsyncEngineCount): " << result.copy_engines << "\n"
        << "GB/s = bytes / median time of one copy between two CUDA events"
        << (percent ? "; in brackets: % of the link's theoretical rate" : "")
        << "\nH2D+D2H: a copy each way at the same time (two streams), the bytes of both "
           "directions"
        << (percent ? " against twice the rate (PCIe is full duplex)" : "") << "\n";
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> header = {"size"};
    std::vector<std::size_t> sizes;
    for (const auto& m : result.measurements) {
        const std::string column =
            std::string(copy_direction_name(m.direction)) + " " + host_memory_key(m.memory);
        if (std::find(header.begin(), header.end(), column) == header.end()) {
            header.push_back(column);
        }
        if (std::find(sizes.begin(), sizes.end(), m.bytes) == sizes.end()) {
            sizes.push_back(m.bytes);
        }
    }
    rows.push_back(header);
    for (const std::size_t bytes : sizes) {
        std::vector<std::string> row = {ct::format_bytes(static_cast<double>(bytes))};
        for (std::size_t c = 1; c < header.size(); ++c) {
            for (const auto& m : result.measurements) {
                const std::string column =
                    std::string(copy_direction_name(m.direction)) + " " + host_memory_key(m.memory);
                if (m.bytes != bytes || column != header[c]) {
                    continue;
                }
                std::string cell = ct::format_fixed(m.gbs(), 1);
                if (percent) {
                    cell += " (" + ct::format_fixed(m.percent_of_link(result.link), 0) + "%)";
                }
                row.push_back(m.passed ? cell : cell + " FAIL");
            }
        }
        rows.push_back(row);
    }
    ct::print_aligned(out, rows, {0});
    for (const auto& m : result.measurements) {
        if (!m.passed) {
            out << "  FAILED: " << m.detail << "\n";
        }
    }
}

std::vector<cudatutorial::ResultRow> copy_bandwidth_rows(const CopyBandwidthResult& result) {
    std::vector<ct::ResultRow> rows;
    std::size_t largest = 0;
    for (const auto& m : result.measurements) {
        largest = std::max(largest, m.bytes);
    }
    int index = 0;
    for (const auto& m : result.measurements) {
        if (m.bytes != largest) {
            continue;
        }
        // No bytes (GB/s of the host link, not of DRAM: an extra column, not "% peak"). The row
        // stands for every size of its kind and direction: a smaller copy that failed fails it
        // too, so the program's exit code cannot miss it.
        ct::ResultRow row = scenario_row(
            "7." + std::to_string(++index),
            std::string(copy_direction_name(m.direction)) + "_" + host_memory_key(m.memory),
            m.stats, ct::Verification::pass());
        for (const auto& other : result.measurements) {
            if (other.memory == m.memory && other.direction == m.direction && !other.passed &&
                row.passed) {
                row.passed = false;
                row.detail = other.detail + " (" +
                             ct::format_bytes(static_cast<double>(other.bytes)) + " copy)";
            }
        }
        row.with("size", ct::format_bytes(static_cast<double>(m.bytes)))
            .with("link GB/s", ct::format_fixed(m.gbs(), 1));
        if (result.link.theoretical_gbs > 0) {
            row.with("% of link", ct::format_fixed(m.percent_of_link(result.link), 0));
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::vector<cudatutorial::ResultRow> run_copy_bandwidth_scenario(std::ostream& out,
                                                                 const ScenarioConfig& config,
                                                                 int warmup, int repetitions) {
    const ScenarioInfo& info = scenario_info(kCopyBandwidthScenario);
    out << "== scenario " << info.id << ": " << info.name << " ==\n" << info.idea << "\n";
    const CopyBandwidthResult result =
        measure_copy_bandwidth(config.device, config.copy_max_bytes, warmup, repetitions);
    print_copy_bandwidth(out, result);
    out << "\n";
    return copy_bandwidth_rows(result);
}

}  // namespace streams
