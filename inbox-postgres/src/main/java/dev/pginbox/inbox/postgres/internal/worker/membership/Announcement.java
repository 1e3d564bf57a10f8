package dev.pginbox.inbox.postgres.internal.worker.membership;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pginbox.inbox.PartitionAssignment;
import dev.pginbox.inbox.WorkerOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;

/**
 * What a worker tells {@code inbox.worker_announce} about itself at every gauge refresh, so that
 * {@code inbox.inbox_workers} lists it whatever its partition mode: host, process id, assignment,
 * concurrency, claim ahead and the announcement interval (the registry calls a worker silent after
 * three), and whether it spreads its claims over the buckets with its peers.
 */
public final class Announcement {

  private Announcement() {}

  public static String details(WorkerOptions options, Duration gaugeInterval) {
    ObjectNode node = new ObjectMapper().createObjectNode();
    node.put("host", host());
    node.put("pid", ProcessHandle.current().pid());
    node.put("concurrency", options.concurrency());
    node.put("claim_ahead", options.claimAhead());
    node.put("interval_seconds", Math.max(1, gaugeInterval.toSeconds()));
    PartitionAssignment partitions = options.partitions();
    if (partitions instanceof PartitionAssignment.Static s) {
      node.put("assignment", "static");
      node.put("partition", s.id());
      node.put("partitions", s.count());
    } else if (partitions instanceof PartitionAssignment.Automatic a) {
      node.put("assignment", "automatic");
      node.put("partitions", a.partitions());
    } else {
      node.put("assignment", "all");
      // Shares every head: on an ordered inbox it prefers its share of the buckets among the
      // live workers that announce this (inbox.worker_peers).
      node.put("spread", true);
    }
    return node.toString();
  }

  private static String host() {
    try {
      String name = InetAddress.getLocalHost().getHostName();
      return name.length() > 100 ? name.substring(0, 100) : name;
    } catch (UnknownHostException e) {
      return "unknown";
    }
  }
}
