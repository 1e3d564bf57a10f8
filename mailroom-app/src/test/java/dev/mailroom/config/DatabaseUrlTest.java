package dev.mailroom.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class DatabaseUrlTest {

  private ConnectionSettings parse(String url) {
    return parse(url, Map.of("USER", "ogu"));
  }

  private ConnectionSettings parse(String url, Map<String, String> env) {
    return DatabaseUrl.parse(url, env);
  }

  @Test
  void bare_dbname_uses_libpq_defaults_and_the_default_socket_directory() {
    ConnectionSettings s = parse("dbname=mailroom");
    String dir = UnixSocket.DEFAULT_DIRECTORY;
    assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/mailroom");
    assertThat(s.properties())
        .containsEntry("user", "ogu")
        .containsEntry("socketFactory", "org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg")
        .containsEntry("socketFactoryArg", dir + "/.s.PGSQL.5432")
        .containsEntry("sslmode", "disable")
        .doesNotContainKey("password");
    assertThat(s.describe())
        .isEqualTo("host=" + dir + " port=5432 dbname=mailroom user=ogu sslmode=disable");
  }

  @Test
  void tcp_hosts_use_no_socket_factory() {
    ConnectionSettings s = parse("host=localhost dbname=mailroom");
    assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/mailroom");
    assertThat(s.properties())
        .containsEntry("sslmode", "prefer")
        .doesNotContainKey("socketFactory")
        .doesNotContainKey("socketFactoryArg");
    assertThat(s.describe())
        .isEqualTo("host=localhost port=5432 dbname=mailroom user=ogu sslmode=prefer");
  }

  @Test
  void full_conninfo_with_quoting_and_escapes() {
    ConnectionSettings s =
        parse(
            "dbname = mailroom host=db.internal port=6543 user=x password='it\\'s \\'quoted\\' a b' sslmode=disable"
                + " connect_timeout=7 application_name=collector");
    assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://db.internal:6543/mailroom");
    assertThat(s.properties())
        .containsEntry("user", "x")
        .containsEntry("password", "it's 'quoted' a b")
        .containsEntry("sslmode", "disable")
        .containsEntry("connectTimeout", "7")
        .containsEntry("ApplicationName", "collector");
    assertThat(s.describe())
        .isEqualTo("host=db.internal port=6543 dbname=mailroom user=x sslmode=disable");
    assertThat(s.describe()).doesNotContain("quoted");
  }

  @Test
  void a_socket_directory_host_connects_through_its_socket_in_every_form() {
    for (String url :
        new String[] {
          "host=/var/run/postgresql port=5433 dbname=mailroom",
          "postgresql://%2Fvar%2Frun%2Fpostgresql:5433/mailroom",
          "postgresql:///mailroom?host=/var/run/postgresql&port=5433",
          "postgres://ogu@/mailroom?host=%2Fvar%2Frun%2Fpostgresql&port=5433&sslmode=require"
        }) {
      ConnectionSettings s = parse(url);
      assertThat(s.properties())
          .as(url)
          .containsEntry("socketFactoryArg", "/var/run/postgresql/.s.PGSQL.5433")
          .containsEntry("sslmode", "disable");
      assertThat(s.describe())
          .as(url)
          .isEqualTo("host=/var/run/postgresql port=5433 dbname=mailroom user=ogu sslmode=disable");
    }
    assertThat(parse("dbname=m", Map.of("PGHOST", "/tmp/pg/", "USER", "ogu")).properties())
        .containsEntry("socketFactoryArg", "/tmp/pg/.s.PGSQL.5432");
  }

  @Test
  void sockets_that_cannot_be_reached_alone_are_refused() {
    assertThatThrownBy(() -> parse("host=/tmp,db.internal dbname=m"))
        .isInstanceOf(MalformedDatabaseUrlException.class)
        .hasMessageContaining("several hosts");
    assertThatThrownBy(() -> parse("host=@abstract dbname=m"))
        .isInstanceOf(MalformedDatabaseUrlException.class)
        .hasMessageContaining("abstract");
  }

  @Test
  void uri_with_percent_encoding_and_query_parameters() {
    ConnectionSettings s =
        parse(
            "postgresql://us%40er:p%40ss%2Fw+rd@db.example.com:5433/mail%20room?sslmode=require&application_name=a%20b&connect_timeout=3");
    assertThat(s.jdbcUrl()).isEqualTo("jdbc:postgresql://db.example.com:5433/mail+room");
    assertThat(s.database()).isEqualTo("mail room");
    assertThat(s.properties())
        .containsEntry("user", "us@er")
        .containsEntry("password", "p@ss/w+rd")
        .containsEntry("sslmode", "require")
        .containsEntry("ApplicationName", "a b")
        .containsEntry("connectTimeout", "3");
  }

  @Test
  void uri_forms_short_scheme_ipv6_multi_host_and_no_parts() {
    assertThat(parse("postgres://[::1]:6000/db").jdbcUrl())
        .isEqualTo("jdbc:postgresql://[::1]:6000/db");
    ConnectionSettings multi =
        parse("postgresql://h1:5001,h2:5002/db?target_session_attrs=read-write");
    assertThat(multi.jdbcUrl()).isEqualTo("jdbc:postgresql://h1:5001,h2:5002/db");
    assertThat(multi.properties()).containsEntry("targetServerType", "primary");
    ConnectionSettings bare = parse("postgresql://");
    assertThat(bare.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/ogu");
    assertThat(bare.hosts()).containsExactly(UnixSocket.DEFAULT_DIRECTORY);
    ConnectionSettings userOnly = parse("postgresql://bob@/app");
    assertThat(userOnly.properties())
        .containsEntry("user", "bob")
        .containsEntry("socketFactoryArg", UnixSocket.DEFAULT_DIRECTORY + "/.s.PGSQL.5432");
    assertThat(userOnly.jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5432/app");
    assertThat(parse("postgresql://%2Fvar%2Frun%2Fpostgresql/db").hosts())
        .containsExactly("/var/run/postgresql");
  }

  @Test
  void libpq_environment_fills_the_gaps() {
    ConnectionSettings fromEnv =
        parse(
            "sslmode=require",
            Map.of(
                "PGHOST",
                "envhost",
                "PGPORT",
                "7000",
                "PGUSER",
                "envuser",
                "PGPASSWORD",
                "pw",
                "PGDATABASE",
                "envdb"));
    assertThat(fromEnv.jdbcUrl()).isEqualTo("jdbc:postgresql://envhost:7000/envdb");
    assertThat(fromEnv.properties())
        .containsEntry("user", "envuser")
        .containsEntry("password", "pw");
  }

  @Test
  void jdbc_urls_pass_through() {
    ConnectionSettings s =
        parse("jdbc:postgresql://pg:5434/mailroom?user=app&password=secret&sslmode=verify-full");
    assertThat(s.jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://pg:5434/mailroom?user=app&password=secret&sslmode=verify-full");
    assertThat(s.describe())
        .isEqualTo("host=pg port=5434 dbname=mailroom user=app sslmode=verify-full");
    assertThat(s.describe()).doesNotContain("secret");
  }

  @Test
  void malformed_urls_are_rejected_with_libpq_like_messages() {
    assertThatThrownBy(() -> parse("dbname"))
        .isInstanceOf(MalformedDatabaseUrlException.class)
        .hasMessageContaining("missing \"=\"");
    assertThatThrownBy(() -> parse("dbname='open"))
        .hasMessageContaining("unterminated quoted string");
    assertThatThrownBy(() -> parse("bogus=1"))
        .hasMessageContaining("invalid connection option \"bogus\"");
    assertThatThrownBy(() -> parse("port=abc")).hasMessageContaining("invalid port number");
    assertThatThrownBy(() -> parse("port=70000")).hasMessageContaining("invalid port number");
    assertThatThrownBy(() -> parse("sslmode=maybe")).hasMessageContaining("invalid sslmode");
    assertThatThrownBy(() -> parse("postgresql://h/db?sslmode")).hasMessageContaining("separator");
    assertThatThrownBy(() -> parse("postgresql://h/db?x%zz=1"))
        .hasMessageContaining("percent-encoded");
    assertThatThrownBy(() -> parse("postgresql://[::1/db")).hasMessageContaining("IPv6");
    assertThatThrownBy(() -> parse("mysql://h/db")).hasMessageContaining("unsupported URI scheme");
    assertThatThrownBy(() -> parse("jdbc:postgresql://h:notaport/db"))
        .isInstanceOf(MalformedDatabaseUrlException.class);
    assertThatThrownBy(() -> parse("host=a,b port=1,2,3")).hasMessageContaining("could not match");
    assertThatThrownBy(() -> parse("   ")).hasMessageContaining("empty");
  }
}
