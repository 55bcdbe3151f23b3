package dev.colloquy.app.cli;

/**
 * A {@code colloquy} subcommand from a module that depends on app (the benchmarks), found on the class
 * path through {@code META-INF/services}, so that app does not depend on it. Implementations carry
 * picocli's {@code @Command}.
 */
public interface ContributedCommand {}
