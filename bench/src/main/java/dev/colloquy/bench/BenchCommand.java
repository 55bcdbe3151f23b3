package dev.colloquy.bench;

import dev.colloquy.app.cli.ContributedCommand;
import picocli.CommandLine.Command;

/** {@code colloquy bench}: measurements written to bench/RESULTS.md. */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Benchmarks of the running engine; see the subcommands.",
    subcommands = {StreamingBench.class, RetrievalBench.class, SessionHeapBench.class, RecoveryBench.class,
        JournalBench.class, AuthBench.class, ChaosBench.class, UnknownSessionsBench.class,
        SupportEvalBench.class, StartupBench.class, FailoverBench.class})
public final class BenchCommand implements ContributedCommand {}
