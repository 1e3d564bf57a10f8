package dev.pginbox.examples.orders;

import org.springframework.data.annotation.Id;
import org.springframework.data.relational.core.mapping.Table;

/** Units of one article in stock. */
@Table("stock")
public record Stock(@Id String sku, int quantity) {}
