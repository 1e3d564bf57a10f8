package com.example.imports;

import com.example.imports.OrderImport.Order;
import java.util.List;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** The application's own table of imported orders. */
@Repository
class Orders {

  private final JdbcTemplate jdbc;

  Orders(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  void saveAll(List<Order> orders) {
    for (Order o : orders) {
      jdbc.update("INSERT INTO imported (id, sku) VALUES (?, ?)", o.id(), o.sku());
    }
  }
}
