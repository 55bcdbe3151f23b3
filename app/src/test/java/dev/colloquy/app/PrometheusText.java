package dev.colloquy.app;

import java.util.Map;
import java.util.TreeMap;

/** Reads samples out of a Prometheus text exposition, as a scraper would. */
final class PrometheusText {

  private final String text;

  PrometheusText(String text) {
    this.text = text;
  }

  /**
   * The sum of the samples named {@code name} whose labels include {@code labels} (name, value,
   * name, value …); 0 when there is none, which is what an untouched counter reads as.
   */
  double value(String name, String... labels) {
    Map<String, String> wanted = new TreeMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      wanted.put(labels[i], labels[i + 1]);
    }
    double sum = 0;
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || line.isBlank()) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      String sample = brace >= 0 ? line.substring(0, brace) : line.substring(0, space);
      if (!sample.equals(name)) {
        continue;
      }
      Map<String, String> found = brace >= 0 ? labels(line.substring(brace + 1, line.lastIndexOf('}'))) : Map.of();
      if (found.entrySet().containsAll(wanted.entrySet())) {
        sum += Double.parseDouble(line.substring(space + 1));
      }
    }
    return sum;
  }

  boolean has(String name) {
    return text.lines().anyMatch(line -> line.startsWith(name + "{") || line.startsWith(name + " "));
  }

  private static Map<String, String> labels(String inside) {
    Map<String, String> labels = new TreeMap<>();
    for (String pair : inside.split("\",")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        labels.put(pair.substring(0, eq).strip(), pair.substring(eq + 2).replaceAll("\"$", ""));
      }
    }
    return labels;
  }
}
