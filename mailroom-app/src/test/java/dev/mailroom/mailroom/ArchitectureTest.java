package dev.mailroom.mailroom;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The application is built on the public inbox API only. */
@AnalyzeClasses(
    packages = "dev.mailroom.mailroom",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule no_inbox_internals =
      noClasses()
          .that()
          .resideInAPackage("dev.mailroom.mailroom..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("..postgres.internal..")
          .because("mailroom-app must use only the public API of inbox-postgres");
}
