/// @file copy_link.hpp
/// @brief The link between host memory and the GPU, as the driver reports it: a PCIe link
/// (generation and width, read through NVML) or NVLink-C2C (Grace Hopper and later), and the
/// theoretical rate per direction that the measured copies are compared with.
///
/// NVML (libnvidia-ml.so.1) ships with the driver, not with the toolkit: it is loaded when the
/// program runs, so that the program (and `streams --help` on a machine without a driver) starts
/// without it. When it is missing, the program says so and prints no "% of link" column.
#pragma once

#include <string>

namespace streams {

/// Bytes per second one PCIe lane carries in one direction, in GB/s (10^9 B/s), after the line
/// encoding: 8b/10b for generations 1-2 (2.5 and 5 GT/s), 128b/130b for 3-5 (8, 16, 32 GT/s),
/// and for generation 6 (64 GT/s, PAM4 with FLIT mode) 242 payload bytes of each 256-byte FLIT.
/// 0 for an unknown generation. Packet headers cost another few percent that no table lists.
double pcie_lane_gbs(unsigned int generation);

/// pcie_lane_gbs(generation) * width: gen 5 x16 gives 63.0 GB/s per direction.
double pcie_link_gbs(unsigned int generation, unsigned int width);

/// What the program found out about the host link.
struct HostLink {
    enum class Kind { kUnknown, kPcie, kC2c };
    Kind kind = Kind::kUnknown;
    bool nvml_loaded = false;  ///< libnvidia-ml.so.1 was found and initialized
    std::string problem;       ///< why the link is unknown (NVML missing, a call failed...)
    unsigned int current_generation = 0;  ///< PCIe: nvmlDeviceGetCurrPcieLinkGeneration
    unsigned int current_width = 0;       ///< PCIe: nvmlDeviceGetCurrPcieLinkWidth
    unsigned int max_generation = 0;      ///< PCIe: nvmlDeviceGetMaxPcieLinkGeneration
    unsigned int max_width = 0;           ///< PCIe: nvmlDeviceGetMaxPcieLinkWidth
    unsigned int c2c_links = 0;           ///< C2C: active links
    double theoretical_gbs = 0.0;         ///< per direction; 0 when unknown (no % column)

    /// "PCIe gen 5 x16 (max gen 5 x16), 63.0 GB/s per direction" or why it is unknown.
    std::string describe() const;
};

/// Reads the link of CUDA device `device` through NVML. Never throws: a missing NVML or a failing
/// call gives kind kUnknown with `problem` set. The current PCIe generation can drop while the GPU
/// idles (power saving), so the theoretical rate uses NVML's maximum generation and width (what
/// both the GPU and its slot support); the current ones are shown beside it, read after a copy.
HostLink read_host_link(int device);

}  // namespace streams
