package dev.pginbox.inbox.postgres;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.pginbox.inbox.InboxException;
import org.junit.jupiter.api.Test;

/**
 * Keeps the module boundaries honest: inbox-api is plain Java, and applications do not reach into
 * the PostgreSQL implementation's internals.
 */
class ArchitectureTest {

  /** Every class of the inbox-api artifact (directory or jar), wherever its packages are. */
  private static JavaClasses apiClasses() {
    return new ClassFileImporter()
        .importUrl(InboxException.class.getProtectionDomain().getCodeSource().getLocation());
  }

  @Test
  void inbox_api_depends_on_no_jdbc_jdbi_postgresql_or_internal_package() {
    JavaClasses api = apiClasses();
    noClasses()
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.jdbi..", "org.postgresql..", "java.sql..", "javax.sql..", "..internal..")
        .because("inbox-api is the plain-Java contract; implementations live in other modules")
        .check(api);
    noClasses().should().resideInAPackage("..internal..").check(api);
  }

  @Test
  void applications_do_not_use_postgres_internals() {
    JavaClasses all =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.pginbox", "dev.mailroom");
    // allowEmptyShould: the rule holds before mailroom-app exists on this classpath.
    noClasses()
        .that()
        .resideInAPackage("dev.mailroom..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.pginbox.inbox.postgres.internal..")
        .allowEmptyShould(true)
        .check(all);
  }
}
