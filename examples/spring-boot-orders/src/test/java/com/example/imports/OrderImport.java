package com.example.imports;

import dev.pginbox.inbox.NewMessage;
import dev.pginbox.inbox.spring.InboxTemplate;
import java.util.List;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import tools.jackson.databind.json.JsonMapper;

/** docs/spring-boot.md's {@code sendAll} example, verbatim in {@link #importOrders}. */
@Service
public class OrderImport {

  /** An order of the import. */
  public record Order(String id, String sku) {}

  private final Orders repository;
  private final InboxTemplate inbox;
  private final JsonMapper json;

  OrderImport(Orders repository, InboxTemplate inbox, JsonMapper json) {
    this.repository = repository;
    this.inbox = inbox;
    this.json = json;
  }

  @Transactional
  public void importOrders(List<Order> orders) { // json: the application's JsonMapper
    repository.saveAll(orders);
    inbox.sendAll(
        "orders",
        orders.stream()
            .map(o -> NewMessage.of(o.id(), "order.placed", o.sku(), json.writeValueAsString(o)))
            .toList()); // committed with saveAll, or not at all
  }
}
