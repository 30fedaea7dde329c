// Scenarios 7 and 8's options: rejected with a message and exit code 2, before any GPU work.
#include <gtest/gtest.h>

#include <string>

#include "process.hpp"

using cudatutorial::testing::run_process;

TEST(PipelineCli, BadSizesAndChunkCountsExitWithTwo) {
    for (const char* args :
         {"--copy-max 0", "--copy-max 6", "--copy-max 2Gi", "--copy-max x", "--pipeline-n 0",
          "--pipeline-n 2^29", "--chunks 0", "--chunks 65", "--chunks 1,x",
          "--chunks 9 --pipeline-n 8", "--rounds -1", "--rounds 1000001", "--scenario 9"}) {
        SCOPED_TRACE(args);
        const auto result = run_process(std::string(STREAMS_BIN) + " " + args);
        EXPECT_EQ(result.exit_code, 2) << result.output;
        EXPECT_FALSE(result.output.empty());
    }
}

TEST(PipelineCli, MessagesNameTheOption) {
    auto result = run_process(std::string(STREAMS_BIN) + " --copy-max 6");
    EXPECT_NE(result.output.find("multiple of 4"), std::string::npos) << result.output;
    result = run_process(std::string(STREAMS_BIN) + " --chunks 9 --pipeline-n 8");
    EXPECT_NE(result.output.find("--chunks"), std::string::npos) << result.output;
    result = run_process(std::string(STREAMS_BIN) + " --pipeline-n 2^29");
    EXPECT_NE(result.output.find("--pipeline-n"), std::string::npos) << result.output;
}

TEST(PipelineCli, HelpListsTheDataScenarios) {
    const auto result = run_process(std::string(STREAMS_BIN) + " --help");
    EXPECT_EQ(result.exit_code, 0) << result.output;
    for (const char* text : {"--copy-max", "--pipeline-n", "--chunks", "--rounds",
                             "7 pinned vs pageable", "8 the copy/compute pipeline"}) {
        EXPECT_NE(result.output.find(text), std::string::npos) << text;
    }
}
