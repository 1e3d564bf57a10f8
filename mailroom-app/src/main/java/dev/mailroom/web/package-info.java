/**
 * The {@code serve} HTTP endpoints on the JDK's {@code com.sun.net.httpserver}, HTML or JSON.
 * Following a link ({@code GET /activate?token=}, {@code GET /recover?token=}) only shows a form;
 * its {@code POST} consumes the token.
 *
 * <p>A request, on one of the server's threads: {@code VerificationHandler} → the client, which is
 * the peer or the address a trusted proxy names ({@code TrustedProxies}) → the bounded parameters
 * ({@code HttpExchanges}) → refused with 429 while the client or the token is over its limit
 * ({@code AttemptLimits}, two {@code FailedAttempts}) → a GET gets its form ({@code Pages}); a POST
 * goes to {@code TokenVerifier} → a failure is counted for the client and the token → the answer.
 */
package dev.mailroom.web;
