package dev.pginbox.inbox.citus;

import dev.pginbox.inbox.testsupport.ClassCycles;
import org.junit.jupiter.api.Test;

/**
 * No two classes of this module depend on each other, not even through a constant that javac
 * inlined (which ArchUnit does not see).
 */
class NoClassCyclesTest {

  @Test
  void the_module_classes_form_no_cycle() {
    ClassCycles.assertNone(ShardWorker.class);
  }
}
