// One process per GPU: how work runs across machines. Each process (a "rank") drives one GPU and
// joins the others through NCCL, which needs one thing from outside: the unique id that rank 0
// makes and every rank passes to ncclCommInitRank. Under mpirun (with MPI in the build) MPI
// broadcasts it; otherwise rank 0 writes it to a file the others read (`--ranks G` starts the
// G processes itself, on this machine).
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <thread>

#if CT_HAVE_MPI
#include <mpi.h>
#endif

#include "allreduce_table.hpp"
#include "cudatutorial/benchmark.hpp"
#include "cudatutorial/check.hpp"
#include "cudatutorial/cli.hpp"
#include "cudatutorial/cuda_handles.hpp"
#include "cudatutorial/device_buffer.hpp"
#include "cudatutorial/device_info.hpp"
#include "cudatutorial/report.hpp"
#include "multi_gpu.hpp"
#include "nccl_support.hpp"
#include "options.hpp"
#include "peer_team.hpp"
#include "reduction.hpp"
#include "roundtrip.hpp"

namespace ct = cudatutorial;

namespace multi_gpu {
namespace {

struct RankEnvironment {
    bool is_rank = false;
    bool from_mpirun = false;
    int rank = 0;
    int ranks = 1;
    int local_rank = 0;
    std::string id_file;
};

int env_int(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value ? std::atoi(value) : fallback;
}

RankEnvironment detect_rank() {
    RankEnvironment env;
    if (std::getenv("CT_RANK")) {  // started by --ranks
        env.is_rank = true;
        env.rank = env_int("CT_RANK", 0);
        env.ranks = env_int("CT_RANKS", 1);
        env.local_rank = env.rank;
        env.id_file = std::getenv("CT_ID_FILE") ? std::getenv("CT_ID_FILE") : "";
    } else if (std::getenv("OMPI_COMM_WORLD_RANK")) {  // Open MPI's mpirun
        env.is_rank = true;
        env.from_mpirun = true;
        env.rank = env_int("OMPI_COMM_WORLD_RANK", 0);
        env.ranks = env_int("OMPI_COMM_WORLD_SIZE", 1);
        env.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env.rank);
    } else if (std::getenv("PMI_RANK")) {  // MPICH's and others' launchers
        env.is_rank = true;
        env.from_mpirun = true;
        env.rank = env_int("PMI_RANK", 0);
        env.ranks = env_int("PMI_SIZE", 1);
        env.local_rank = env_int("MPI_LOCALRANKID", env.rank);
    }
    return env;
}

// Rank 0 writes the id next to its final name and renames it: a reader never sees half a file.
// What identifies this job to all of its ranks: the id that the launcher gives every rank.
std::string job_tag() {
    for (const char* name : {"CT_JOB", "OMPI_MCA_ess_base_jobid", "PMI_JOBID", "SLURM_JOB_ID"}) {
        if (const char* value = std::getenv(name)) {
            return std::string(name) + "=" + value;
        }
    }
    return "no job id";
}

std::string exchange_id_through_file(const RankEnvironment& env, const std::string& path) {
    if (path.empty()) {
        throw ct::UsageError(
            "under mpirun without MPI in this build, give --id-file PATH (a file "
            "every rank can read)");
    }
    // The file starts with a tag of this job (the launcher's job id), so that a file left by an
    // earlier run that crashed is never taken for this run's.
    const std::string tag = job_tag() + "\n";
    if (env.rank == 0) {
        const std::string id = detail::make_nccl_unique_id();
        const std::string temporary = path + ".tmp";
        {
            std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
            out.write(tag.data(), static_cast<std::streamsize>(tag.size()));
            out.write(id.data(), static_cast<std::streamsize>(id.size()));
            if (!out) {
                throw ct::UsageError("cannot write the NCCL id file " + temporary);
            }
        }
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            throw ct::UsageError("cannot rename " + temporary + " to " + path);
        }
        return id;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        std::ifstream in(path, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        if (text.size() == tag.size() + 128 && text.compare(0, tag.size(), tag) == 0) {
            return text.substr(tag.size());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    throw ct::CudaError(
        cudaErrorUnknown,
        "rank " + std::to_string(env.rank) + ": no NCCL id from rank 0 in " + path + " after 60 s");
}

std::string exchange_id(const RankEnvironment& env, const Options& o) {
#if CT_HAVE_MPI
    if (env.from_mpirun && o.id_file.empty()) {
        int initialized = 0;
        MPI_Initialized(&initialized);
        if (!initialized) {
            MPI_Init(nullptr, nullptr);
        }
        std::string id(128, '\0');
        if (env.rank == 0) {
            id = detail::make_nccl_unique_id();
        }
        MPI_Bcast(id.data(), 128, MPI_BYTE, 0, MPI_COMM_WORLD);
        return id;
    }
#endif
    return exchange_id_through_file(env, env.from_mpirun ? o.id_file : env.id_file);
}

// ---- The network section: two rounds of ranks, one table ---------------------------------------

// A round's rows travel from its rank 0 to the launcher as lines of tab-separated fields.
void write_round_rows(const ct::ResultTable& table, const std::string& round, const char* path) {
    if (path == nullptr) {
        throw ct::UsageError("a network round needs CT_ROWS_FILE");
    }
    std::ofstream out(path, std::ios::app);
    out.precision(17);
    for (const ct::ResultRow& row : table.rows()) {
        out << round << '\t' << row.group << '\t' << row.bytes << '\t' << row.stats.median_ms
            << '\t' << row.stats.min_ms << '\t' << row.stats.max_ms << '\t' << row.stats.mean_ms
            << '\t' << row.stats.samples << '\t' << (row.passed ? 1 : 0) << '\t' << row.detail
            << '\n';
    }
    if (!out) {
        throw ct::UsageError(std::string("cannot write ") + path);
    }
}

void finalize_mpi() {
#if CT_HAVE_MPI
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
        MPI_Finalize();
    }
#endif
}

// ---- One rank ----------------------------------------------------------------------------------

// The GPU a rank drives: its local rank's, one GPU per rank (exit 2 when there are too few).
int rank_device(const RankEnvironment& env, int count) {
    if (count == 0) {
        ct::select_device(0);  // the chapters' no-device error, exit 3
    }
    const int local_ranks = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", env_int("MPI_LOCALNRANKS", 1));
    if (local_ranks > count || env.local_rank >= count) {
        throw ct::UsageError("rank " + std::to_string(env.rank) + ": " +
                             std::to_string(std::max(local_ranks, env.local_rank + 1)) +
                             " ranks on this machine, " + std::to_string(count) +
                             " GPUs: one GPU per rank");
    }
    return env.local_rank;
}

ct::RunInfo rank_run_info(const RankEnvironment& env, const Options& o,
                          const ct::DeviceInfo& device, bool round_trip) {
    ct::RunInfo info = ct::make_run_info(
        "multi_gpu",
        round_trip
            ? "all-reduce as a caller who waits sees it, one process per GPU (" +
                  std::to_string(env.ranks) +
                  " ranks): one call at a time, from the request to the result, timed on "
                  "the host"
            : "one process per GPU (" + std::to_string(env.ranks) + " ranks), joined by NCCL",
        device);
    info.peak_bandwidth_gbs = 0;
    info.set("ranks", std::to_string(env.ranks));
    info.set("launched by", env.from_mpirun ? "mpirun" : "--ranks");
    info.set("NCCL", nccl_version());
    info.set("reps", std::to_string(o.common.repetitions));
    return info;
}

// The sharded reduction: every rank makes the same input (the generator is counter-based),
// checks the same expected sum, uploads only its own shard, and NCCL all-reduces the partials.
ct::ResultRow sharded_reduction_row(const RankEnvironment& env, const Options& o,
                                    const detail::NcclComms& comm,
                                    const ct::BenchmarkConfig& config) {
    const std::size_t n = static_cast<std::size_t>(o.n);
    const std::vector<int> host = reduction::make_input(reduction::Pattern::kRandom, n, o.seed);
    const int expected = reduction::reference_sum(host);
    const Range shard = split_range(n, env.ranks, env.rank, 4);
    ct::DeviceBuffer<int> d_shard(shard.size());
    d_shard.copy_from_host(host.data() + shard.begin, shard.size());
    ct::DeviceBuffer<unsigned int> d_partial(1);
    ct::DeviceBuffer<unsigned int> d_total(1);
    std::unique_ptr<reduction::Reducer> reducer;
    if (!shard.empty()) {
        reducer = std::make_unique<reduction::Reducer>(o.reduction_stage, shard.size(), o.block);
    }
    ct::StageHooks hooks;
    hooks.poison = [&] {
        d_total.fill_bytes(0xff);
        CT_CHECK(cudaDeviceSynchronize());
    };
    hooks.launch = [&](cudaStream_t s) {
        int* partial = reinterpret_cast<int*>(d_partial.data());
        if (reducer) {
            reducer->run(d_shard.data(), partial, s);
        } else {
            CT_CHECK(cudaMemsetAsync(partial, 0, sizeof(int), s));
        }
        detail::nccl_allreduce(comm, {s}, {d_partial.data()}, {d_total.data()}, 1,
                               detail::NcclType::kUint32, detail::NcclOp::kSum);
    };
    hooks.verify = [&] {
        unsigned int got = 0;
        d_total.copy_to_host(&got, 1);
        const int sum = static_cast<int>(got);
        return sum == expected ? ct::Verification::pass()
                               : ct::Verification::fail("rank " + std::to_string(env.rank) +
                                                        ": sum " + std::to_string(sum) +
                                                        ", expected " + std::to_string(expected));
    };
    hooks.bytes = ct::MemoryTraffic().reads<int>(n);
    hooks.group = ct::describe_size(n) + " ints";
    ct::ResultRow row = ct::time_stage(
        {"reduction",
         "stage " + o.reduction_stage + " per rank + ncclAllReduce of the partial sums", ""},
        hooks, config);
    row.in_progression = false;
    return row;
}

// "% of link": the one-way rate of a peer copy between the first two GPUs, measured by rank 0
// (which can address GPU 1 on this machine) while the others wait; 0 on every other rank.
double rank_link_gbs(const RankEnvironment& env, const Options& o, int count, int device,
                     RankTeam& team) {
    double link_gbs = 0;
    if (env.rank == 0 && env.ranks > 1 && count > 1) {
        int can = 0;
        CT_CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
        if (can) {
            link_gbs = measure_link_gbs(0, 1, o);
        }
        ct::select_device(device);
    }
    team.barrier();
    return link_gbs;
}

// The all-reduce stages that run in one process per GPU (those made on a team: the peer-memory
// stages, through CUDA IPC, and NCCL; only NCCL in a network round), every rank's result
// checked bit for bit. Every rank makes and runs the same stages in the same order: making one
// is collective (the ranks swap IPC handles), and so is every run.
void add_team_rows(ct::TableRun& table, RankTeam& team, const RankEnvironment& env,
                   const Options& o, ct::BenchmarkConfig config, double link_gbs,
                   bool network_round, std::vector<std::string>& notes) {
    for (std::uint64_t bytes : o.message_bytes()) {
        const std::size_t n = static_cast<std::size_t>(bytes / sizeof(float));
        ct::DeviceBuffer<float> send(allreduce_input(o.seed, env.rank, n));
        ct::DeviceBuffer<float> recv(n);
        const std::vector<float> expected = allreduce_expected(o.seed, env.ranks, n);
        for (const AllReduceStage& stage : allreduce_stages()) {
            if (network_round && stage.role != Role::kBaseline) {
                continue;  // across machines only NCCL runs (README)
            }
            if (const std::string only = round_trip_only_note(stage); !only.empty()) {
                add_note_once(notes, only);
                continue;
            }
            if (stage.make_team == nullptr) {
                add_note_once(notes, "stage " + stage.id +
                                         " not run: it gathers everything in GPU 0's process, a "
                                         "one-process design");
                continue;
            }
            const std::string skip = allreduce_skip_reason(stage, bytes, env.ranks, true);
            if (!skip.empty()) {
                add_note_once(notes, skip);
                continue;
            }
            recv.fill_bytes(0xff);  // NaN everywhere: an element never written cannot pass
            CT_CHECK(cudaDeviceSynchronize());
            config.label = "rank " + std::to_string(env.rank) + " allreduce stage " + stage.id +
                           " " + size_group(bytes);  // the NVTX range of the timed runs
            std::unique_ptr<TeamAllReducer> reducer =
                stage.make_team(team, {send.data()}, {recv.data()}, n);
            // No poison hook: recv was poisoned above, before the collective make_team, so that
            // no peer can have stored into it yet.
            ct::StageHooks hooks = allreduce_hooks(bytes, env.ranks, link_gbs);
            hooks.launch = [&](cudaStream_t) { reducer->run(); };
            hooks.verify = [&] {
                const std::vector<float> got = recv.to_host();
                if (std::memcmp(got.data(), expected.data(), n * sizeof(float)) == 0) {
                    return ct::Verification::pass();
                }
                return ct::Verification::fail("rank " + std::to_string(env.rank) +
                                              ": all-reduce result differs from the CPU's");
            };
            table.add(ct::time_stage(stage, hooks, config));
            if (!reducer->remark().empty()) {
                add_note_once(notes, reducer->remark());
            }
            // The peers map this rank's buffers: no rank frees anything (the reducer's
            // workspace now, send and recv at the end of the size) before every rank is done.
            CT_CHECK(cudaStreamSynchronize(team.stream_of(0)));
            team.barrier();
            reducer.reset();
            team.barrier();
        }
    }
}

// One verdict for all ranks (the minimum over the ranks, so every rank exits with the same
// code); rank 0 prints and writes the table, or hands a network round's rows to the launcher.
int finish_rank(ct::TableRun& table, const RankEnvironment& env, const Options& o,
                const detail::NcclComms& comm, cudaStream_t stream, const char* network_round,
                bool round_trip) {
    ct::DeviceBuffer<unsigned int> verdict(1);
    const unsigned int mine = table.table().all_passed() ? 1u : 0u;
    verdict.copy_from_host(&mine, 1);
    detail::nccl_allreduce(comm, {stream}, {verdict.data()}, {verdict.data()}, 1,
                           detail::NcclType::kUint32, detail::NcclOp::kMin);
    CT_CHECK(cudaStreamSynchronize(stream));
    unsigned int all = 0;
    verdict.copy_to_host(&all, 1);
    int code = ct::to_int(all ? ct::ExitCode::kSuccess : ct::ExitCode::kVerificationFailed);
    if (env.rank == 0 && network_round != nullptr) {
        write_round_rows(table.table(), network_round, std::getenv("CT_ROWS_FILE"));
    } else if (env.rank == 0) {
        std::cout << (round_trip ? "== ranks: one process per GPU, round trips\n"
                                 : "== ranks: one process per GPU\n");
        table.add_note(all ? "every rank verified its results"
                           : "at least one rank's results did not match the CPU (see its output)");
        code = table.finish(all != 0);  // rank 0 alone prints and writes the table
    } else if (!table.table().all_passed()) {
        for (const ct::ResultRow& row : table.table().rows()) {
            if (!row.passed) {
                std::cerr << "rank " << env.rank << ", " << row.id << ": " << row.detail << "\n";
            }
        }
    }
    if (env.rank == 0 && env.from_mpirun && !o.id_file.empty()) {
        std::remove(o.id_file.c_str());  // every rank has joined: nobody reads it any more
    }
    return code;
}

// The rank's work: the sharded reduction (each rank one shard, the partial sums all-reduced by
// NCCL) and the all-reduce stages, or the round-trip table (--stage roundtrip), or a network
// round's NCCL rows; every result verified on every rank.
int run_rank(const RankEnvironment& env, const Options& o) {
    const int count = ct::cuda_device_count();
    const int device = rank_device(env, count);
    const ct::DeviceInfo info_device = ct::select_device(device);
    const std::shared_ptr<detail::NcclComms> comm =
        detail::make_nccl_rank_comm(exchange_id(env, o), env.ranks, env.rank);
    // Blocking, so that it waits for the cudaMemset/cudaMemcpy set-up calls (legacy stream).
    ct::CudaStream stream(cudaStreamDefault);
    // A round of the network section (launch_network): NCCL's rows only, handed to the launcher.
    const char* network_round = std::getenv("CT_NETWORK_ROUND");
    const bool round_trip = o.sections == std::vector<std::string>{"roundtrip"};

    ct::TableRun table(rank_run_info(env, o, info_device, round_trip), o.common);
    ct::BenchmarkConfig config = o.common.benchmark_config();
    config.stream = stream;
    if (round_trip) {
        config = round_trip_config(config);
        prepare_round_trip_table(table, config);
    } else {
        prepare_allreduce_table(table, config);
    }
    if (network_round == nullptr && !round_trip) {
        table.add(sharded_reduction_row(env, o, *comm, config));
    }
    RankTeam team(env.rank, env.ranks, device, stream, comm);
    std::vector<std::string> notes;
    const double link_gbs =
        network_round != nullptr ? 0.0 : rank_link_gbs(env, o, count, device, team);
    if (link_gbs > 0) {
        table.info().set("link (GPU 0 -> 1, measured)", ct::format_fixed(link_gbs, 1) + " GB/s");
    }
    if (round_trip) {
        add_round_trip_rows(table, team, o.round_trip_bytes(), o.seed, config, link_gbs, notes);
    } else {
        add_team_rows(table, team, env, o, config, link_gbs, network_round != nullptr, notes);
    }
    for (const std::string& note : notes) {
        table.add_note(note);
    }
    const int code = finish_rank(table, env, o, *comm, stream, network_round, round_trip);
    finalize_mpi();
    return code;
}

// Environment variables a launcher sets for its ranks, beyond their rank.
using Environment = std::vector<std::pair<std::string, std::string>>;

// `--ranks G`: G copies of this program, each told its rank through the environment. Returns the
// worst exit code.
int start_ranks(const Options& o, char** argv, int ranks, const Environment& extra) {
    if (!nccl_available()) {
        throw ct::UsageError("--ranks", "needs a build with NCCL");
    }
    const int devices = ct::cuda_device_count();
    if (devices == 0) {
        ct::select_device(0);  // the chapters' no-device error (exit 3), before any process starts
    }
    if (ranks > devices) {
        throw ct::UsageError("--ranks", std::to_string(ranks) +
                                            ": one GPU per rank, and this machine has " +
                                            std::to_string(devices));
    }
    const std::string id_file =
        o.id_file.empty() ? "/tmp/multi_gpu_nccl_id_" + std::to_string(getpid()) : o.id_file;
    std::remove(id_file.c_str());
    std::cout << std::flush;
    std::vector<pid_t> children;
    for (int r = 0; r < ranks; ++r) {
        const pid_t pid = fork();
        if (pid < 0) {
            throw ct::CudaError(cudaErrorUnknown, "fork failed");
        }
        if (pid == 0) {
            setenv("CT_RANK", std::to_string(r).c_str(), 1);
            setenv("CT_RANKS", std::to_string(ranks).c_str(), 1);
            setenv("CT_ID_FILE", id_file.c_str(), 1);
            setenv("CT_JOB", std::to_string(getppid()).c_str(), 1);
            for (const auto& [name, value] : extra) {
                setenv(name.c_str(), value.c_str(), 1);
            }
            execv("/proc/self/exe", argv);
            std::perror("execv");
            _exit(3);
        }
        children.push_back(pid);
    }
    // Wait for whichever rank ends first. A rank that fails leaves the others blocked inside
    // NCCL, waiting for it forever: stop them, so that a failure never becomes a hang.
    int worst = 0;
    std::size_t running = children.size();
    while (running > 0) {
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0) {
            break;
        }
        --running;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
        if (code != 0 && worst == 0) {
            for (pid_t other : children) {
                if (other != pid) {
                    kill(other, SIGTERM);
                }
            }
        }
        worst = std::max(worst, code);
    }
    std::remove(id_file.c_str());
    return worst;
}

// `--section network`: the same ranks twice, NCCL only: over NVLink (its peer-to-peer
// transport, as in every other table), then with peer-to-peer and shared memory switched off,
// so that NCCL moves every byte through its network transport, TCP sockets on the loopback
// interface, as it would between two machines without InfiniBand. One table from both rounds.
int launch_network(const Options& o, char** argv) {
    if (!nccl_available()) {
        throw ct::UsageError("--stage", "network needs a build with NCCL");
    }
    if (ct::cuda_device_count() == 0) {
        ct::select_device(0);  // the chapters' no-device error (exit 3)
    }
    const int ranks = o.ranks > 0 ? o.ranks : 2;
    const std::string rows_path = "/tmp/multi_gpu_network_rows_" + std::to_string(getpid());
    std::remove(rows_path.c_str());
    const Environment sockets = {{"NCCL_P2P_DISABLE", "1"},
                                 {"NCCL_SHM_DISABLE", "1"},
                                 {"NCCL_NET", "Socket"},
                                 {"NCCL_IB_DISABLE", "1"},
                                 {"NCCL_SOCKET_IFNAME", "lo"}};
    for (const auto& [round, extra] :
         std::vector<std::pair<std::string, Environment>>{{"nvlink", {}}, {"sockets", sockets}}) {
        Environment env = extra;
        env.push_back({"CT_NETWORK_ROUND", round});
        env.push_back({"CT_ROWS_FILE", rows_path});
        std::cout << "== network: round " << round << " (" << ranks << " ranks)\n" << std::flush;
        const int code = start_ranks(o, argv, ranks, env);
        if (code != 0) {
            std::remove(rows_path.c_str());
            return code;
        }
    }
    // Both rounds are done: this process may now use the GPU for the run information.
    ct::RunInfo info = ct::make_run_info(
        "multi_gpu",
        "NCCL all-reduce, one process per GPU (" + std::to_string(ranks) +
            " ranks): NVLink against the network transport (TCP sockets on loopback), two "
            "machines simulated",
        ct::query_device(0));
    info.peak_bandwidth_gbs = 0;
    info.set("ranks", std::to_string(ranks));
    info.set("NCCL", nccl_version());
    info.set("reps", std::to_string(o.common.repetitions));
    info.set("sockets round",
             "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_NET=Socket "
             "NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo");
    ct::TableRun table(info, o.common);
    prepare_allreduce_table(table, o.common.benchmark_config());
    const AllReduceStage nvlink =
        AllReduceStage("nccl", "nccl_allreduce_nvlink",
                       "NCCL over NVLink (its peer-to-peer transport): one machine")
            .with_role(Role::kBaseline);
    const AllReduceStage socket("sockets", "nccl_allreduce_sockets",
                                "NCCL through its network transport, TCP sockets on loopback: "
                                "what it does between machines without InfiniBand");
    std::ifstream in(rows_path);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::size_t begin = 0;
        for (std::size_t tab; (tab = line.find('\t', begin)) != std::string::npos;
             begin = tab + 1) {
            f.push_back(line.substr(begin, tab - begin));
        }
        f.push_back(line.substr(begin));
        if (f.size() < 10) {
            continue;
        }
        ct::Stats stats;
        stats.median_ms = std::stod(f[3]);
        stats.min_ms = std::stod(f[4]);
        stats.max_ms = std::stod(f[5]);
        stats.mean_ms = std::stod(f[6]);
        stats.samples = std::stoi(f[7]);
        const ct::Verification verdict =
            f[8] == "1" ? ct::Verification::pass() : ct::Verification::fail(f[9]);
        const auto bytes = static_cast<std::uint64_t>(std::stod(f[2]));
        table.add(reported_allreduce_row(f[0] == "nvlink" ? nvlink : socket, bytes, stats, verdict,
                                         ranks));
    }
    std::remove(rows_path.c_str());
    table.add_note(
        "stages 2-9 are not in this table: they load and store the other GPU's memory, which "
        "CUDA IPC maps only between processes of one machine; across machines NCCL (its "
        "sockets, or InfiniBand/RoCE with GPUDirect RDMA) is the engine");
    std::cout << "== network: one process per GPU, NVLink against sockets\n";
    return table.finish();
}

}  // namespace

int run_ranks(const Options& o, int, char** argv) {
    const RankEnvironment env = detect_rank();
    const bool network = o.sections == std::vector<std::string>{"network"};
    const bool round_trip = o.sections == std::vector<std::string>{"roundtrip"};
    if ((env.is_rank || o.ranks > 0) &&
        ((!o.sections.empty() && !network && !round_trip) || o.gpus != 0)) {
        throw ct::UsageError(o.gpus != 0 ? "--gpus" : "--stage",
                             "does not apply to one process per GPU, which runs the sharded "
                             "reduction and the all-reduce stages, one GPU per rank (--stage "
                             "network or roundtrip aside)");
    }
    if (env.is_rank) {
        if (!nccl_available()) {
            throw ct::UsageError("one process per GPU needs a build with NCCL");
        }
        disable_nvlink_multicast();
        return run_rank(env, o);
    }
    if (o.ranks > 0 && !network) {  // the network section starts its ranks itself
        return start_ranks(o, argv, o.ranks, {});
    }
    return -1;
}

int run_network(const Options& o, char** argv) {
    return launch_network(o, argv);
}

}  // namespace multi_gpu
