package dev.mailroom;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The application is built on the public inbox API only, and its packages form no cycle. */
@AnalyzeClasses(packages = "dev.mailroom", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule no_inbox_internals =
      noClasses()
          .that()
          .resideInAPackage("dev.mailroom..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("..postgres.internal..")
          .because("mailroom-app must use only the public API of inbox-postgres");

  @ArchTest
  static final ArchRule packages_free_of_cycles =
      slices()
          .matching("dev.mailroom.(*)..")
          .should()
          .beFreeOfCycles()
          .because(
              "each concern (config, collector, output, cli, ...) builds on the ones below it");
}
