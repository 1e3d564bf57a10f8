package dev.mailroom.output;

import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * MAILROOM_DELIVERY=stdout: the original collector's lines for the original sender, byte for byte.
 * Every record is delivered once its line is written and flushed.
 */
public final class LineDelivery implements TokenDelivery {

  private final TokenOutput output;

  public LineDelivery(TokenOutput output) {
    this.output = output;
  }

  @Override
  public List<DeliveryOutcome> deliver(List<OutputRecord> records) {
    output.write(OutputLines.of(records));
    return Collections.nCopies(records.size(), DeliveryOutcome.delivered());
  }

  @Override
  public Optional<String> unsupported(OutputRecord record) {
    return OutputRecord.problem(record.email(), record.login(), record.code());
  }

  @Override
  public String name() {
    return "stdout";
  }
}
