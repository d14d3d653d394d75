package dev.floe.worker.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.floe.worker.config.CatalogSpec;
import dev.floe.worker.config.TableSpec;
import dev.floe.worker.config.WriteMode;
import dev.floe.worker.fold.MergeRule;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The merge state holds exactly the values it was given, per file and position, and persists them exactly. */
class MergeStateTest {
  private static final Schema SCHEMA = new Schema(List.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "n", Types.LongType.get()),
      Types.NestedField.optional(3, "i", Types.IntegerType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "f", Types.FloatType.get()),
      Types.NestedField.optional(6, "s", Types.StringType.get()),
      Types.NestedField.optional(7, "m", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(8, "u", Types.UUIDType.get()),
      Types.NestedField.optional(9, "t", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(10, "last", Types.StringType.get())), Set.of(1));

  private static TableLayout layout(Map<String, MergeRule> rules) {
    return new TableLayout(SCHEMA, PartitionSpec.unpartitioned(),
        new TableSpec(CatalogSpec.local("/tmp/unused"), "t.t", List.of(), List.of(), 3, WriteMode.POSITION_DELETES, rules, Map.of()));
  }

  private static final Map<String, MergeRule> RULES = Map.of("n", MergeRule.SUM, "i", MergeRule.MIN, "d", MergeRule.MAX,
      "f", MergeRule.SUM, "s", MergeRule.LAST_NON_NULL, "m", MergeRule.SUM, "u", MergeRule.FIRST, "t", MergeRule.FIRST);

  @Test
  void holdsTheColumnsWhoseRulesReadTheStoredValueAndWhoseTypesPack() {
    MergeState state = MergeState.forLayout(layout(RULES));
    assertThat(List.of(state.columns()).stream().map(MergeState.Column::fieldId).toList())
        .as("not the key, not the timestamp (read from the table), not a last column").containsExactly(2, 3, 4, 5, 6, 7, 8);
  }

  @Test
  void valuesComeBackAsRecordedAndSurviveAPersistedCopy() throws Exception {
    TableLayout layout = layout(RULES);
    MergeState state = MergeState.forLayout(layout);
    UUID u = UUID.randomUUID();
    state.record("a.parquet", 3, 0, row(1L, 5L, -2, 1.5, 2.5f, "ünïcode", new BigDecimal("1.25"), u));
    state.record("a.parquet", 3, 2, row(2L, null, null, null, null, null, null, null));
    state.record("b.parquet", 1, 0, row(3L, Long.MAX_VALUE, Integer.MIN_VALUE, -0.0, Float.NaN, "", new BigDecimal("-0.01"), u));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      state.write(out);
    }
    MergeState loaded = MergeState.forLayout(layout);
    loaded.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), f -> true);

    for (MergeState s : List.of(state, loaded)) {
      assertThat(values(s, "a.parquet", 0)).containsExactly(5L, -2, 1.5, 2.5f, "ünïcode", new BigDecimal("1.25"), u);
      assertThat(values(s, "a.parquet", 2)).containsOnlyNulls();
      assertThat(values(s, "b.parquet", 0)).containsExactly(Long.MAX_VALUE, Integer.MIN_VALUE, -0.0, Float.NaN, "", new BigDecimal("-0.01"), u);
    }
  }

  @Test
  void aPersistedCopyOfOtherColumnsIsRefused() throws Exception {
    MergeState state = MergeState.forLayout(layout(RULES));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      state.write(out);
    }
    MergeState other = MergeState.forLayout(layout(Map.of("n", MergeRule.SUM)));
    assertThatThrownBy(() -> other.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())), f -> true))
        .isInstanceOf(IllegalStateException.class);
  }

  private static Object[] values(MergeState s, String file, long position) {
    Object[] out = new Object[s.columns().length];
    for (int c = 0; c < out.length; c++) {
      out[c] = s.value(file, position, c);
    }
    return out;
  }

  private static Record row(Long id, Long n, Integer i, Double d, Float f, String s, BigDecimal m, UUID u) {
    Record r = GenericRecord.create(SCHEMA);
    r.setField("id", id);
    r.setField("n", n);
    r.setField("i", i);
    r.setField("d", d);
    r.setField("f", f);
    r.setField("s", s);
    r.setField("m", m);
    r.setField("u", u);
    return r;
  }
}
