package dev.floe.worker.quickstart;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.floe.worker.decode.DebeziumDecoder;
import dev.floe.worker.decode.RawRecord;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes Debezium change records as the PostgreSQL connector does through JsonConverter
 * (shape checked against the captured samples in test resources): envelope with schema, key record,
 * source block with the LSN, tombstones after deletes.
 */
public final class DebeziumEnvelopes {
  /** Set by Debezium on the create half of a primary-key update: the row's key before the update. */
  public static final String OLD_KEY_HEADER = DebeziumDecoder.OLD_KEY_HEADER;
  /** Set by Debezium on the delete half of a primary-key update and its tombstone: the row's new key. */
  public static final String NEW_KEY_HEADER = DebeziumDecoder.NEW_KEY_HEADER;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  /** When the generated changes happened, in every timestamp of their envelopes. */
  private static final long TS_MS = 1_700_000_000_000L;

  private final String topic;
  private final String table;
  private List<ConnectColumn> columns;
  private List<String> key;
  private boolean withSchema = true;
  private final Map<Integer, Long> nextOffset = new HashMap<>();
  private long lsn = 1_000;

  private DebeziumEnvelopes(String topic, String table) {
    this.topic = topic;
    this.table = table;
  }

  public static DebeziumEnvelopes forTopic(String topic) {
    return new DebeziumEnvelopes(topic, topic.substring(topic.lastIndexOf('.') + 1));
  }

  public DebeziumEnvelopes columns(List<ConnectColumn> columns) {
    this.columns = List.copyOf(columns);
    return this;
  }

  public DebeziumEnvelopes key(String... key) {
    this.key = List.of(key);
    return this;
  }

  public DebeziumEnvelopes withoutSchema() {
    this.withSchema = false;
    return this;
  }

  public String topic() {
    return topic;
  }

  /** Next offsets handed out so far, per partition. */
  public Map<Integer, Long> nextOffsets() {
    return Map.copyOf(nextOffset);
  }

  public RawRecord insert(int partition, Map<String, Object> row) {
    return change(partition, "c", null, row);
  }

  /**
   * {@code UPDATE t SET id = new WHERE id = old} as Debezium's PostgreSQL connector writes it: the
   * {@code d} of the old key ('before' holds only the key columns, REPLICA IDENTITY DEFAULT) and its
   * tombstone in {@code oldPartition}, both with the header {@code __debezium.newkey}, then the
   * {@code c} of the new key in {@code newPartition} with the header {@code __debezium.oldkey}.
   * All three carry one {@code source.lsn}, as Debezium gives both halves (seen on every key
   * update of a 20,000-statement run against PostgreSQL 15).
   *
   * @param row the new row, its key columns included; TOASTed columns the update left alone hold
   *     the placeholder the caller's column encodes
   * @return the delete, the tombstone and the create, in that order
   */
  public List<RawRecord> keyUpdate(int oldPartition, Map<String, Object> oldKey, int newPartition, Map<String, Object> row) {
    long shared = nextLsn();
    byte[] newKey = keyBytes(row);
    RawRecord delete = withHeader(change(oldPartition, "d", oldKey, null, shared), NEW_KEY_HEADER, newKey);
    RawRecord tombstone = withHeader(tombstone(oldPartition, oldKey), NEW_KEY_HEADER, newKey);
    RawRecord create = withHeader(change(newPartition, "c", null, row, shared), OLD_KEY_HEADER, keyBytes(oldKey));
    return List.of(delete, tombstone, create);
  }

  /** The LSN the last record was written with. */
  public long lastLsn() {
    return lsn;
  }

  public RawRecord update(int partition, Map<String, Object> row) {
    return change(partition, "u", null, row);
  }

  public RawRecord read(int partition, Map<String, Object> row) {
    return change(partition, "r", null, row);
  }

  /** A delete as with REPLICA IDENTITY DEFAULT: 'before' holds only the key columns. */
  public RawRecord delete(int partition, Map<String, Object> keyRow) {
    return change(partition, "d", keyRow, null);
  }

  public RawRecord tombstone(int partition, Map<String, Object> keyRow) {
    return new RawRecord(topic, partition, offset(partition), keyBytes(keyRow), null);
  }

  public RawRecord truncate(int partition) {
    ObjectNode payload = F.objectNode();
    payload.set("source", source(nextLsn()));
    payload.put("op", "t").put("ts_ms", 0);
    ObjectNode root = F.objectNode();
    if (withSchema) {
      root.set("schema", envelopeSchema());
      root.set("payload", payload);
    }
    return new RawRecord(topic, partition, offset(partition), null, bytes(withSchema ? root : payload));
  }

  /** Any bytes at a position of the topic (for poison records). */
  public RawRecord raw(int partition, byte[] key, byte[] value) {
    return new RawRecord(topic, partition, offset(partition), key, value);
  }

  private RawRecord change(int partition, String op, Map<String, Object> before, Map<String, Object> after) {
    return change(partition, op, before, after, nextLsn());
  }

  private RawRecord change(int partition, String op, Map<String, Object> before, Map<String, Object> after, long lsn) {
    Map<String, Object> keySource = after != null ? after : before;
    ObjectNode payload = F.objectNode();
    payload.set("before", before == null ? F.nullNode() : row(before));
    payload.set("after", after == null ? F.nullNode() : row(after));
    payload.set("source", source(lsn));
    payload.putNull("transaction");
    payload.put("op", op).put("ts_ms", TS_MS).put("ts_us", TS_MS * 1_000).put("ts_ns", TS_MS * 1_000_000);
    JsonNode value = payload;
    if (withSchema) {
      ObjectNode root = F.objectNode();
      root.set("schema", envelopeSchema());
      root.set("payload", payload);
      value = root;
    }
    return new RawRecord(topic, partition, offset(partition), keyBytes(keySource), bytes(value));
  }

  private ObjectNode row(Map<String, Object> values) {
    ObjectNode row = F.objectNode();
    for (ConnectColumn c : columns) {
      row.set(c.name(), c.encode(values.get(c.name())));
    }
    return row;
  }

  private byte[] keyBytes(Map<String, Object> row) {
    ObjectNode payload = F.objectNode();
    ArrayNode fields = F.arrayNode();
    for (String k : key) {
      ConnectColumn c = columns.stream().filter(col -> col.name().equals(k)).findFirst().orElseThrow();
      payload.set(k, c.encode(row.get(k)));
      fields.add(c.required().schema());
    }
    if (!withSchema) {
      return bytes(payload);
    }
    ObjectNode schema = F.objectNode().put("type", "struct");
    schema.set("fields", fields);
    schema.put("optional", false).put("name", "floe." + table + ".Key");
    ObjectNode root = F.objectNode();
    root.set("schema", schema);
    root.set("payload", payload);
    return bytes(root);
  }

  private long nextLsn() {
    lsn += 8;
    return lsn;
  }

  private static RawRecord withHeader(RawRecord r, String name, byte[] value) {
    Map<String, byte[]> headers = new HashMap<>(r.headers());
    headers.put(name, value);
    return new RawRecord(r.topic(), r.partition(), r.offset(), r.key(), r.value(), Map.copyOf(headers));
  }

  /** The PostgreSQL connector's source block, every field in its order (as in the captured samples). */
  private ObjectNode source(long lsn) {
    ObjectNode source = F.objectNode().put("version", "3.6.1.Final").put("connector", "postgresql").put("name", "floe")
        .put("ts_ms", TS_MS).put("snapshot", "false").put("db", "shop").put("sequence", "[\"" + lsn + "\",\"" + lsn + "\"]")
        .put("ts_us", TS_MS * 1_000).put("ts_ns", TS_MS * 1_000_000).put("schema", "public").put("table", table).put("txId", lsn / 8)
        .put("lsn", lsn);
    source.putNull("xmin");
    source.putNull("origin");
    source.putNull("origin_lsn");
    return source;
  }

  private ObjectNode envelopeSchema() {
    ArrayNode rowFields = F.arrayNode();
    columns.forEach(c -> rowFields.add(key.contains(c.name()) ? c.required().schema() : c.schema()));
    ObjectNode before = F.objectNode().put("type", "struct");
    before.set("fields", rowFields);
    before.put("optional", true).put("name", "floe.public." + table + ".Value").put("field", "before");
    ObjectNode after = before.deepCopy().put("field", "after");
    // every field source() writes, as Debezium's schema declares them: a converter that goes by the
    // schema (Avro) keeps only what the schema names
    ArrayNode sourceFields = F.arrayNode();
    for (String name : new String[] {"version", "connector", "name"}) {
      sourceFields.add(field(name, "string", false));
    }
    sourceFields.add(field("ts_ms", "int64", false));
    ObjectNode snapshot = field("snapshot", "string", true).put("name", "io.debezium.data.Enum").put("version", 1);
    snapshot.putObject("parameters").put("allowed", "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental");
    sourceFields.add(snapshot.put("default", "false"));
    sourceFields.add(field("db", "string", false)).add(field("sequence", "string", true)).add(field("ts_us", "int64", true))
        .add(field("ts_ns", "int64", true)).add(field("schema", "string", false)).add(field("table", "string", false))
        .add(field("txId", "int64", true)).add(field("lsn", "int64", true)).add(field("xmin", "int64", true))
        .add(field("origin", "string", true)).add(field("origin_lsn", "int64", true));
    ObjectNode source = F.objectNode().put("type", "struct");
    source.set("fields", sourceFields);
    source.put("optional", false).put("name", "io.debezium.connector.postgresql.Source").put("field", "source");
    ObjectNode transaction = F.objectNode().put("type", "struct");
    transaction.set("fields", F.arrayNode().add(field("id", "string", false)).add(field("total_order", "int64", false))
        .add(field("data_collection_order", "int64", false)));
    transaction.put("optional", true).put("name", "event.block").put("version", 1).put("field", "transaction");
    ArrayNode fields = F.arrayNode().add(before).add(after).add(source).add(transaction).add(field("op", "string", false))
        .add(field("ts_ms", "int64", true)).add(field("ts_us", "int64", true)).add(field("ts_ns", "int64", true));
    ObjectNode schema = F.objectNode().put("type", "struct");
    schema.set("fields", fields);
    schema.put("optional", false).put("name", "floe.public." + table + ".Envelope").put("version", 2);
    return schema;
  }

  private static ObjectNode field(String name, String type, boolean optional) {
    return F.objectNode().put("type", type).put("optional", optional).put("field", name);
  }

  private long offset(int partition) {
    long o = nextOffset.getOrDefault(partition, 0L);
    nextOffset.put(partition, o + 1);
    return o;
  }

  private static byte[] bytes(JsonNode node) {
    try {
      return JSON.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
