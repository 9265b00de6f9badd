package io.infera.router.kv;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Memory per (block, worker) entry at 1,000,000 entries: heap after GC with the index built, minus
 * heap before, divided by the entries (run by {@code -Pbench}; also prints the exact bytes of the
 * index's hash-table arrays).
 */
public final class IndexMemoryBench {

  private IndexMemoryBench() {}

  public static void main(String[] args) throws Exception {
    long entries = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000L;
    for (boolean shared : new boolean[] {false, true}) {
      long before = usedAfterGc();
      BenchIndex b = BenchIndex.build(entries, shared, 11);
      long after = usedAfterGc();
      IndexStats s = b.index.stats();
      double perEntry = (after - before) / (double) s.entries();
      System.out.printf(
          "IndexMemoryBench layout=%s entries=%d distinctBlocksHeld=%s heapDelta=%.1f MiB"
              + " bytesPerEntry=%.1f tableBytesPerEntry=%.1f%n",
          shared ? "shared-x4" : "unique",
          s.entries(),
          s.entries() / (shared ? 4 : 1) + (shared ? "(approx)" : ""),
          (after - before) / 1048576.0,
          perEntry,
          b.index.tableBytes() / (double) s.entries());
      // Keep b reachable until measured.
      if (b.prompt.length == 0) {
        System.out.println();
      }
    }
  }

  private static long usedAfterGc() throws InterruptedException {
    MemoryMXBean mem = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 5; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, mem.getHeapMemoryUsage().getUsed());
    }
    return used;
  }
}
