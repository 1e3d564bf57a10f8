package dev.mailroom.config;

import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** A pgJDBC DataSource for {@link ConnectionSettings}; every call opens a new connection. */
public final class DataSources {

  private DataSources() {}

  public static DataSource of(ConnectionSettings settings) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(settings.jdbcUrl());
    Properties props = settings.properties();
    try {
      for (String name : props.stringPropertyNames()) {
        ds.setProperty(name, props.getProperty(name));
      }
    } catch (SQLException e) {
      throw new ConfigException("unsupported connection property: " + e.getMessage());
    }
    return ds;
  }
}
