package dev.pginbox.inbox.testing;

import dev.pginbox.inbox.testing.postgres.TestPostgres;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a JUnit 5 test class a real PostgreSQL database of its own with the inbox SQL API
 * installed. Test methods, constructors and lifecycle methods may take an {@link
 * dev.pginbox.inbox.InboxManager}, an {@link InboxProbe} (drain workers, assert what became of
 * messages), the {@link TestDatabase} or its {@link javax.sql.DataSource}.
 *
 * <p>The server is chosen like the project's own tests': {@value TestPostgres#URL_VARIABLE}, else
 * Testcontainers, else an embedded PostgreSQL (see {@link TestPostgres}). The database is shared by
 * the methods of one class; give each test its own inbox names.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(InboxTestExtension.class)
public @interface InboxTest {}
