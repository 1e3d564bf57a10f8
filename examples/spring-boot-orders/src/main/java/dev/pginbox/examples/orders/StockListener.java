package dev.pginbox.examples.orders;

import dev.pginbox.inbox.Outcome;
import dev.pginbox.inbox.spring.InboxListener;
import org.springframework.stereotype.Component;

/**
 * Takes each order out of stock. It runs in the transaction that claimed the message: the stock
 * update and the processed mark commit together, so an order is never taken twice nor lost.
 */
@Component
class StockListener {

  private final StockRepository stock;

  StockListener(StockRepository stock) {
    this.stock = stock;
  }

  @InboxListener(inbox = "orders")
  public Outcome on(OrderPlaced order) {
    if (!stock.existsById(order.sku())) {
      return Outcome.dead("unknown sku " + order.sku());
    }
    if (!stock.take(order.sku(), order.quantity())) {
      // Stock may be replenished: retried with backoff, then a dead letter to replay.
      return Outcome.retry("not enough " + order.sku() + " in stock for " + order.orderId());
    }
    return Outcome.processed();
  }
}
