package dev.pginbox.examples.orders;

/** The event an order sends, and the payload of the {@code orders} inbox's messages. */
public record OrderPlaced(String orderId, String sku, int quantity) {

  public OrderPlaced {
    if (orderId == null || orderId.isBlank() || sku == null || sku.isBlank() || quantity < 1) {
      throw new IllegalArgumentException("an order needs an orderId, a sku and a quantity >= 1");
    }
  }
}
