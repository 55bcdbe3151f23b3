package dev.colloquy.app.cli;

import ch.qos.logback.classic.Level;
import dev.colloquy.app.Failures;
import ch.qos.logback.classic.Logger;
import java.io.PrintStream;
import java.util.ServiceLoader;
import java.util.Set;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The {@code colloquy} command line. */
@Command(
    name = "colloquy",
    mixinStandardHelpOptions = true,
    version = "colloquy 0.1.0",
    description = "A conversational engine: sharded, event-sourced chat sessions streamed over SSE.",
    subcommands = {ServeCommand.class, IngestCommand.class, ReplayCommand.class, BillingCommand.class,
        TenantsCommand.class, MockLlmCommand.class, ProjectionsCommand.class})
public final class Cli {

  /** Servers log what they do; the other commands print their result and progress, and log only problems. */
  private static final Set<String> SERVERS = Set.of("serve", "mock-llm");

  @Option(names = "--verbose", scope = ScopeType.INHERIT,
      description = "Log at INFO and show the stack trace of a failure")
  boolean verbose;

  public static void main(String[] args) {
    quietScalaConsole();
    // Logging starts here, on one thread, so no call made while it initializes is queued and replayed.
    LoggerFactory.getILoggerFactory();
    int exit = commandLine()
        .setExecutionExceptionHandler(Cli::oneLine)
        .execute(args);
    System.exit(exit);
  }

  /** The command line with every subcommand, those contributed by modules on the class path included. */
  public static CommandLine commandLine() {
    Cli cli = new Cli();
    CommandLine commandLine = new CommandLine(cli).setExecutionStrategy(parsed -> {
      cli.configureLogging(parsed);
      return new CommandLine.RunLast().execute(parsed);
    });
    ServiceLoader.load(ContributedCommand.class).forEach(commandLine::addSubcommand);
    return commandLine;
  }

  /**
   * Libraries written in Scala print through {@code scala.Console}, which takes hold of System.out the
   * first time it is used; pointing it at stderr keeps stdout for the command's own output
   * (pekko-projection-jdbc 1.0.0 prints "# stop &lt;projection&gt;" whenever a projection stops).
   */
  private static void quietScalaConsole() {
    PrintStream stdout = System.out;
    System.setOut(System.err);
    try {
      scala.Console.out();
    } finally {
      System.setOut(stdout);
    }
  }

  private void configureLogging(CommandLine.ParseResult parsed) {
    String command = parsed.hasSubcommand() ? parsed.subcommand().commandSpec().name() : "";
    if (System.getenv("COLLOQUY_LOG_LEVEL") != null || SERVERS.contains(command)) {
      return;
    }
    Level level = verbose ? Level.INFO : Level.WARN;
    if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
      context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(level);
      context.getLogger("org.apache.pekko").setLevel(level);
    }
    // Lucene logs through java.util.logging (e.g. that it uses the Vector API), which Logback does not see.
    java.util.logging.Logger.getLogger("").setLevel(verbose ? java.util.logging.Level.INFO : java.util.logging.Level.WARNING);
  }

  /** A failure the user can act on is one line, not a stack trace (unless --verbose asks for it). */
  static int oneLine(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
    if (command.getCommandSpec().root().userObject() instanceof Cli cli && cli.verbose) {
      e.printStackTrace(new java.io.PrintWriter(command.getErr(), true));
    }
    command.getErr().println("colloquy: " + Failures.describe(e));
    command.getErr().flush();
    return 1;
  }

}
