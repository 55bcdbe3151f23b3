package dev.colloquy.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Live heap: the heap in use right after full collections, repeated until two readings in a row
 * agree (within 0.5% or 256 KiB), so that garbage and objects on their way out are not counted.
 */
final class UsedHeap {

  private static final int MAX_COLLECTIONS = 10;
  private static final long TOLERANCE_BYTES = 256 * 1024;

  private UsedHeap() {}

  static long afterFullGc() throws InterruptedException {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long previous = -1;
    for (int i = 0; i < MAX_COLLECTIONS; i++) {
      memory.gc();
      Thread.sleep(200); // lets finalization and reference processing settle before the reading; a benchmark, not a test
      long used = memory.getHeapMemoryUsage().getUsed();
      if (previous >= 0 && Math.abs(used - previous) <= Math.max(TOLERANCE_BYTES, used / 200)) {
        return Math.min(used, previous);
      }
      previous = used;
    }
    return previous;
  }
}
