/**
 * The collector: an inbox worker whose batch handler loads the batch's tokens, signs them and
 * writes them out inside the batch's transaction. {@code Collector} wires it up and runs it until
 * stopped; {@code CollectorListener} turns worker events into the original log lines.
 */
package dev.mailroom.collector;
