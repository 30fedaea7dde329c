// The stage list: ids and names unique, in table order, with the roles and precisions the table
// and the checks depend on, and every stage's file present (and every stage file in the list).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "matmul.hpp"

namespace fs = std::filesystem;
using cudatutorial::StageRole;

TEST(MatmulRegistry, IdsInTableOrderAndUnique) {
    std::vector<std::string> ids;
    std::set<std::string> names;
    for (const matmul::StageInfo& stage : matmul::stages()) {
        ids.push_back(stage.id);
        EXPECT_TRUE(names.insert(stage.name).second) << stage.name;
        EXPECT_FALSE(stage.idea.empty()) << stage.id;
    }
    EXPECT_EQ(ids, (std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8", "9", "cublas",
                                             "tf32", "10", "11", "12", "13", "14", "cublas_bf16"}));
}

TEST(MatmulRegistry, RolesAndPrecisions) {
    for (const matmul::StageInfo& stage : matmul::stages()) {
        const bool library =
            stage.id == "cublas" || stage.id == "tf32" || stage.id == "cublas_bf16";
        const bool bf16 = stage.id == "10" || stage.id == "11" || stage.id == "12" ||
                          stage.id == "13" || stage.id == "14" || stage.id == "cublas_bf16";
        EXPECT_EQ(stage.role, library ? StageRole::kBaseline : StageRole::kProgression) << stage.id;
        // One launcher for our own stages, of the kind of their operands; none for cuBLAS.
        EXPECT_EQ(stage.launch != nullptr, !library && !bf16) << stage.id;
        EXPECT_EQ(stage.launch_bf16 != nullptr, !library && bf16) << stage.id;
        EXPECT_EQ(stage.precision == matmul::Precision::kTf32, stage.id == "tf32") << stage.id;
        EXPECT_EQ(stage.precision == matmul::Precision::kBf16, bf16) << stage.id;
        // BF16 on the tensor cores needs compute capability 8.0; the FP32 stages run anywhere.
        EXPECT_EQ(stage.sm90a_only, stage.id == "12" || stage.id == "13" || stage.id == "14")
            << stage.id;
        // Only the persistent stage has a schedule to describe.
        EXPECT_EQ(stage.schedule != nullptr, stage.id == "14") << stage.id;
        EXPECT_EQ(stage.min_compute_capability, stage.sm90a_only ? 90 : bf16 ? 80 : 0) << stage.id;
        EXPECT_TRUE(stage.by_default) << stage.id;
        EXPECT_EQ(stage.uses_tuner, stage.id == "8") << stage.id;
    }
    EXPECT_EQ(matmul::find_stage("shared_tiling"), matmul::find_stage("3"));  // by name too
    EXPECT_EQ(matmul::find_stage("99"), nullptr);
}

TEST(MatmulRegistry, EveryStageFileIsNamedExistsAndHoldsItsKernel) {
    // A row names the file that holds its kernel: a .cu, or the .cuh of a kernel template that
    // the .cu of the same name launches (stage 7, whose template stage 8 instantiates).
    const fs::path chapter = MATMUL_CHAPTER_DIR;
    std::set<std::string> stems;
    for (const matmul::StageInfo& stage : matmul::stages()) {
        ASSERT_FALSE(stage.source.empty()) << stage.id;
        ASSERT_TRUE(fs::is_regular_file(chapter / stage.source)) << stage.source;
        stems.insert(fs::path(stage.source).stem().string());
        std::ifstream in(chapter / stage.source);
        std::stringstream text;
        text << in.rdbuf();
        const bool kernel =
            text.str().find("__global__") != std::string::npos ||
            text.str().find("#include \"stage7_warp_tiling.cuh\"") != std::string::npos;
        const bool ours = stage.launch != nullptr || stage.launch_bf16 != nullptr;
        EXPECT_TRUE(ours ? kernel : text.str().find("cublas") != std::string::npos) << stage.source;
    }
    for (const auto& entry : fs::directory_iterator(chapter / "stages")) {
        if (entry.path().extension() == ".cu") {
            EXPECT_TRUE(stems.count(entry.path().stem().string()))
                << entry.path().filename() << " is in no row of the stage list";
        }
    }
}

TEST(MatmulRegistry, Stage8CandidatesAreNamedAndTheFirstIsStage7s) {
    ASSERT_GE(matmul::tuning_candidates(), 1);  // 1 in a build for the fallback architectures
    std::set<std::string> names;
    for (int i = 0; i < matmul::tuning_candidates(); ++i) {
        EXPECT_TRUE(names.insert(matmul::tuning_candidate_name(i)).second) << i;
    }
    EXPECT_EQ(matmul::tuning_candidate_name(0), "128x128 tile, 64x32 warps");
}

TEST(MatmulRegistry, AStageGivenTheOtherKindOfOperandsRefuses) {
    // Neither call reaches the GPU: the Multiplier refuses before launching.
    const matmul::Shape shape{8, 8, 8};
    const matmul::Multiplier tensor("10", shape);
    EXPECT_THROW(tensor.run(static_cast<const float*>(nullptr), nullptr, nullptr, nullptr),
                 std::logic_error);
    const matmul::Multiplier cuda_cores("3", shape);
    EXPECT_THROW(
        cuda_cores.run(static_cast<const matmul::Bf16*>(nullptr), nullptr, nullptr, nullptr),
        std::logic_error);
}
