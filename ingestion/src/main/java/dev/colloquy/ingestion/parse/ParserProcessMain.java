package dev.colloquy.ingestion.parse;

import dev.colloquy.ingestion.IngestionException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The main class of a parser JVM ({@link ParserProcesses}): reads one request per line on stdin,
 * parses the file it names with {@link DocumentParser} and writes one reply per line on stdout, until
 * stdin closes. Anything a parser library prints goes to stderr, which the parent discards, so that
 * stdout carries replies only. It warms its parsers up ({@link ParserWarmUp}) before it says it is
 * ready.
 */
public final class ParserProcessMain {

  private ParserProcessMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream replies = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    System.setOut(System.err);
    ParserWarmUp.run();
    replies.println(ParserWire.READY);
    replies.flush();
    BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = requests.readLine(); line != null; line = requests.readLine()) {
      ParserWire.Request request = ParserWire.JSON.readValue(line, ParserWire.Request.class);
      replies.println(ParserWire.JSON.writeValueAsString(answer(request)));
      replies.flush();
    }
  }

  private static ParserWire.Reply answer(ParserWire.Request request) {
    try {
      DocumentParser parser = new DocumentParser(request.limits().toSettings());
      return new ParserWire.Reply(parser.parse(request.fileName(), Path.of(request.path())), null);
    } catch (IngestionException e) {
      return new ParserWire.Reply(null, new ParserWire.Failure(e.code().name(), e.getMessage()));
    } catch (RuntimeException | StackOverflowError e) {
      return new ParserWire.Reply(null, new ParserWire.Failure(IngestionException.Code.INTERNAL_ERROR.name(),
          "the parser failed unexpectedly: " + e.getClass().getName()));
    }
  }
}
