package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.postgres.spi.BatchTransactionBoundary;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Each batch (claim, handler, outcome marks) runs in a new transaction of the application's {@link
 * PlatformTransactionManager}, on the connection that transaction manager bound to the {@link
 * DataSource}: with {@code DataSourceTransactionManager} its own, with {@code
 * JpaTransactionManager} the JPA session's. Everything the handler does through Spring (JDBC,
 * Spring Data, JPA, {@code @Transactional} methods) joins the batch's transaction, and transaction
 * synchronizations run at its commit.
 */
final class SpringBatchTransactions implements BatchTransactionBoundary {

  private final TransactionTemplate template;
  private final DataSource dataSource;

  SpringBatchTransactions(PlatformTransactionManager transactions, DataSource dataSource) {
    this.template = new TransactionTemplate(Objects.requireNonNull(transactions, "transactions"));
    // Never inside a caller's transaction; READ COMMITTED is what the claim's lease guard needs.
    template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
    template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
    template.setName("inbox batch");
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
  }

  @Override
  public <T> T inTransaction(Work<T> work) throws SQLException {
    try {
      return template.execute(
          status -> {
            Connection connection = DataSourceUtils.getConnection(dataSource);
            try {
              return work.run(connection, status::setRollbackOnly);
            } catch (SQLException e) {
              throw new SqlFailure(e); // rolls the transaction back, then unwrapped below
            } finally {
              DataSourceUtils.releaseConnection(connection, dataSource);
            }
          });
    } catch (SqlFailure e) {
      throw e.sqlException;
    }
  }

  /** Carries the work's SQLException, with its SQLSTATE, through the TransactionTemplate. */
  private static final class SqlFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient SQLException sqlException;

    SqlFailure(SQLException e) {
      super(e);
      this.sqlException = e;
    }
  }
}
