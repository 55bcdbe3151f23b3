package dev.colloquy.ingestion.parse;

import dev.colloquy.ingestion.IngestionException;
import dev.colloquy.ingestion.IngestionException.Code;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;

/** Reads a CSV file as one table whose first record is the header. Tika reads CSV as plain text. */
final class CsvReader {

  private final ElementCollector collector;
  private final TextBudget budget;

  CsvReader(ElementCollector collector, TextBudget budget) {
    this.collector = collector;
    this.budget = budget;
  }

  void read(String csv) {
    CSVFormat format = CSVFormat.DEFAULT.builder().setDelimiter(delimiterOf(csv)).setIgnoreEmptyLines(true).get();
    List<List<String>> rows = new ArrayList<>();
    try (var parser = format.parse(new StringReader(csv))) {
      for (CSVRecord record : parser) {
        budget.check();
        rows.add(record.toList());
      }
    } catch (IOException | UncheckedIOException | IllegalStateException e) {
      throw new IngestionException(Code.CORRUPT_FILE, "the CSV file is malformed: " + e.getMessage(), e);
    }
    collector.table(rows);
  }

  /** Comma unless the first line has more semicolons or tabs (spreadsheet exports in some locales). */
  private static char delimiterOf(String csv) {
    int end = csv.indexOf('\n');
    String firstLine = end < 0 ? csv : csv.substring(0, end);
    char best = ',';
    long bestCount = count(firstLine, ',');
    for (char candidate : new char[] {';', '\t'}) {
      long candidateCount = count(firstLine, candidate);
      if (candidateCount > bestCount) {
        best = candidate;
        bestCount = candidateCount;
      }
    }
    return best;
  }

  private static long count(String line, char c) {
    return line.chars().filter(ch -> ch == c).count();
  }
}
