package dev.pginbox.inbox.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import dev.pginbox.inbox.InboxManager;
import dev.pginbox.inbox.InboxWorker;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code /health/live}: the process answers and no worker died of a fatal error. {@code
 * /health/ready}: additionally the database answers and every worker runs and is connected; 503
 * otherwise, with the reasons.
 */
final class Health implements Route.Page {

  private final InboxManager manager;
  private final List<InboxWorker> workers;
  private final Readiness readiness;

  Health(InboxManager manager, List<InboxWorker> workers, Readiness readiness) {
    this.manager = manager;
    this.workers = List.copyOf(workers);
    this.readiness = readiness;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < workers.size(); i++) {
      if (workers.get(i).failure().isPresent()) {
        problems.add("worker " + i + " stopped after a fatal error");
      }
    }
    if (path.equals("/health/ready")) {
      for (int i = 0; i < workers.size(); i++) {
        if (!workers.get(i).isRunning()) {
          problems.add("worker " + i + " is not running");
        }
      }
      readiness.disconnected().forEach(w -> problems.add("worker " + w + " is not connected"));
      try {
        manager.names();
      } catch (RuntimeException e) {
        problems.add("the database does not answer");
      }
    } else if (!path.equals("/health/live")) {
      Exchanges.send(exchange, 404, "text/plain; charset=utf-8", "not found\n");
      return;
    }
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("status", problems.isEmpty() ? "UP" : "DOWN");
    problems.forEach(body.putArray("problems")::add);
    Exchanges.send(
        exchange, problems.isEmpty() ? 200 : 503, Json.CONTENT_TYPE, body.toPrettyString());
  }
}
