package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.InboxManager;
import java.lang.reflect.InvocationTargetException;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/** The extension behind {@link InboxTest}: one installed database per test class. */
public final class InboxTestExtension implements BeforeAllCallback, ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(InboxTestExtension.class);

  /**
   * Found by name: inbox-postgres is built after this module (its own tests use this kit), so it
   * cannot be a compile-time dependency here. Every user of the kit has it on the classpath.
   */
  private static final String MANAGER_CLASS = "dev.pginbox.inbox.postgres.PostgresInboxManager";

  /** What one test class gets. */
  private record Installed(TestDatabase database, InboxManager manager, InboxProbe probe) {}

  @Override
  public void beforeAll(ExtensionContext context) {
    installed(context);
  }

  private static Installed installed(ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    return classContext
        .getStore(NAMESPACE)
        .getOrComputeIfAbsent(
            classContext.getRequiredTestClass(), c -> install((Class<?>) c), Installed.class);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    ExtensionContext c = context;
    while (c.getTestMethod().isPresent() && c.getParent().isPresent()) {
      c = c.getParent().get();
    }
    return c;
  }

  private static Installed install(Class<?> testClass) {
    TestDatabase database = TestPostgres.shared().newDatabase(testClass.getSimpleName());
    InboxManager manager = managerOn(database.dataSource());
    manager.install();
    return new Installed(database, manager, new InboxProbe(database.dataSource()));
  }

  static InboxManager managerOn(DataSource dataSource) {
    try {
      return (InboxManager)
          Class.forName(MANAGER_CLASS)
              .getMethod("create", DataSource.class)
              .invoke(null, dataSource);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(
          "@InboxTest needs dev.pginbox:inbox-postgres on the test classpath", e);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("cannot create the InboxManager", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot create the InboxManager", e);
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == InboxManager.class
        || type == InboxProbe.class
        || type == TestDatabase.class
        || type == DataSource.class
        || (type.getName().equals(MANAGER_CLASS));
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Installed installed = installed(context);
    Class<?> type = parameter.getParameter().getType();
    if (type == InboxProbe.class) {
      return installed.probe();
    } else if (type == TestDatabase.class) {
      return installed.database();
    } else if (type == DataSource.class) {
      return installed.database().dataSource();
    } else if (type == InboxManager.class || type.getName().equals(MANAGER_CLASS)) {
      return installed.manager();
    }
    throw new ParameterResolutionException("@InboxTest cannot supply a " + type.getName());
  }
}
