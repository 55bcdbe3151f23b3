package dev.colloquy.ingestion.parse;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Parses files in JVMs of their own, at most {@code workers} at once: each JVM has a heap of
 * {@code parse-heap} and exits when it runs out, and one whose parse passes {@code parse-timeout}
 * is killed. That is a limit no parser can ignore, where a timeout inside the node's JVM can only ask
 * a busy parser to stop (PDFBox or CommonMark computing away never looks). A JVM is started when
 * first needed and serves one parse after another; a killed one is replaced by the next parse.
 */
public final class ParserProcesses implements DocumentParsing, AutoCloseable {

  /** The exit status of a JVM run with -XX:+ExitOnOutOfMemoryError that ran out. */
  private static final int OUT_OF_MEMORY_EXIT = 3;
  /** How long a parser JVM may take to start before a parse gives up on it. */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  /** Past its time, a parse first gets the chance to stop by itself, with a clean answer. */
  private static final Duration KILL_GRACE = Duration.ofSeconds(2);
  /** How long a JVM that broke off its reply gets to end by itself, so that its exit status tells why. */
  private static final Duration EXIT_GRACE = Duration.ofSeconds(5);

  private final KnowledgeSettings.Ingestion limits;
  private final List<String> command;
  private final Semaphore slots;
  private final ConcurrentLinkedQueue<Child> idle = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Child> all = new ConcurrentLinkedQueue<>();

  /** Parser JVMs started with the class path of this one. */
  public ParserProcesses(KnowledgeSettings.Ingestion limits) {
    this(limits, System.getProperty("java.class.path"));
  }

  ParserProcesses(KnowledgeSettings.Ingestion limits, String classPath) {
    this(limits, classPath, List.of());
  }

  /** For tests: {@code moreJvmOptions} come after the parser JVM's own, so an option given there wins. */
  ParserProcesses(KnowledgeSettings.Ingestion limits, String classPath, List<String> moreJvmOptions) {
    this.limits = limits;
    this.slots = new Semaphore(limits.workers());
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx" + Math.max(32, limits.parseHeapBytes() / (1024 * 1024)) + "m",
        "-XX:+ExitOnOutOfMemoryError", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss2m",
        // Stdout carries the replies, and nothing else may reach it. By default the JVM writes its own
        // messages there ("Terminating due to java.lang.OutOfMemoryError") and its log's warnings and errors
        // too: a parent that read such a line as a reply killed the JVM while it was exiting (status 137 hid
        // the out-of-memory exit), and one read before the ready line refused a JVM that had started.
        "-XX:+DisplayVMOutputToStderr", "-Xlog:disable", "-Xlog:all=warning:stderr",
        "-Djava.awt.headless=true"));
    command.addAll(moreJvmOptions);
    command.addAll(List.of("-cp", classPath, ParserProcessMain.class.getName()));
    this.command = List.copyOf(command);
  }

  @Override
  public ParsedDocument parse(String fileName, Path file) {
    slots.acquireUninterruptibly();
    try {
      Child child = idle.poll();
      if (child == null) {
        child = start();
      }
      ParserWire.Reply reply = child.ask(new ParserWire.Request(fileName, file.toAbsolutePath().toString(),
          ParserWire.Limits.of(limits)), limits.parseTimeout().plus(KILL_GRACE));
      idle.add(child);
      if (reply.error() != null) {
        throw new IngestionException(code(reply.error().code()), reply.error().message());
      }
      return reply.document();
    } finally {
      slots.release();
    }
  }

  /** How many parser JVMs are running now. */
  public int running() {
    return (int) all.stream().filter(Child::alive).count();
  }

  @Override
  public void close() {
    all.forEach(Child::kill);
  }

  private Child start() {
    try {
      Process process = new ProcessBuilder(command)
          .redirectError(ProcessBuilder.Redirect.DISCARD)
          .start();
      Child child = new Child(process);
      all.removeIf(old -> !old.alive());
      all.add(child);
      child.awaitReady();
      return child;
    } catch (IOException e) {
      throw new IngestionException(Code.INTERNAL_ERROR, "a parser process could not be started", e);
    }
  }

  private static Code code(String name) {
    try {
      return Code.valueOf(name);
    } catch (IllegalArgumentException e) {
      return Code.INTERNAL_ERROR;
    }
  }

  /** One parser JVM: a request written, a reply read, each within its time or the JVM is killed. */
  private final class Child {
    private final Process process;
    private final Writer requests;
    private final BufferedReader replies;

    Child(Process process) {
      this.process = process;
      this.requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      this.replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    void awaitReady() {
      String line = readLine(STARTUP_TIMEOUT, "start");
      if (!ParserWire.READY.equals(line)) {
        kill();
        throw new IngestionException(Code.INTERNAL_ERROR, "a parser process did not start");
      }
    }

    ParserWire.Reply ask(ParserWire.Request request, Duration timeout) {
      try {
        requests.write(ParserWire.JSON.writeValueAsString(request));
        requests.write('\n');
        requests.flush();
        return ParserWire.JSON.readValue(readLine(timeout, "parse"), ParserWire.Reply.class);
      } catch (IOException e) {
        throw ended();
      }
    }

    private String readLine(Duration timeout, String what) {
      FutureTask<String> read = new FutureTask<>(replies::readLine);
      Thread.ofVirtual().name("parser-reply").start(read);
      try {
        String line = read.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (line == null) {
          throw ended();
        }
        return line;
      } catch (TimeoutException e) {
        kill();
        throw new IngestionException(Code.PARSE_TIMEOUT, what.equals("start")
            ? "the parser process did not start within " + timeout.toSeconds() + " s"
            : "parsing took longer than " + limits.parseTimeout().toMillis() + " ms; the parser was stopped");
      } catch (InterruptedException e) {
        kill();
        Thread.currentThread().interrupt();
        throw new IngestionException(Code.PARSE_TIMEOUT, "parsing was interrupted");
      } catch (ExecutionException e) {
        throw ended();
      }
    }

    /**
     * The JVM went away mid-parse (out of memory, or killed), or answered something that is not a
     * reply. It gets a moment to end by itself before it is killed, so that its own exit status is read.
     */
    private IngestionException ended() {
      int status = exitStatus(EXIT_GRACE);
      kill();
      if (status == -1) {
        status = exitStatus(Duration.ZERO); // kill() has waited for the end
      }
      if (status == OUT_OF_MEMORY_EXIT) {
        return new IngestionException(Code.PARSE_OUT_OF_MEMORY, "parsing needed more memory than the limit of "
            + limits.parseHeapBytes() / (1024 * 1024) + " MiB");
      }
      return new IngestionException(Code.INTERNAL_ERROR, "the parser process ended with status " + status);
    }

    /** The JVM's exit status once it has ended, or -1 if it is still running after {@code wait}. */
    private int exitStatus(Duration wait) {
      try {
        return process.waitFor(wait.toNanos(), TimeUnit.NANOSECONDS) ? process.exitValue() : -1;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return -1;
      }
    }

    boolean alive() {
      return process.isAlive();
    }

    /** Ends the JVM and waits until it has: whatever it was computing stops here. */
    void kill() {
      idle.remove(this);
      try {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
