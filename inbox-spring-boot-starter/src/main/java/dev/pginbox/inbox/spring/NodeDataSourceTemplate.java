package dev.pginbox.inbox.spring;

import com.zaxxer.hikari.HikariDataSource;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.PGProperty;
import org.postgresql.ds.PGSimpleDataSource;
import org.postgresql.ds.common.BaseDataSource;
import org.springframework.util.ClassUtils;

/**
 * The application's connection settings as a pgJDBC template for the worker nodes of a distributed
 * inbox: copied per node with the node's host and port ({@link NodeDataSources#copiesOf}), the same
 * database, user, password and driver properties. Read from a pgJDBC DataSource (also one behind a
 * wrapper that unwraps to it) or from a HikariCP pool configured with a PostgreSQL JDBC URL (Spring
 * Boot's default); any other DataSource gives nothing, and the application then defines a {@link
 * NodeDataSources} bean. The settings hold the password: nothing here logs them.
 */
final class NodeDataSourceTemplate {

  private static final boolean HIKARI =
      ClassUtils.isPresent(
          "com.zaxxer.hikari.HikariDataSource", NodeDataSourceTemplate.class.getClassLoader());

  private NodeDataSourceTemplate() {}

  /** The nodes reached with {@code app}'s settings; empty when they cannot be read from it. */
  static Optional<NodeDataSources> nodesOf(DataSource app) {
    return templateOf(app).map(NodeDataSources::copiesOf);
  }

  static Optional<BaseDataSource> templateOf(DataSource app) {
    BaseDataSource pgjdbc = unwrap(app, BaseDataSource.class);
    if (pgjdbc != null) {
      return Optional.of(pgjdbc);
    }
    return HIKARI ? Hikari.templateOf(app) : Optional.empty();
  }

  private static <T> T unwrap(DataSource dataSource, Class<T> type) {
    if (type.isInstance(dataSource)) {
      return type.cast(dataSource);
    }
    try {
      return dataSource.isWrapperFor(type) ? dataSource.unwrap(type) : null;
    } catch (SQLException | RuntimeException e) {
      return null; // a DataSource that cannot say is not one
    }
  }

  /** Touched only when HikariCP is on the classpath. */
  private static final class Hikari {

    static Optional<BaseDataSource> templateOf(DataSource app) {
      HikariDataSource pool = unwrap(app, HikariDataSource.class);
      if (pool == null) {
        return Optional.empty();
      }
      if (pool.getDataSource() instanceof BaseDataSource pgjdbc) {
        return Optional.of(pgjdbc);
      }
      String url = pool.getJdbcUrl();
      if (url == null || !url.startsWith("jdbc:postgresql:")) {
        return Optional.empty();
      }
      PGSimpleDataSource template = new PGSimpleDataSource();
      template.setURL(url);
      // Null keeps what the URL says (?user=...).
      if (pool.getUsername() != null) {
        template.setUser(pool.getUsername());
      }
      if (pool.getPassword() != null) {
        template.setPassword(pool.getPassword());
      }
      // The driver ignores a property it does not know when HikariCP hands them over; so here.
      Properties properties = pool.getDataSourceProperties();
      for (String name : properties.stringPropertyNames()) {
        PGProperty property = PGProperty.forName(name);
        if (property != null) {
          template.setProperty(property, properties.getProperty(name));
        }
      }
      return Optional.of(template);
    }
  }
}
