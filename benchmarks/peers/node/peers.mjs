// One workload of the peer comparison on one peer, as benchmarks/peers/run.sh calls it:
//   node peers.mjs PEER WORKLOAD BATCH MESSAGES
// PEER: pgmq | pgq | pg-boss | graphile-worker | graphile-worker-queues
// WORKLOAD: produce (one producer, BATCH messages per statement/call) or consume (drain a backlog of
// MESSAGES with one worker taking BATCH at a time, acknowledging each batch).
// The database is PEERS_DATABASE_URL (the peer's SQL already installed for pgmq and pgq). Prints one
// line: {"peer":..., "workload":..., "batch":..., "messages":..., "rate":messages per second}.
// An untimed warm-up of as many messages precedes the timed run in the same process, as the Java
// side warms up its JIT.
import pg from "pg";
import PgBoss from "pg-boss";
import { Logger, makeWorkerUtils, run } from "graphile-worker";

// The same ~100-byte JSON as benchmarks/src/main/java/dev/pginbox/benchmarks/Payloads.java.
const PAYLOAD =
  '{"order":"ORD-000000","amount":4999,"currency":"EUR","customer":"C-12345","note":"abcdefghij"}';
const AGGREGATES = 1000;
const CHUNK = 1000; // backlog rows per statement when preparing a consume run (untimed)

const [peer, workload, batchArg, messagesArg] = process.argv.slice(2);
const batch = Number.parseInt(batchArg, 10);
const messages = Number.parseInt(messagesArg, 10);
const url = process.env.PEERS_DATABASE_URL;
if (!url || !["produce", "consume"].includes(workload) || !(batch > 0) || !(messages >= batch)) {
  console.error("usage: PEERS_DATABASE_URL=postgres://... node peers.mjs PEER produce|consume BATCH MESSAGES");
  process.exit(2);
}
const timedMessages = Math.floor(messages / batch) * batch;
const warmup = timedMessages;

const eventType = (n) => (n % 10 === 0 ? "order.cancelled" : "order.placed");
const range = (first, count) => Array.from({ length: count }, (_, i) => first + i);
const quiet = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(message);
});

async function timed(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function withClient(fn) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// pgmq (installed as plain SQL): send_batch to produce; read + delete to consume.
const pgmq = {
  async prepare(client, name) {
    await client.query("SELECT pgmq.drop_queue($1) FROM pgmq.list_queues() WHERE queue_name = $1", [name]);
    await client.query("SELECT pgmq.create($1)", [name]);
  },
  // One payload per message on the wire, as a producer sends them (and as every other peer here
  // does): array_fill of a single payload would skip sending and parsing all but one of them.
  async send(client, name, count) {
    await client.query("SELECT pgmq.send_batch($1, $2::jsonb[])", [name, range(0, count).map(() => PAYLOAD)]);
  },
  async produce(count) {
    return withClient(async (client) => {
      await this.prepare(client, "bench_produce");
      return timed(async () => {
        for (let n = 0; n < count; n += batch) await this.send(client, "bench_produce", batch);
      });
    });
  },
  async consume(count) {
    return withClient(async (client) => {
      await this.prepare(client, "bench_consume");
      for (let n = 0; n < count; n += CHUNK) await this.send(client, "bench_consume", Math.min(CHUNK, count - n));
      await client.query("VACUUM ANALYZE pgmq.q_bench_consume");
      let done = 0;
      return timed(async () => {
        while (done < count) {
          const read = await client.query("SELECT msg_id FROM pgmq.read('bench_consume', 30, $1)", [batch]);
          if (read.rows.length === 0) throw new Error(`pgmq: ${done} of ${count} read`);
          await client.query("SELECT pgmq.delete('bench_consume', $1::bigint[])", [read.rows.map((r) => r.msg_id)]);
          done += read.rows.length;
        }
      });
    });
  },
};

// PgQ (Debian's postgresql-15-pgq3): insert_event to produce; a consumer that takes each batch
// between two ticks (next_batch, get_batch_events, finish_batch in one transaction). The ticker is
// driven by hand: ticker_max_count = 1 (tick whenever there are new events) and one pgq.ticker()
// call after every BATCH events, so every batch holds exactly BATCH events.
const pgq = {
  async prepare(client, name) {
    await client.query("SELECT pgq.drop_queue(queue_name, true) FROM pgq.queue WHERE queue_name = $1", [name]);
    await client.query("SELECT pgq.create_queue($1)", [name]);
    await client.query("SELECT pgq.set_queue_config($1, 'ticker_max_count', '1')", [name]);
    await client.query("SELECT pgq.register_consumer($1, 'bench')", [name]);
  },
  async insert(client, name, first, count) {
    const types = range(first, count).map(eventType);
    const payloads = types.map(() => PAYLOAD); // one per event on the wire, as pgmq's above
    await client.query("SELECT count(pgq.insert_event($1, e.t, e.d)) FROM unnest($2::text[], $3::text[]) e (t, d)", [
      name,
      types,
      payloads,
    ]);
  },
  async produce(count) {
    return withClient(async (client) => {
      await this.prepare(client, "bench_produce");
      return timed(async () => {
        for (let n = 0; n < count; n += batch) await this.insert(client, "bench_produce", n, batch);
      });
    });
  },
  async consume(count) {
    return withClient(async (client) => {
      await this.prepare(client, "bench_consume");
      for (let n = 0; n < count; n += batch) {
        await this.insert(client, "bench_consume", n, batch);
        const tick = await client.query("SELECT pgq.ticker('bench_consume') AS tick");
        if (tick.rows[0].tick === null) throw new Error("pgq: the ticker did not tick");
      }
      let done = 0;
      return timed(async () => {
        while (done < count) {
          await client.query("BEGIN");
          const next = await client.query("SELECT pgq.next_batch('bench_consume', 'bench') AS id");
          const id = next.rows[0].id;
          if (id === null) throw new Error(`pgq: ${done} of ${count} consumed and no batch left`);
          const events = await client.query("SELECT ev_id, ev_type, ev_data FROM pgq.get_batch_events($1)", [id]);
          await client.query("SELECT pgq.finish_batch($1)", [id]);
          await client.query("COMMIT");
          done += events.rows.length;
        }
      });
    });
  },
};

// pg-boss: insert(jobs) to produce; fetch({batchSize}) + complete(ids) to consume.
const pgBoss = {
  runs: 0,
  // A new queue per run: pg-boss 10 cannot delete a queue that still holds jobs.
  async start(workload) {
    const boss = new PgBoss({ connectionString: url, supervise: false, schedule: false, max: 2 });
    boss.on("error", (e) => console.error(e));
    await boss.start();
    const name = `bench_${workload}_${process.pid}_${this.runs++}`;
    await boss.createQueue(name);
    return { boss, name };
  },
  jobs(name, count) {
    return range(0, count).map(() => ({ name, data: JSON.parse(PAYLOAD) }));
  },
  async produce(count) {
    const { boss, name } = await this.start("produce");
    try {
      return await timed(async () => {
        for (let n = 0; n < count; n += batch) await boss.insert(this.jobs(name, batch));
      });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  },
  async consume(count) {
    const { boss, name } = await this.start("consume");
    try {
      for (let n = 0; n < count; n += CHUNK) await boss.insert(this.jobs(name, Math.min(CHUNK, count - n)));
      let done = 0;
      return await timed(async () => {
        while (done < count) {
          const jobs = await boss.fetch(name, { batchSize: batch });
          if (!jobs || jobs.length === 0) throw new Error(`pg-boss: ${done} of ${count} fetched`);
          await boss.complete(name, jobs.map((j) => j.id));
          done += jobs.length;
        }
      });
    } finally {
      await boss.stop({ graceful: false, wait: true });
    }
  },
};

// graphile-worker: addJobs to produce; its runner with a no-op task to consume, one job at a time
// (concurrency 1) from a local queue of BATCH jobs fetched and locked at once, completions batched.
// graphile-worker-queues: every job in a named queue per aggregate (1,000), which graphile-worker runs
// one at a time in order: the in-order consumption.
function graphile(namedQueues) {
  const jobs = (first, count) =>
    range(first, count).map((n) => ({
      identifier: "noop",
      payload: JSON.parse(PAYLOAD),
      queueName: namedQueues ? `agg-${n % AGGREGATES}` : undefined,
    }));
  return {
    async utils() {
      const utils = await makeWorkerUtils({ connectionString: url, logger: quiet });
      await utils.migrate();
      await utils.withPgClient((client) => client.query("DELETE FROM graphile_worker._private_jobs"));
      return utils;
    },
    async produce(count) {
      const utils = await this.utils();
      try {
        return await timed(async () => {
          for (let n = 0; n < count; n += batch) await utils.addJobs(jobs(n, batch));
        });
      } finally {
        await utils.release();
      }
    },
    async consume(count) {
      const utils = await this.utils();
      try {
        for (let n = 0; n < count; n += CHUNK) await utils.addJobs(jobs(n, Math.min(CHUNK, count - n)));
        await utils.withPgClient((client) => client.query("VACUUM ANALYZE graphile_worker._private_jobs"));
        let done = 0;
        let drained;
        const allRan = new Promise((resolve) => (drained = resolve));
        let runner;
        const seconds = await timed(async () => {
          runner = await run({
            connectionString: url,
            concurrency: 1,
            noHandleSignals: true,
            pollInterval: 100,
            logger: quiet,
            taskList: {
              noop: async () => {
                if (++done === count) drained();
              },
            },
            preset: { worker: { localQueue: { size: batch }, completeJobBatchDelay: 0 } },
          });
          await allRan;
          // The last completions are batched after the task returns: wait until they are committed.
          for (;;) {
            const left = await utils.withPgClient((client) =>
              client.query("SELECT count(*)::int AS n FROM graphile_worker._private_jobs"),
            );
            if (left.rows[0].n === 0) break;
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        });
        await runner.stop();
        return seconds;
      } finally {
        await utils.release();
      }
    },
  };
}

const peers = {
  pgmq,
  pgq,
  "pg-boss": pgBoss,
  "graphile-worker": graphile(false),
  "graphile-worker-queues": graphile(true),
};
const chosen = peers[peer];
if (!chosen) {
  console.error(`unknown peer ${peer}; one of ${Object.keys(peers).join(", ")}`);
  process.exit(2);
}
await chosen[workload](warmup);
const seconds = await chosen[workload](timedMessages);
console.log(JSON.stringify({ peer, workload, batch, messages: timedMessages, rate: Math.round(timedMessages / seconds) }));
process.exit(0);
