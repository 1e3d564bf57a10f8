package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.testing.postgres.TestDatabase;
import dev.pginbox.inbox.testing.postgres.TestPostgres;
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

  /** What one test class gets. */
  private record Installed(TestDatabase database, PostgresInboxManager manager, InboxProbe probe) {}

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
    PostgresInboxManager manager = PostgresInboxManager.create(database.dataSource());
    manager.install();
    return new Installed(database, manager, new InboxProbe(database.dataSource()));
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == InboxManager.class
        || type == InboxProbe.class
        || type == TestDatabase.class
        || type == DataSource.class
        || type == PostgresInboxManager.class;
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
    } else if (type == InboxManager.class || type == PostgresInboxManager.class) {
      return installed.manager();
    }
    throw new ParameterResolutionException("@InboxTest cannot supply a " + type.getName());
  }
}
