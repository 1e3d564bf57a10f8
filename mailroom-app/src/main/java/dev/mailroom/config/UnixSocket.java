package dev.mailroom.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * A Unix-domain socket host, as libpq reads one: a host that starts with {@code /} is the directory
 * of the server's socket {@code .s.PGSQL.<port>}. pgJDBC speaks TCP only, so the connection goes
 * through junixsocket's socket factory; the host and port of the JDBC URL are then only names.
 */
final class UnixSocket {

  /**
   * libpq's default socket directory when no host is given: {@code /var/run/postgresql} for the
   * PostgreSQL packages of Debian, Ubuntu and Red Hat (where it exists), else {@code /tmp}, the
   * default of PostgreSQL's own builds.
   */
  static final String DEFAULT_DIRECTORY =
      Files.isDirectory(Path.of("/var/run/postgresql")) ? "/var/run/postgresql" : "/tmp";

  /** junixsocket's factory for pgJDBC, constructed with the socket file's path. */
  private static final String FACTORY = "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg";

  private UnixSocket() {}

  static boolean isDirectory(String host) {
    return host.startsWith("/");
  }

  /** The socket file of the server listening on {@code port} in {@code directory}. */
  static String file(String directory, int port) {
    return (directory.endsWith("/") ? directory : directory + "/") + ".s.PGSQL." + port;
  }

  /**
   * Routes pgJDBC's connection through the socket. As libpq does, no TLS over a local socket: the
   * server refuses it there, and the kernel already keeps the bytes on the machine.
   */
  static void connectThrough(String directory, int port, Properties props) {
    props.setProperty("socketFactory", FACTORY);
    props.setProperty("socketFactoryArg", file(directory, port));
    props.setProperty("sslmode", "disable");
  }
}
