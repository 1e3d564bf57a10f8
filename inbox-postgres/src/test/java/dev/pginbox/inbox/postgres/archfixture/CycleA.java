package dev.pginbox.inbox.postgres.archfixture;

/** Half of a deliberate cycle: proves that LibraryArchitectureTest's cycle rules can fail. */
public final class CycleA {
  final CycleB other = null;
}
