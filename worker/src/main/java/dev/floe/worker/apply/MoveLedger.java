package dev.floe.worker.apply;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floe.worker.fold.RowKey;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.types.Types;

/**
 * The halves of primary-key updates whose other half has not been applied yet, per table and sink.
 * Debezium writes {@code UPDATE t SET id = new} as a delete of the old key and a create of the new
 * one, with one LSN, in the partitions the two keys hash to; either can be consumed first. When the
 * delete comes first, the row image it removed waits here ({@link Departed}) for the create, which
 * takes its unchanged (TOAST) values from it. When the create comes first, the moved row takes the
 * old key's value as far as its partition was read, and the columns that must be settled wait here
 * ({@link Arrived}) for the delete, whose batch rewrites them. Kept beside the offsets (a file the
 * snapshot summary names), so the wait survives crashes and is shared by the sink's workers.
 */
public final class MoveLedger {
  private static final ObjectMapper JSON = new ObjectMapper();
  public static final MoveLedger EMPTY = new MoveLedger(Map.of(), Map.of());

  /** The row the delete half at {@code lsn} removed from {@code oldKey}, in table column order. */
  public record Departed(long lsn, RowKey oldKey, Object[] image) {}

  /**
   * The create half at {@code lsn} moved a row from {@code oldKey}; {@code columns} of the row now
   * under {@code target} still hold best-effort values (none: only the delete half is awaited).
   * A null target means the pending values travel inside a departed image (the row moved on).
   */
  public record Arrived(long lsn, RowKey oldKey, RowKey target, Set<Integer> columns) {}

  private final Map<Long, Departed> departed;
  private final Map<Long, Arrived> arrived;
  private final Set<RowKey> targets = new java.util.HashSet<>();

  public MoveLedger(Map<Long, Departed> departed, Map<Long, Arrived> arrived) {
    this.departed = Collections.unmodifiableMap(new TreeMap<>(departed));
    this.arrived = Collections.unmodifiableMap(new TreeMap<>(arrived));
    arrived.values().forEach(a -> {
      if (a.target() != null && !a.columns().isEmpty()) {
        targets.add(a.target());
      }
    });
  }

  public boolean isEmpty() {
    return departed.isEmpty() && arrived.isEmpty();
  }

  public Departed departed(long lsn) {
    return departed.get(lsn);
  }

  public Arrived arrived(long lsn) {
    return arrived.get(lsn);
  }

  public Collection<Departed> departed() {
    return departed.values();
  }

  public Collection<Arrived> arrived() {
    return arrived.values();
  }

  /** Without the halves older than a truncate: events before it are dropped, so their partners never come. */
  public MoveLedger withoutOlderThan(Long truncateLsn) {
    if (truncateLsn == null) {
      return this;
    }
    Map<Long, Departed> d = new LinkedHashMap<>(departed);
    Map<Long, Arrived> a = new LinkedHashMap<>(arrived);
    d.keySet().removeIf(lsn -> lsn < truncateLsn);
    a.keySet().removeIf(lsn -> lsn < truncateLsn);
    return new MoveLedger(d, a);
  }

  /** Whether a key's stored row holds values a key change left pending. */
  public boolean isTarget(RowKey key) {
    return targets.contains(key);
  }

  /** Stored rows with the values that wait for a delete half marked {@link PendingValue} (copies; the input stays as read). */
  Map<RowKey, Object[]> markPending(Map<RowKey, Object[]> stored) {
    if (arrived.isEmpty() || stored.isEmpty()) {
      return stored;
    }
    Map<RowKey, Object[]> out = new java.util.HashMap<>(stored);
    for (Arrived a : arrived.values()) {
      Object[] row = a.target() == null ? null : out.get(a.target());
      if (row == null || a.columns().isEmpty()) {
        continue;
      }
      Object[] marked = row == stored.get(a.target()) ? row.clone() : row;
      for (int c : a.columns()) {
        marked[c] = new PendingValue(a.lsn(), c, PendingValue.unwrap(marked[c]));
      }
      out.put(a.target(), marked);
    }
    return out;
  }

  @Override
  public String toString() {
    return "MoveLedger{departed=" + departed.keySet() + ", arrived=" + arrived.keySet() + "}";
  }

  /**
   * The ledger as JSON. Columns go by name (a later schema may add or widen columns), values in
   * Iceberg's single-value JSON, as table defaults are written.
   */
  public String encode(TableLayout layout) {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
      g.writeStartObject();
      g.writeArrayFieldStart("departed");
      for (Departed d : departed.values()) {
        g.writeStartObject();
        g.writeNumberField("lsn", d.lsn());
        g.writeFieldName("oldKey");
        writeKey(g, layout, d.oldKey());
        g.writeObjectFieldStart("row");
        g.writeObjectFieldStart("pending");
        for (int i = 0; i < d.image().length; i++) {
          if (d.image()[i] instanceof PendingValue p) {
            g.writeNumberField(layout.column(i).name(), p.lsn());
          }
        }
        g.writeEndObject();
        g.writeObjectFieldStart("values");
        for (int i = 0; i < d.image().length; i++) {
          writeValue(g, layout.column(i), PendingValue.unwrap(d.image()[i]));
        }
        g.writeEndObject();
        g.writeEndObject();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeArrayFieldStart("arrived");
      for (Arrived a : arrived.values()) {
        g.writeStartObject();
        g.writeNumberField("lsn", a.lsn());
        g.writeFieldName("oldKey");
        writeKey(g, layout, a.oldKey());
        g.writeFieldName("target");
        if (a.target() == null) {
          g.writeNull();
        } else {
          writeKey(g, layout, a.target());
        }
        g.writeArrayFieldStart("columns");
        for (int c : new TreeSet<>(a.columns())) {
          g.writeString(layout.column(c).name());
        }
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  /** Reads {@link #encode}'s JSON against the table's current columns. */
  public static MoveLedger decode(String json, TableLayout layout) {
    try {
      JsonNode root = JSON.readTree(json);
      Map<Long, Departed> departed = new LinkedHashMap<>();
      for (JsonNode d : root.path("departed")) {
        long lsn = d.path("lsn").longValue();
        Object[] image = new Object[layout.columnCount()];
        JsonNode values = d.path("row").path("values");
        JsonNode pending = d.path("row").path("pending");
        for (int i = 0; i < image.length; i++) {
          Types.NestedField column = layout.column(i);
          Object v = readValue(column, values.get(column.name()));
          image[i] = pending.has(column.name()) ? new PendingValue(pending.get(column.name()).longValue(), i, v) : v;
        }
        departed.put(lsn, new Departed(lsn, readKey(d.path("oldKey"), layout), image));
      }
      Map<Long, Arrived> arrived = new LinkedHashMap<>();
      for (JsonNode a : root.path("arrived")) {
        long lsn = a.path("lsn").longValue();
        Set<Integer> columns = new TreeSet<>();
        for (JsonNode c : a.path("columns")) {
          int pos = layout.positionOf(c.textValue());
          if (pos >= 0) {
            columns.add(pos);
          }
        }
        JsonNode target = a.path("target");
        arrived.put(lsn, new Arrived(lsn, readKey(a.path("oldKey"), layout),
            target.isNull() || target.isMissingNode() ? null : readKey(target, layout), columns));
      }
      return new MoveLedger(departed, arrived);
    } catch (IOException e) {
      throw new UncheckedIOException("unreadable primary-key move ledger", e);
    }
  }

  private static void writeKey(JsonGenerator g, TableLayout layout, RowKey key) throws IOException {
    Object[] row = layout.keyRow(key);
    g.writeStartObject();
    for (int pos : layout.keyPositions()) {
      writeValue(g, layout.column(pos), row[pos]);
    }
    g.writeEndObject();
  }

  private static RowKey readKey(JsonNode node, TableLayout layout) {
    int[] positions = layout.keyPositions();
    Object[] key = new Object[positions.length];
    for (int i = 0; i < positions.length; i++) {
      Types.NestedField column = layout.column(positions[i]);
      key[i] = readValue(column, node.get(column.name()));
    }
    return new RowKey(key);
  }

  private static void writeValue(JsonGenerator g, Types.NestedField column, Object value) throws IOException {
    g.writeFieldName(column.name());
    if (value == null) {
      g.writeNull();
    } else {
      SingleValueParser.toJson(column.type(), IcebergValues.toInternal(column.type(), value), g);
    }
  }

  private static Object readValue(Types.NestedField column, JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    return IcebergValues.toGeneric(column.type(), SingleValueParser.fromJson(column.type(), node));
  }
}
