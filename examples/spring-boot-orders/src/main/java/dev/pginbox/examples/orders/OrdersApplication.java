package dev.pginbox.examples.orders;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Orders arrive over HTTP, go into the {@code orders} inbox, and a listener takes them out of
 * stock. Run it with {@code java -jar target/spring-boot-orders.jar}: without {@code
 * SPRING_DATASOURCE_URL} (or {@code --spring.datasource.url}) it starts a throwaway embedded
 * PostgreSQL.
 */
@SpringBootApplication
public class OrdersApplication {

  private static final Logger LOG = LoggerFactory.getLogger(OrdersApplication.class);

  public static void main(String[] args) throws IOException {
    SpringApplication app = new SpringApplication(OrdersApplication.class);
    if (!databaseConfigured(args)) {
      EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
      Runtime.getRuntime().addShutdownHook(new Thread(() -> close(embedded), "embedded-pg-stop"));
      System.setProperty("spring.datasource.url", embedded.getJdbcUrl("postgres", "postgres"));
      System.setProperty("spring.datasource.username", "postgres");
      LOG.info("no spring.datasource.url given: using a throwaway embedded PostgreSQL");
    }
    app.run(args);
  }

  private static boolean databaseConfigured(String[] args) {
    for (String arg : args) {
      if (arg.startsWith("--spring.datasource.url=")) {
        return true;
      }
    }
    return System.getenv("SPRING_DATASOURCE_URL") != null
        || System.getProperty("spring.datasource.url") != null;
  }

  private static void close(EmbeddedPostgres embedded) {
    try {
      embedded.close();
    } catch (IOException e) {
      LOG.warn("stopping the embedded PostgreSQL failed", e);
    }
  }
}
