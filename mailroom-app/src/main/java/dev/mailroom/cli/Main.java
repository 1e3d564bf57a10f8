package dev.mailroom.cli;

import dev.mailroom.collector.Collector;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import picocli.CommandLine;

/** {@code java -jar mailroom-app.jar [--demo] | install | health | status | dlq | replay}. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    // The raw descriptor, not System.out: a PrintStream hides a broken pipe, this stream throws.
    Collector.Io io =
        new Collector.Io(
            System.getenv(),
            new FileOutputStream(FileDescriptor.out),
            System.err,
            Clock.systemUTC());
    int code = commandLine(io).execute(args);
    System.exit(code);
  }

  static CommandLine commandLine(Collector.Io io) {
    return new CommandLine(new MailroomCommand(io))
        .setOut(new PrintWriter(new OutputStreamWriter(io.stdout(), StandardCharsets.UTF_8), true))
        .setErr(new PrintWriter(new OutputStreamWriter(io.stderr(), StandardCharsets.UTF_8), true));
  }
}
