package dev.colloquy.app.cli;

import java.util.ServiceLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code colloquy} command line. */
@Command(
    name = "colloquy",
    mixinStandardHelpOptions = true,
    version = "colloquy 0.1.0",
    description = "A conversational engine: sharded, event-sourced chat sessions streamed over SSE.",
    subcommands = {ServeCommand.class, IngestCommand.class, ReplayCommand.class, MockLlmCommand.class,
        ProjectionsCommand.class})
public final class Cli {

  public static void main(String[] args) {
    int exit = commandLine()
        .setExecutionExceptionHandler(Cli::oneLine)
        .execute(args);
    if (exit != 0 || !ServeCommand.serving()) {
      System.exit(exit);
    }
  }

  /** The command line with every subcommand, those contributed by modules on the class path included. */
  public static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new Cli());
    ServiceLoader.load(ContributedCommand.class).forEach(commandLine::addSubcommand);
    return commandLine;
  }

  /** A failure the user can act on is one line, not a stack trace. */
  static int oneLine(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    command.getErr().println("colloquy: " + e.getMessage());
    return 1;
  }
}
