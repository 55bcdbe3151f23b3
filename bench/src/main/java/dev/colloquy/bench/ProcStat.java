package dev.colloquy.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * CPU time and resident memory of processes as Linux's /proc reports them, so a benchmark can charge
 * the engine and its PostgreSQL for what they spent, apart from the clients and the mock.
 */
final class ProcStat {

  /** Linux reports CPU times in clock ticks of USER_HZ, which is 100 on every mainstream kernel. */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcStat() {}

  /** CPU seconds (user + system) of the process and of its children it has waited for. */
  static double cpuSeconds(long pid) {
    String[] fields = statFields(pid);
    if (fields == null) {
      return 0;
    }
    // Fields after the command: 14 utime, 15 stime, 16 cutime, 17 cstime (1-based, as proc(5) numbers them).
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]) + Long.parseLong(fields[13])
        + Long.parseLong(fields[14]);
    return ticks / TICKS_PER_SECOND;
  }

  /**
   * CPU seconds the JVM's just-in-time compiler threads have spent: a node compiles for minutes after
   * it starts, longer on a loaded machine, and that is not a cost of the turns it serves meanwhile.
   */
  static double compilerCpuSeconds(long pid) {
    double seconds = 0;
    try (Stream<Path> threads = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path thread : threads.toList()) {
        String name;
        try {
          name = Files.readString(thread.resolve("comm")).strip();
        } catch (IOException e) {
          continue;
        }
        if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
          String[] fields = statFields(thread);
          if (fields != null) {
            seconds += (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
          }
        }
      }
    } catch (IOException e) {
      return seconds;
    }
    return seconds;
  }

  /** CPU seconds of a PostgreSQL server: its postmaster (with the backends it has reaped) and its live backends. */
  static double postgresCpuSeconds(long postmaster) {
    double seconds = cpuSeconds(postmaster);
    for (long child : children(postmaster)) {
      seconds += cpuSeconds(child);
    }
    return seconds;
  }

  /** Resident set size in bytes. */
  static long rssBytes(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return 0;
  }

  /**
   * The postmaster whose data directory lies under {@code dataDir}: the embedded PostgreSQL is
   * started through pg_ctl, so it is not a descendant of the JVM that started it.
   */
  static Optional<Long> postmasterUnder(Path dataDir) {
    String dir = dataDir.toAbsolutePath().toString();
    try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
      return processes.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
          .filter(p -> {
            String cmdline = cmdline(p);
            return cmdline.contains("postgres") && cmdline.contains(dir) && cmdline.contains("-D");
          })
          .map(p -> Long.parseLong(p.getFileName().toString()))
          .min(Long::compare);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  static List<Long> children(long parent) {
    List<Long> children = new ArrayList<>();
    try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
      processes.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
        long pid = Long.parseLong(p.getFileName().toString());
        String[] fields = statFields(pid);
        if (fields != null && Long.parseLong(fields[1]) == parent) {
          children.add(pid);
        }
      });
    } catch (IOException e) {
      return children;
    }
    return children;
  }

  /** The fields of /proc/PID/stat after the command name (field 3 on), or null when the process is gone. */
  private static String[] statFields(long pid) {
    return statFields(Path.of("/proc", Long.toString(pid)));
  }

  private static String[] statFields(Path process) {
    try {
      String stat = Files.readString(process.resolve("stat"));
      // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
      return stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static String cmdline(Path process) {
    try {
      return Files.readString(process.resolve("cmdline")).replace('\0', ' ');
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }
}
