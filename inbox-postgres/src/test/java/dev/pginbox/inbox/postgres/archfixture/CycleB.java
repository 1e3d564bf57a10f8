package dev.pginbox.inbox.postgres.archfixture;

/** The other half of the deliberate cycle of {@link CycleA}. */
public final class CycleB {
  final CycleA other = null;
}
