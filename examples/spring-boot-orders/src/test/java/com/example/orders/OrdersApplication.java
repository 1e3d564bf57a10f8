package com.example.orders;

import dev.pginbox.inbox.spring.InboxListener;
import dev.pginbox.inbox.spring.InboxTemplate;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

@SpringBootApplication
public class OrdersApplication {
  public static void main(String[] args) {
    SpringApplication.run(OrdersApplication.class, args);
  }

  public record OrderPlaced(String orderId, String sku, int quantity) {}

  @RestController
  static class Orders {
    private final InboxTemplate inbox;

    Orders(InboxTemplate inbox) {
      this.inbox = inbox;
    }

    @PostMapping("/orders")
    String receive(@RequestBody OrderPlaced order) {
      // The order id is the event id: a second POST of the same order is ignored.
      boolean isNew = inbox.send("orders", order.orderId(), "order.placed", order.sku(), order);
      return isNew ? "accepted" : "duplicate";
    }
  }

  @Component
  static class Stock {
    private final JdbcTemplate jdbc;

    Stock(JdbcTemplate jdbc) {
      this.jdbc = jdbc;
    }

    // Runs in the transaction that claimed the message: this write and the processed mark
    // commit together. A thrown exception undoes the write and retries the message later.
    @InboxListener(inbox = "orders")
    public void on(OrderPlaced order) {
      jdbc.update(
          "INSERT INTO taken (order_id, sku, quantity) VALUES (?, ?, ?)",
          order.orderId(),
          order.sku(),
          order.quantity());
    }
  }
}
