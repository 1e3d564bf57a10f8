package dev.pginbox.examples.orders;

import org.springframework.data.jdbc.repository.query.Modifying;
import org.springframework.data.jdbc.repository.query.Query;
import org.springframework.data.repository.CrudRepository;

/** Spring Data JDBC: its statements join the inbox's claim transaction in the listener. */
interface StockRepository extends CrudRepository<Stock, String> {

  /** Takes {@code quantity} units if there are that many; false otherwise. */
  @Modifying
  @Query(
      "UPDATE stock SET quantity = quantity - :quantity WHERE sku = :sku AND quantity >= :quantity")
  boolean take(String sku, int quantity);
}
