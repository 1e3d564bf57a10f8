package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.BatchResult;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.Outcome;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.transaction.support.ResourceHolderSupport;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;

/**
 * Keeps a message's effects inside its own savepoint when the batch runs in a Spring transaction
 * ({@link SpringBatchTransactions}). The worker rolls a failed message back to its savepoint, but
 * Spring and JPA hold state of their own that a savepoint does not reach:
 *
 * <ul>
 *   <li>JPA keeps unflushed changes in the persistence context, which the batch's commit would
 *       write: a handler call that succeeds is flushed at once (its SQL errors are then its own),
 *       and after one that fails the persistence context is cleared;
 *   <li>a participating {@code @Transactional} method that failed marks the whole transaction
 *       rollback-only: the mark is reset and the message counts as failed, so only it is undone.
 *       JPA also marks its own transaction, which cannot be reset: the batch then rolls back and
 *       each of its messages gets a failed attempt.
 * </ul>
 */
final class MessageScope implements HandlerScope {

  private static final boolean JPA =
      ClassUtils.isPresent(
          "jakarta.persistence.EntityManagerFactory", MessageScope.class.getClassLoader());

  private final DataSource dataSource;
  private final List<Object> entityManagerFactories;

  MessageScope(DataSource dataSource, ListableBeanFactory beans) {
    this.dataSource = dataSource;
    this.entityManagerFactories = JPA ? Jpa.factories(beans) : List.of();
  }

  @Override
  @SuppressWarnings("overloads") // see HandlerScope
  public MessageHandler around(MessageHandler handler, String inbox) {
    return (message, tx) -> {
      Outcome outcome;
      try {
        outcome = handler.handle(message, tx);
        if (outcome == null || outcome.marksProcessed()) {
          flush();
        }
      } catch (Exception | Error e) {
        discard();
        throw e;
      }
      if (resetRollbackOnly()) {
        discard();
        throw rollbackOnly(inbox);
      }
      if (outcome != null && !outcome.marksProcessed()) {
        discard();
      }
      return outcome;
    };
  }

  @Override
  @SuppressWarnings("overloads") // see HandlerScope
  public BatchHandler around(BatchHandler handler, String inbox) {
    return (batch, tx) -> {
      BatchResult result;
      try {
        result = handler.handle(batch, tx);
        flush();
      } catch (Exception | Error e) {
        discard();
        throw e;
      }
      if (resetRollbackOnly()) {
        discard();
        throw rollbackOnly(inbox);
      }
      return result;
    };
  }

  private static InboxException rollbackOnly(String inbox) {
    return new InboxException(
        "a @Transactional method called by the handler failed and marked the transaction"
            + " rollback-only",
        inbox);
  }

  private void flush() {
    for (Object emf : entityManagerFactories) {
      Jpa.flush(emf);
    }
  }

  private void discard() {
    for (Object emf : entityManagerFactories) {
      Jpa.clear(emf);
    }
  }

  /** True when a holder of this transaction was marked rollback-only; resets the marks. */
  private boolean resetRollbackOnly() {
    boolean marked = reset(TransactionSynchronizationManager.getResource(dataSource));
    for (Object emf : entityManagerFactories) {
      marked |= reset(TransactionSynchronizationManager.getResource(emf));
    }
    return marked;
  }

  private static boolean reset(Object holder) {
    if (holder instanceof ResourceHolderSupport h && h.isRollbackOnly()) {
      h.resetRollbackOnly();
      return true;
    }
    return false;
  }

  /** Touched only when JPA is on the classpath. */
  private static final class Jpa {
    static List<Object> factories(ListableBeanFactory beans) {
      return List.copyOf(
          beans
              .getBeansOfType(jakarta.persistence.EntityManagerFactory.class, false, false)
              .values());
    }

    static void flush(Object emf) {
      jakarta.persistence.EntityManager em = current(emf);
      if (em != null) {
        em.flush();
      }
    }

    static void clear(Object emf) {
      jakarta.persistence.EntityManager em = current(emf);
      if (em != null) {
        em.clear();
      }
    }

    private static jakarta.persistence.EntityManager current(Object emf) {
      Object holder = TransactionSynchronizationManager.getResource(emf);
      return holder instanceof org.springframework.orm.jpa.EntityManagerHolder h
          ? h.getEntityManager()
          : null;
    }
  }
}
