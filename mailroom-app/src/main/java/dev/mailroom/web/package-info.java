/**
 * The {@code serve} HTTP endpoints on the JDK's {@code com.sun.net.httpserver}: {@code GET
 * /activate?token=} and {@code POST /recover}, HTML or JSON, with failed attempts limited per
 * client address.
 */
package dev.mailroom.web;
