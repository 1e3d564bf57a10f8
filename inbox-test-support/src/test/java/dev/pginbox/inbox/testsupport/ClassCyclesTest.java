package dev.pginbox.inbox.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The class-cycle check, shown to fail on cycles planted in freshly compiled classes (one of them
 * closed only by an inlined constant, which ArchUnit does not see), and run on this module.
 */
class ClassCyclesTest {

  @TempDir Path dir;

  @Test
  void a_cycle_of_method_calls_is_reported() throws IOException {
    Path classes =
        compile(
            Map.of(
                "Order", "class Order { Invoice invoice() { return new Invoice(); } }",
                "Invoice", "class Invoice { int total(Order o) { return o.hashCode(); } }"));

    assertThatThrownBy(() -> ClassCycles.assertNone(classes))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("cycle of 2 classes")
        .hasMessageContaining("planted.Order -> planted.Invoice")
        .hasMessageContaining("planted.Invoice -> planted.Order");
  }

  @Test
  void a_cycle_closed_only_by_an_inlined_constant_is_reported() throws IOException {
    Path classes =
        compile(
            Map.of(
                "Batch",
                "class Batch { static final String SAVEPOINT = \"part\";"
                    + " String open() { return new Connection().savepoint(); } }",
                "Connection",
                "class Connection { String savepoint() { return \"SAVEPOINT \" + Batch.SAVEPOINT; } }"));

    assertThat(ClassCycles.find(classes))
        .containsExactly(Set.of("planted.Batch", "planted.Connection"));
    assertThatThrownBy(() -> ClassCycles.assertNone(classes))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("planted.Connection -> planted.Batch");
  }

  @Test
  void a_nested_class_and_its_outer_class_are_no_cycle_but_a_cycle_through_one_is()
      throws IOException {
    Path acyclic =
        compile(
            Map.of(
                "Outer",
                "class Outer { int size = 1; class Inner { int size() { return size; } }"
                    + " Inner inner() { return new Inner(); } Leaf leaf() { return new Leaf(); } }",
                "Leaf",
                "class Leaf { int one() { return 1; } }"));
    assertThat(ClassCycles.find(acyclic)).isEmpty();
    ClassCycles.assertNone(acyclic);

    Path cyclic =
        compile(
            Map.of(
                "Outer",
                "class Outer { static class Inner { Leaf leaf() { return new Leaf(); } } }",
                "Leaf",
                "class Leaf { Outer outer() { return new Outer(); } }"));
    assertThat(ClassCycles.find(cyclic)).containsExactly(Set.of("planted.Outer", "planted.Leaf"));
  }

  @Test
  void a_directory_without_classes_is_not_a_pass() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));

    assertThatThrownBy(() -> ClassCycles.assertNone(empty))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("nothing was checked");
  }

  @Test
  void the_test_support_has_no_class_cycles() {
    ClassCycles.assertNone(ClassCycles.class);
  }

  /** Compiles one class per entry (simple name to body) in package {@code planted}. */
  private Path compile(Map<String, String> classes) throws IOException {
    Path src = Files.createTempDirectory(dir, "src");
    Path out = Files.createTempDirectory(dir, "classes");
    List<String> args = new ArrayList<>(List.of("-d", out.toString()));
    for (Map.Entry<String, String> c : classes.entrySet()) {
      Path file = src.resolve(c.getKey() + ".java");
      Files.writeString(file, "package planted;\n" + c.getValue() + "\n");
      args.add(file.toString());
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    int status = javac.run(null, null, errors, args.toArray(String[]::new));
    assertThat(status).as("javac: %s", errors).isZero();
    return out;
  }
}
