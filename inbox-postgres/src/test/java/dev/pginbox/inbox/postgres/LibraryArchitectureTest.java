package dev.pginbox.inbox.postgres;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.testsupport.ClassCycles;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the module boundaries honest (inbox-api is plain Java) and the library free of dependency
 * cycles, between its packages and between the worker runtime's classes. Every rule refuses to pass
 * on an empty set of classes, and the cycle rules are shown to fail on a deliberate cycle. (That
 * applications use no internals is checked in mailroom-app, where the application is.)
 */
class LibraryArchitectureTest {

  private static final String WORKER_PACKAGE = "dev.pginbox.inbox.postgres.internal.worker";

  /** The worker runtime's packages by role: the root keeps the lifecycle. */
  private static final String EVENTS = WORKER_PACKAGE + ".events";

  private static final String CONNECTION = WORKER_PACKAGE + ".connection";
  private static final String MEMBERSHIP = WORKER_PACKAGE + ".membership";
  private static final String BATCH = WORKER_PACKAGE + ".batch";
  private static final String WAKE = WORKER_PACKAGE + ".wake";

  /** Every class of the inbox-api artifact (directory or jar), wherever its packages are. */
  private static JavaClasses apiClasses() {
    return new ClassFileImporter()
        .importUrl(InboxException.class.getProtectionDomain().getCodeSource().getLocation());
  }

  /**
   * The main classes under dev.pginbox.inbox on this class path: the library and its test modules.
   */
  private static JavaClasses libraryClasses() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("dev.pginbox.inbox");
  }

  /** No cycles between the library's packages. */
  private static ArchRule packagesFreeOfCycles(String root) {
    return slices().matching(root + ".(**)").should().beFreeOfCycles().allowEmptyShould(false);
  }

  /** No cycles between the top-level classes of one package (nested classes count as theirs). */
  private static ArchRule classesFreeOfCycles(String pkg) {
    SliceAssignment byTopLevelClass =
        new SliceAssignment() {
          @Override
          public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            if (!javaClass.getPackageName().equals(pkg)) {
              return SliceIdentifier.ignore();
            }
            String name = javaClass.getName().substring(pkg.length() + 1);
            int nested = name.indexOf('$');
            return SliceIdentifier.of(nested < 0 ? name : name.substring(0, nested));
          }

          @Override
          public String getDescription() {
            return "top-level classes of " + pkg;
          }
        };
    return slices().assignedFrom(byTopLevelClass).should().beFreeOfCycles().allowEmptyShould(false);
  }

  @Test
  void inbox_api_depends_on_no_jdbc_jdbi_postgresql_or_internal_package() {
    JavaClasses api = apiClasses();
    assertThat(api).isNotEmpty();
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.jdbi..", "org.postgresql..", "java.sql..", "javax.sql..", "..internal..")
        .because("inbox-api is the plain-Java contract; implementations live in other modules")
        .allowEmptyShould(false)
        .check(api);
    noClasses().should().resideInAPackage("..internal..").allowEmptyShould(false).check(api);
  }

  @Test
  void the_library_packages_have_no_dependency_cycles() {
    packagesFreeOfCycles("dev.pginbox.inbox").check(libraryClasses());
  }

  @Test
  void the_worker_runtime_classes_have_no_dependency_cycles() {
    JavaClasses library = libraryClasses();
    for (String pkg : List.of(WORKER_PACKAGE, EVENTS, CONNECTION, MEMBERSHIP, BATCH, WAKE)) {
      classesFreeOfCycles(pkg).check(library);
    }
  }

  @Test
  void the_worker_runtime_packages_have_no_dependency_cycles() {
    slices()
        .matching(WORKER_PACKAGE + ".(*)..")
        .should()
        .beFreeOfCycles()
        .allowEmptyShould(false)
        .check(libraryClasses());
  }

  @Test
  void the_worker_roles_depend_only_downwards() {
    JavaClasses library = libraryClasses();
    // Only the lifecycle (the root package) wires the roles together.
    layer(List.of(EVENTS, CONNECTION, MEMBERSHIP, BATCH, WAKE), List.of(WORKER_PACKAGE), library);
    // A batch runs the same whatever woke the worker: it gets its orders through the processor.
    layer(List.of(BATCH), List.of(WAKE), library);
    // Connections and what they report use nothing above them.
    layer(List.of(CONNECTION), List.of(MEMBERSHIP, BATCH, WAKE), library);
    layer(List.of(EVENTS), List.of(CONNECTION, MEMBERSHIP, BATCH, WAKE), library);
    layer(List.of(MEMBERSHIP), List.of(BATCH, WAKE), library);
  }

  /** No class of the {@code lower} packages uses a class of the {@code upper} packages. */
  private static void layer(List<String> lower, List<String> upper, JavaClasses library) {
    noClasses()
        .that()
        .resideInAnyPackage(lower.toArray(String[]::new))
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(upper.toArray(String[]::new))
        .allowEmptyShould(false)
        .check(library);
  }

  /**
   * The same, between any two classes of inbox-postgres, read from the class files' constant pools:
   * this sees a cycle closed by an inlined constant, which the rules above miss.
   */
  @Test
  void the_inbox_postgres_classes_have_no_dependency_cycles_even_through_constants() {
    ClassCycles.assertNone(PostgresInboxManager.class);
  }

  @Test
  void the_cycle_rules_fail_on_a_cycle() {
    JavaClasses fixture =
        new ClassFileImporter().importPackages("dev.pginbox.inbox.postgres.archfixture");
    assertThatThrownBy(
            () -> classesFreeOfCycles("dev.pginbox.inbox.postgres.archfixture").check(fixture))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("Cycle");
    JavaClasses none = new ClassFileImporter().importPackages("dev.pginbox.inbox.no_such_package");
    assertThatThrownBy(() -> packagesFreeOfCycles("dev.pginbox.inbox").check(none))
        .isInstanceOf(AssertionError.class);
  }
}
