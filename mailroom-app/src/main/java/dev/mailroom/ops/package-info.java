/**
 * Operator endpoints of the collector: health, Prometheus metrics and the web console of module
 * inbox-http, on the JDK HTTP server, when MAILROOM_HTTP_PORT is set.
 */
package dev.mailroom.ops;
