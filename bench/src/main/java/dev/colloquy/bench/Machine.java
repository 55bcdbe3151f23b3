package dev.colloquy.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** What a benchmark ran on, printed above its figures, and how busy the machine was. */
final class Machine {

  private Machine() {}

  static String describe(boolean embeddedDatabase) {
    long ram = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    return String.format("Machine: %d cores, %.1f GiB RAM, JDK %s (%s), max heap %.1f GiB, %s PostgreSQL, load average %s",
        Runtime.getRuntime().availableProcessors(), ram / (double) (1L << 30), Runtime.version(),
        System.getProperty("java.vendor"), Runtime.getRuntime().maxMemory() / (double) (1L << 30),
        embeddedDatabase ? "embedded" : "external", load());
  }

  /** The 1, 5 and 15 minute load averages (uptime's figures). */
  static String load() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " " + fields[1] + " " + fields[2];
    } catch (IOException | RuntimeException e) {
      return String.format("%.2f", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }
  }
}
