package dev.pginbox.inbox.testsupport;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Collectors;

/**
 * Finds dependency cycles between the top-level classes of one module's compiled classes (a
 * directory or a jar), for a test in that module: {@code
 * ClassCycles.assertNone(AnyMainClass.class)}.
 *
 * <p>The edges come from {@code jdeps -verbose:class}, which reads every {@code CONSTANT_Class}
 * entry of each class file's constant pool. That is what makes this check see more than ArchUnit,
 * which follows only the references that bytecode instructions, signatures and annotations make:
 * javac inlines a {@code static final} constant ({@code InFlightBatch.SAVEPOINT}) into the class
 * that reads it, so no instruction names the declaring class, but it still writes a {@code
 * CONSTANT_Class} entry for that class into the reader's constant pool so that dependency tools
 * find it. A cycle closed only by such a constant is a cycle of the source all the same: the two
 * files cannot be understood, changed or compiled one without the other. One gap is left: a
 * constant used only inside an annotation's value leaves no trace in the class file at all.
 *
 * <p>A nested class counts as its top-level class, so a nested class and its outer class never form
 * a cycle, and a cycle through a nested class is reported between the top-level classes. The cycles
 * are the strongly connected components of that graph (Tarjan's algorithm) with more than one
 * class.
 */
public final class ClassCycles {

  /** One edge of jdeps' class-level output: {@code a.B -> c.D location}. */
  private static final Pattern EDGE = Pattern.compile("^\\s+(\\S+)\\s+->\\s+(\\S+)(\\s.*)?$");

  private ClassCycles() {}

  /**
   * Fails with every cycle among the classes of the module (directory or jar) that holds {@code
   * anyClassOfTheModule}.
   */
  public static void assertNone(Class<?> anyClassOfTheModule) {
    assertNone(location(anyClassOfTheModule));
  }

  /** Fails with every cycle among the classes under {@code classes}, except the allowed ones. */
  public static void assertNone(Path classes) {
    Map<String, Set<String>> graph = graph(classes);
    if (graph.isEmpty()) {
      throw new AssertionError("no classes found in " + classes + ": nothing was checked");
    }
    List<Set<String>> cycles = cycles(graph);
    if (!cycles.isEmpty()) {
      throw new AssertionError(
          "class cycles in "
              + classes
              + " (each line one dependency of a class on another in the same cycle):\n"
              + describe(graph, cycles));
    }
  }

  /** Every cycle among the classes under {@code classes}, allowed or not, largest first. */
  public static List<Set<String>> find(Path classes) {
    return cycles(graph(classes));
  }

  /** The directory or jar a class was loaded from. */
  public static Path location(Class<?> type) {
    try {
      return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException("cannot locate the classes of " + type, e);
    }
  }

  /**
   * The dependencies between the top-level classes under {@code classes}: each class to the others
   * of the same directory or jar that it names anywhere in its class files (nested classes
   * included).
   */
  static Map<String, Set<String>> graph(Path classes) {
    if (!Files.exists(classes)) {
      throw new IllegalArgumentException("no such directory or jar: " + classes);
    }
    ToolProvider jdeps =
        ToolProvider.findFirst("jdeps")
            .orElseThrow(() -> new IllegalStateException("this JDK has no jdeps"));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    // -filter:none: by default jdeps leaves out the dependencies within one archive, the very ones
    // a cycle is made of.
    int status =
        jdeps.run(
            new PrintWriter(out),
            new PrintWriter(err),
            "-verbose:class",
            "-filter:none",
            "--multi-release",
            "base",
            classes.toString());
    if (status != 0) {
      throw new IllegalStateException("jdeps failed on " + classes + " (" + status + "): " + err);
    }
    Map<String, Set<String>> edges = new TreeMap<>();
    for (String line : out.toString().split("\\R")) {
      Matcher edge = EDGE.matcher(line);
      if (edge.matches()) {
        String from = topLevel(edge.group(1));
        edges.computeIfAbsent(from, k -> new TreeSet<>()).add(topLevel(edge.group(2)));
      }
    }
    // Every class of the input depends on something (java.lang.Object at least), so the keys are
    // exactly the input's classes; dependencies outside the input are dropped.
    for (Map.Entry<String, Set<String>> e : edges.entrySet()) {
      e.getValue().removeIf(to -> to.equals(e.getKey()) || !edges.containsKey(to));
    }
    return edges;
  }

  private static String topLevel(String className) {
    int nested = className.indexOf('$');
    return nested < 0 ? className : className.substring(0, nested);
  }

  /** The strongly connected components of more than one class (Tarjan), largest first. */
  static List<Set<String>> cycles(Map<String, Set<String>> graph) {
    Tarjan tarjan = new Tarjan(graph);
    graph.keySet().forEach(tarjan::visit);
    tarjan.components.sort(
        Comparator.comparingInt((Set<String> c) -> -c.size()).thenComparing(Object::toString));
    return tarjan.components;
  }

  private static final class Tarjan {
    private final Map<String, Set<String>> graph;
    private final Map<String, Integer> index = new HashMap<>();
    private final Map<String, Integer> lowLink = new HashMap<>();
    private final Deque<String> stack = new ArrayDeque<>();
    private final Set<String> onStack = new TreeSet<>();
    final List<Set<String>> components = new ArrayList<>();

    Tarjan(Map<String, Set<String>> graph) {
      this.graph = graph;
    }

    void visit(String node) {
      if (index.containsKey(node)) {
        return;
      }
      index.put(node, index.size());
      lowLink.put(node, index.get(node));
      stack.push(node);
      onStack.add(node);
      for (String next : graph.getOrDefault(node, Set.of())) {
        if (!index.containsKey(next)) {
          visit(next);
          lowLink.put(node, Math.min(lowLink.get(node), lowLink.get(next)));
        } else if (onStack.contains(next)) {
          lowLink.put(node, Math.min(lowLink.get(node), index.get(next)));
        }
      }
      if (lowLink.get(node).equals(index.get(node))) {
        Set<String> component = new TreeSet<>();
        String member;
        do {
          member = stack.pop();
          onStack.remove(member);
          component.add(member);
        } while (!member.equals(node));
        if (component.size() > 1) {
          components.add(component);
        }
      }
    }
  }

  private static String describe(Map<String, Set<String>> graph, List<Set<String>> cycles) {
    return cycles.stream()
        .map(
            cycle ->
                "cycle of "
                    + cycle.size()
                    + " classes:\n"
                    + cycle.stream()
                        .flatMap(
                            from ->
                                graph.get(from).stream()
                                    .filter(cycle::contains)
                                    .map(to -> "  " + from + " -> " + to))
                        .collect(Collectors.joining("\n")))
        .collect(Collectors.joining("\n"));
  }
}
