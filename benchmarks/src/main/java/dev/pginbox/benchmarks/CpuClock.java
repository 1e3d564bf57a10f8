package dev.pginbox.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Where a timed window's CPU went: the client's (this JVM), the server's (every PostgreSQL process:
 * the main one, its live children and the children that ended, from /proc) and the machine's (busy
 * and all time of every core, from /proc/stat), so a result says whether the machine was saturated
 * and who used it. The server's part needs the server on this machine and /proc readable, the
 * machine's part Linux; unknown parts read -1.
 */
final class CpuClock {

  private static final long CLOCK_TICK_NANOS = 10_000_000; // USER_HZ = 100 on Linux

  /** CPU used up to one moment, in nanoseconds; -1 where unknown. */
  record Reading(long clientNanos, long serverNanos, long machineBusyNanos, long machineNanos) {

    /** The CPU used between {@code earlier} and this reading. */
    Reading since(Reading earlier) {
      return new Reading(clientNanos - earlier.clientNanos, diff(serverNanos, earlier.serverNanos),
          diff(machineBusyNanos, earlier.machineBusyNanos), diff(machineNanos, earlier.machineNanos));
    }

    /** The share of the machine's cores that was busy, 0..1, or -1. */
    double machineBusy() {
      return machineNanos <= 0 ? -1 : (double) machineBusyNanos / machineNanos;
    }

    private static long diff(long later, long earlier) {
      return later < 0 || earlier < 0 ? -1 : later - earlier;
    }
  }

  private final ProcessHandle postmaster;

  private CpuClock(ProcessHandle postmaster) {
    this.postmaster = postmaster;
  }

  /** A clock for {@code db}'s server, whose server part reads -1 when the server runs elsewhere. */
  static CpuClock of(BenchDatabase db) {
    return new CpuClock(postmaster(db));
  }

  Reading read() {
    long[] machine = machineNanos();
    return new Reading(
        ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime(),
        serverNanos(), machine[0], machine[1]);
  }

  /** "%.2f" of a per-message figure, or "-" when unknown. */
  static String perMessage(long nanos, long messages) {
    return nanos < 0 ? "-" : String.format("%.2f", nanos / 1e3 / messages);
  }

  /** The PostgreSQL server's main process when it runs on this machine and /proc shows it, else null. */
  private static ProcessHandle postmaster(BenchDatabase db) {
    long backend = db.count("SELECT pg_backend_pid()");
    try {
      String stat = Files.readString(Path.of("/proc/" + backend + "/stat"));
      long parent = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
      return ProcessHandle.of(parent).orElse(null);
    } catch (IOException | RuntimeException e) {
      return null; // another machine, or no /proc
    }
  }

  /**
   * CPU of the server's main process, of its children that ended (cutime, cstime: backends that
   * exited) and of the live ones; -1 when it cannot be read.
   */
  private long serverNanos() {
    if (postmaster == null) {
      return -1;
    }
    try {
      long[] own = ticks(postmaster.pid());
      long total = own[0] + own[1] + own[2] + own[3];
      for (ProcessHandle child : postmaster.children().toList()) {
        long[] t = ticks(child.pid());
        total += t[0] + t[1];
      }
      return total * CLOCK_TICK_NANOS;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** utime, stime, cutime, cstime of a process, in clock ticks. */
  private static long[] ticks(long pid) throws IOException {
    String stat;
    try {
      stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    } catch (NoSuchFileException e) {
      return new long[4]; // ended meanwhile: its time is in the parent's cutime from now on
    }
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // Fields 14-17 of proc(5), counted from the state (field 3) at index 0.
    return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
  }

  /**
   * Busy and all time of every core since boot, from the first line of /proc/stat (user nice system
   * idle iowait irq softirq steal ...): idle and iowait are not busy, steal (another guest of the
   * host had the core) counts as busy, as the core was not ours to use; {-1, -1} off Linux.
   */
  private static long[] machineNanos() {
    try (var lines = Files.lines(Path.of("/proc/stat"))) {
      String[] f = lines.findFirst().orElseThrow().trim().split("\\s+");
      long all = 0;
      for (int i = 1; i <= 8 && i < f.length; i++) {
        all += Long.parseLong(f[i]);
      }
      long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
      return new long[] {(all - idle) * CLOCK_TICK_NANOS, all * CLOCK_TICK_NANOS};
    } catch (IOException | RuntimeException e) {
      return new long[] {-1, -1};
    }
  }
}
