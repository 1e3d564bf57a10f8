package com.example.imports;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** An application that imports orders and sends them to its inbox in the same transaction. */
@SpringBootApplication
public class ImportApplication {}
