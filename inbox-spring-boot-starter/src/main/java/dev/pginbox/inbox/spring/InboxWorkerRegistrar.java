package dev.pginbox.inbox.spring;

import dev.pginbox.inbox.BatchHandler;
import dev.pginbox.inbox.InboxException;
import dev.pginbox.inbox.InboxWorker;
import dev.pginbox.inbox.MessageHandler;
import dev.pginbox.inbox.WorkerOptions;
import dev.pginbox.inbox.postgres.PostgresInboxManager;
import dev.pginbox.inbox.postgres.PostgresInboxWorker;
import dev.pginbox.inbox.postgres.spi.NodeDataSources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * Finds the application's handlers once every singleton exists: {@link InboxListener} methods, and
 * {@link MessageHandler} / {@link BatchHandler} beans with a {@code @Qualifier("inbox name")}. For
 * each inbox with a handler (and {@code inbox.inboxes.NAME.worker.enabled}) it creates the inbox if
 * missing and registers an {@link InboxWorkerLifecycle} bean, which the context then starts.
 *
 * <p>Whether an inbox is distributed (Citus) is read once here, per inbox: its worker then claims
 * on the worker nodes, reached through the application's {@link NodeDataSources} bean or copies of
 * its DataSource's settings, and its handler joins the node's transaction.
 */
final class InboxWorkerRegistrar implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(InboxWorkerRegistrar.class);

  /** What a worker needs from the context. */
  record Collaborators(
      DataSource dataSource,
      DataSource workerConnections,
      PlatformTransactionManager transactions,
      PostgresInboxManager manager,
      NodeDataSources nodeDataSources,
      InboxProperties properties,
      PayloadCodec codec,
      ObservationRegistry observations,
      MeterRegistry meters) {}

  private final ConfigurableListableBeanFactory beanFactory;
  private final Supplier<Collaborators> collaborators;
  private Collaborators c;

  /** The collaborators are looked up only once every singleton exists. */
  InboxWorkerRegistrar(
      ConfigurableListableBeanFactory beanFactory, Supplier<Collaborators> collaborators) {
    this.beanFactory = beanFactory;
    this.collaborators = collaborators;
  }

  /** A handler found in the context, before it becomes a worker. */
  private record Found(String description, MessageHandler message, BatchHandler batch) {}

  @Override
  public void afterSingletonsInstantiated() {
    c = collaborators.get();
    Map<String, Found> handlers = new LinkedHashMap<>();
    for (String name : beanFactory.getBeanDefinitionNames()) {
      Class<?> type = beanFactory.getType(name, false);
      if (type != null) {
        addListenerMethods(name, type, handlers);
      }
    }
    for (String name : beanFactory.getBeanNamesForType(MessageHandler.class, false, false)) {
      String inbox = qualifier(name);
      if (inbox != null) {
        put(
            handlers,
            inbox,
            new Found("bean " + name, beanFactory.getBean(name, MessageHandler.class), null));
      }
    }
    for (String name : beanFactory.getBeanNamesForType(BatchHandler.class, false, false)) {
      String inbox = qualifier(name);
      if (inbox != null) {
        put(
            handlers,
            inbox,
            new Found("bean " + name, null, beanFactory.getBean(name, BatchHandler.class)));
      }
    }
    handlers.forEach(this::register);
  }

  private void addListenerMethods(String beanName, Class<?> type, Map<String, Found> handlers) {
    Class<?> userType = ClassUtils.getUserClass(type);
    Map<Method, InboxListener> methods =
        MethodIntrospector.selectMethods(
            userType,
            (MethodIntrospector.MetadataLookup<InboxListener>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, InboxListener.class));
    if (methods.isEmpty()) {
      return;
    }
    Object bean = beanFactory.getBean(beanName);
    methods.forEach(
        (method, annotation) -> {
          Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
          ListenerMethod listener = new ListenerMethod(bean, invocable, annotation.inbox());
          Found found =
              listener.batch()
                  ? new Found(listener.describe(), null, ListenerHandlers.batchHandler(listener))
                  : new Found(
                      listener.describe(),
                      ListenerHandlers.messageHandler(listener, c.codec()),
                      null);
          put(handlers, annotation.inbox(), found);
        });
  }

  private String qualifier(String beanName) {
    Qualifier q = beanFactory.findAnnotationOnBean(beanName, Qualifier.class);
    return q == null || q.value().isEmpty() ? null : q.value();
  }

  private static void put(Map<String, Found> handlers, String inbox, Found found) {
    Found before = handlers.putIfAbsent(inbox, found);
    if (before != null) {
      throw new InboxException(
          "inbox '"
              + inbox
              + "' has two handlers ("
              + before.description()
              + " and "
              + found.description()
              + "); an inbox has one worker and one handler",
          inbox);
    }
  }

  private void register(String inbox, Found found) {
    InboxProperties.InboxDefinition definition = c.properties().inbox(inbox);
    if (!definition.worker().enabled()) {
      LOG.info("inbox {}: worker disabled (inbox.inboxes.{}.worker.enabled=false)", inbox, inbox);
      return;
    }
    if (definition.create() && !c.manager().exists(inbox)) {
      c.manager().createInbox(inbox, definition.options());
    }
    WorkerOptions options = definition.worker().options(inbox);
    InboxWorkerLifecycle.ConnectionState connection = new InboxWorkerLifecycle.ConnectionState();
    PostgresInboxWorker.Builder builder =
        PostgresInboxWorker.builder(c.workerConnections(), options)
            .listener(connection)
            .meterRegistry(c.meters());
    String workerId = definition.worker().partitions().workerId();
    if (workerId != null) {
      builder.workerId(workerId);
    }
    boolean distributed = c.manager().isDistributed(inbox);
    HandlerScope scope = distributed ? nodeTransaction(inbox, builder) : scope(builder);
    if (found.message() != null) {
      builder.handler(
          scope.around(ObservedHandlers.observe(found.message(), inbox, c.observations()), inbox));
    } else {
      builder.batchHandler(
          scope.around(ObservedHandlers.observe(found.batch(), inbox, c.observations()), inbox));
    }
    InboxWorker worker = builder.build();
    beanFactory.registerSingleton(
        "inboxWorker." + inbox,
        new InboxWorkerLifecycle(
            options, found.description(), worker, connection, c.properties().startWorkers()));
    LOG.info(
        "inbox {}: worker registered for {} ({})",
        inbox,
        found.description(),
        distributed
            ? "distributed: shard by shard, handlers in the transaction of the shard's node"
            : c.transactions() != null
                ? "batches in transactions of " + c.transactions().getClass().getSimpleName()
                : "no transaction manager: the worker's own transactions");
  }

  /** On a single server: the application's transactions when it has a transaction manager. */
  private HandlerScope scope(PostgresInboxWorker.Builder builder) {
    if (c.transactions() == null) {
      // No transaction manager: the worker's own transaction, exposed to Spring's JDBC support.
      return new ClaimTransactionBinding(c.dataSource());
    }
    // Batches in transactions of the application's transaction manager (JDBC or JPA).
    builder.transactionBoundary(new SpringBatchTransactions(c.transactions(), c.dataSource()));
    return new MessageScope(c.dataSource(), beanFactory);
  }

  /**
   * On a distributed inbox the claim's transaction is on the shard's node, which no transaction
   * manager of the application can begin: the handler's JDBC work joins it there instead, whether
   * or not the application has a transaction manager.
   */
  private HandlerScope nodeTransaction(String inbox, PostgresInboxWorker.Builder builder) {
    builder.nodeDataSources(nodeDataSources(inbox));
    warnIfTransactionsCannotJoin(inbox);
    return new ClaimTransactionBinding(c.dataSource());
  }

  /**
   * The application's {@link NodeDataSources} bean, or else copies of its DataSource's settings at
   * each node; the start fails when there is neither, rather than each worker at its start.
   */
  private NodeDataSources nodeDataSources(String inbox) {
    if (c.nodeDataSources() != null) {
      return c.nodeDataSources();
    }
    return NodeDataSourceTemplate.nodesOf(c.dataSource())
        .orElseThrow(
            () ->
                new InboxException(
                    "inbox "
                        + inbox
                        + " is distributed: its worker claims on the worker nodes, and their"
                        + " connection settings cannot be read from the application's DataSource"
                        + " (a "
                        + c.dataSource().getClass().getName()
                        + "; read are pgJDBC's and HikariCP's with a PostgreSQL URL): define a"
                        + " NodeDataSources bean (docs/scale-out.md)",
                    inbox));
  }

  /**
   * A transaction manager other than the JDBC one cannot join the node's transaction: JPA's holds
   * an EntityManager on a connection of its own, to the coordinator. Said at start rather than
   * refused, so that an application with JPA elsewhere can still consume a distributed inbox with
   * JDBC handlers. A write through Spring's JPA support fails its message rather than committing
   * apart from it: JPA's transaction manager refuses to begin over the bound connection ("Pre-bound
   * JDBC Connection found"), and a shared EntityManager has no transaction to write in.
   */
  private void warnIfTransactionsCannotJoin(String inbox) {
    if (c.transactions() != null && !(c.transactions() instanceof DataSourceTransactionManager)) {
      LOG.warn(
          "inbox {} is distributed: its handler runs in the transaction of the shard's node, which"
              + " transactions of {} cannot join. Write with JdbcTemplate or JdbcClient (an"
              + " EntityManager or a @Transactional method of this transaction manager fails the"
              + " message); see docs/scale-out.md",
          inbox,
          c.transactions().getClass().getSimpleName());
    }
  }
}
