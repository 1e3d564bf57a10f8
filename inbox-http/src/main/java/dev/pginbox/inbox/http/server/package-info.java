/**
 * An HTTP/1.1 server for the JDK's {@code com.sun.net.httpserver} handlers that clients cannot
 * stall ({@link dev.pginbox.inbox.http.server.BoundedHttpServer}, limits in {@link
 * dev.pginbox.inbox.http.server.HttpLimits}).
 *
 * <p>The path of a request, with the thread of each step:
 *
 * <pre>
 * accept ──► Connection ──► RequestHead ──► body ──► Exchange ──► handler ──► ChannelOutput
 * (Reactor thread: non-blocking reads,      (complete)  (worker thread: the handler, and the
 *  deadlines, caps in WaitingConnections)               answer written before its deadline)
 * </pre>
 *
 * <ul>
 *   <li>{@code Reactor}: accepts, reads every connection without blocking, closes the ones past
 *       their deadline or beyond the caps, and hands complete requests to the workers.
 *   <li>{@code WaitingConnections}: the connections without a complete request, oldest first, in
 *       all and per client address: the first to close when a cap is reached.
 *   <li>{@code Connection}: the bytes of one request while they arrive, bounded in size and time.
 *   <li>{@code RequestHead}: the strict parser of the request line and headers.
 *   <li>{@code Exchange}, {@code BodyOutput}, {@code ChannelOutput}: the {@code HttpExchange} a
 *       handler sees, and the answer written to the non-blocking channel before a deadline.
 *   <li>{@code Context}, {@code Status}: paths with their handlers; reason phrases.
 * </ul>
 */
package dev.pginbox.inbox.http.server;
