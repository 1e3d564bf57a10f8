package dev.pginbox.examples.orders;

import dev.pginbox.inbox.spring.InboxTemplate;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** Receives order events and hands them to the inbox; the stock changes in the listener. */
@RestController
class OrderController {

  private final InboxTemplate inbox;
  private final StockRepository stock;

  OrderController(InboxTemplate inbox, StockRepository stock) {
    this.inbox = inbox;
    this.stock = stock;
  }

  /** 202 for a new order, 200 for one already received (the event id is the order id). */
  @PostMapping("/orders")
  ResponseEntity<Map<String, Object>> receive(@RequestBody OrderPlaced order) {
    boolean accepted = inbox.send("orders", order.orderId(), "order.placed", order.sku(), order);
    return ResponseEntity.status(accepted ? HttpStatus.ACCEPTED : HttpStatus.OK)
        .body(Map.of("orderId", order.orderId(), "duplicate", !accepted));
  }

  @GetMapping("/stock/{sku}")
  ResponseEntity<Stock> stock(@PathVariable String sku) {
    return ResponseEntity.of(stock.findById(sku));
  }

  @ExceptionHandler(IllegalArgumentException.class)
  ResponseEntity<Map<String, String>> invalid(IllegalArgumentException e) {
    return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
  }
}
