package dev.colloquy.ingestion.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.colloquy.config.KnowledgeSettings;
import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import dev.colloquy.ingestion.TestLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files that would run a parser without end, parsed as uploads are: in a parser JVM. The limit that
 * stops them is the JVM's end, which no parser can ignore; the test's own JVM is left with no thread
 * still inside a parser.
 */
class ParserProcessesTest {

  @TempDir
  Path directory;

  private ParserProcesses parsers;

  @AfterEach
  void close() {
    if (parsers != null) {
      parsers.close();
    }
  }

  @Test
  void aParseComputingPastItsTimeIsKilledAndTheNextOneRuns() throws Exception {
    parsers = new ParserProcesses(limits(Duration.ofSeconds(2), 256));
    Path bomb = write("fan-out.pdf", Bombs.formFanOutPdf(300));
    assertThat(Files.size(bomb)).isLessThan(64 * 1024);

    long start = System.nanoTime();
    assertThatThrownBy(() -> parsers.parse("fan-out.pdf", bomb))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.PARSE_TIMEOUT));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    assertThat(parsers.running()).as("parser JVMs still running").isZero();
    assertThat(threadsInsideAParser()).isEmpty();

    ParsedDocument next = parsers.parse("shipping.pdf", write("shipping.pdf", Fixtures.pdf()));
    assertThat(next.elements()).isNotEmpty();
  }

  @Test
  void aStreamInflatingBeyondTheParsersHeapFailsAlone() throws Exception {
    parsers = new ParserProcesses(limits(Duration.ofSeconds(60), 64));
    Path bomb = write("inflating.pdf", Bombs.flatePdf(256L * 1024 * 1024));
    assertThat(Files.size(bomb)).isLessThan(8 * 1024 * 1024);

    long start = System.nanoTime();
    assertThatThrownBy(() -> parsers.parse("inflating.pdf", bomb))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).as(e.getMessage()).isEqualTo(Code.PARSE_OUT_OF_MEMORY));
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(60));
    assertThat(threadsInsideAParser()).isEmpty();
  }

  @Test
  void refusalsComeBackWithTheirCodes() throws Exception {
    parsers = new ParserProcesses(limits(Duration.ofSeconds(60), 256));

    assertThatThrownBy(() -> parsers.parse("broken.pdf", write("broken.pdf", Arrays.copyOf(Fixtures.pdf(), 40))))
        .satisfies(e -> assertThat(((IngestionException) e).code()).isEqualTo(Code.CORRUPT_FILE));
    assertThat(parsers.parse("notes.md", write("notes.md", Fixtures.utf8("# Notes\n\nSee you at nine."))).elements())
        .extracting(Element::text).contains("Notes", "See you at nine.");
  }

  @Test
  void theJvmsOwnLogLinesNeverReachTheReplies() throws Exception {
    // A shared archive that does not exist: the JVM logs an error line at its start and runs on without it.
    parsers = new ParserProcesses(limits(Duration.ofSeconds(60), 256), System.getProperty("java.class.path"),
        List.of("-XX:SharedArchiveFile=" + directory.resolve("missing.jsa")));

    assertThat(parsers.parse("notes.md", write("notes.md", Fixtures.utf8("# Notes\n\nSee you at nine."))).elements())
        .extracting(Element::text).contains("Notes", "See you at nine.");
  }

  @Test
  void aParserJvmThatRunsOutOfMemoryAsItStartsIsReportedAsOutOfMemory() throws Exception {
    // Too small a heap for the parsers' warm-up: the JVM ends with its out-of-memory status before it is ready.
    parsers = new ParserProcesses(limits(Duration.ofSeconds(60), 64), System.getProperty("java.class.path"), List.of("-Xmx8m"));

    assertThatThrownBy(() -> parsers.parse("notes.md", write("notes.md", Fixtures.utf8("# Notes"))))
        .isInstanceOf(IngestionException.class)
        .satisfies(e -> assertThat(((IngestionException) e).code()).as(e.getMessage()).isEqualTo(Code.PARSE_OUT_OF_MEMORY));
    assertThat(parsers.running()).as("parser JVMs still running").isZero();
  }

  private Path write(String name, byte[] content) throws Exception {
    return Files.write(directory.resolve(name), content);
  }

  private static KnowledgeSettings.Ingestion limits(Duration parseTimeout, int heapMiB) {
    KnowledgeSettings.Ingestion d = TestLimits.withParseTimeout(parseTimeout);
    return new KnowledgeSettings.Ingestion(d.maxUploadBytes(), d.parseTimeout(), d.maxArchiveEntries(),
        d.maxArchiveUncompressedBytes(), d.maxExtractedChars(), 1, heapMiB * 1024L * 1024, d.maxQueued(),
        d.maxUploadsPerTenant(), d.uploadTimeout());
  }

  /** Threads of this JVM whose stack is inside PDFBox, Tika or CommonMark: work nobody can stop. */
  private static java.util.List<String> threadsInsideAParser() {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(entry -> Arrays.stream(entry.getValue()).anyMatch(frame -> frame.getClassName().startsWith("org.apache.pdfbox")
            || frame.getClassName().startsWith("org.apache.tika") || frame.getClassName().startsWith("org.commonmark")))
        .map(Map.Entry::getKey)
        .map(Thread::getName)
        .toList();
  }
}
