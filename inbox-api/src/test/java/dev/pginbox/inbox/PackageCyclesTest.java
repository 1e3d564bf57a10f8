package dev.pginbox.inbox;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The packages of the contract depend one way: {@code dev.pginbox.inbox.operations} (the operator's
 * values and {@code InboxOperations}) stands on its own, and the root package, which hands it out
 * ({@code Inbox.operations()}), uses it. A package cycle would make the two one package in all but
 * name. Each package is a slice here, the root one included (a {@code matching("..(**)")} pattern
 * would leave the root package out).
 */
class PackageCyclesTest {

  private static final String ROOT = "dev.pginbox.inbox";

  @Test
  void the_api_packages_form_no_cycle() throws URISyntaxException {
    JavaClasses api = new ClassFileImporter().importPath(classesOf(Inbox.class));
    SliceAssignment byPackage =
        new SliceAssignment() {
          @Override
          public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            String pkg = javaClass.getPackageName();
            return pkg.equals(ROOT) || pkg.startsWith(ROOT + ".")
                ? SliceIdentifier.of(pkg)
                : SliceIdentifier.ignore();
          }

          @Override
          public String getDescription() {
            return "packages of " + ROOT;
          }
        };
    slices().assignedFrom(byPackage).should().beFreeOfCycles().allowEmptyShould(false).check(api);
  }

  /** The module's own classes (not those of other modules on the test class path). */
  private static Path classesOf(Class<?> type) throws URISyntaxException {
    return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
