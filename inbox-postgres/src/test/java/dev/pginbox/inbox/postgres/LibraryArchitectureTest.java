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
import org.junit.jupiter.api.Test;

/**
 * Keeps the module boundaries honest (inbox-api is plain Java) and the library free of dependency
 * cycles, between its packages and between the worker runtime's classes. Every rule refuses to pass
 * on an empty set of classes, and the cycle rules are shown to fail on a deliberate cycle. (That
 * applications use no internals is checked in mailroom-app, where the application is.)
 */
class LibraryArchitectureTest {

  private static final String WORKER_PACKAGE = "dev.pginbox.inbox.postgres.internal.worker";

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
    classesFreeOfCycles(WORKER_PACKAGE).check(libraryClasses());
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
