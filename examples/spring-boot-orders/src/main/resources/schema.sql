CREATE TABLE IF NOT EXISTS stock (
    sku      text PRIMARY KEY,
    quantity integer NOT NULL CHECK (quantity >= 0)
);
INSERT INTO stock (sku, quantity) VALUES ('BOOK-1', 10), ('MUG-1', 3) ON CONFLICT DO NOTHING;
